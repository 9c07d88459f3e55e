package transfer

import (
	"errors"

	"github.com/prismaudio/prism/app/engine"
)

// NewLiveFeed makes a transfer analyzer of inputs channels at rate Hz
// that the caller feeds with Feed instead of a recorder's ring (a
// benchmark, a stream that is not live). Its statistics are the engine's
// only.
func NewLiveFeed(rate, inputs int, engines engine.Pair, s LiveSettings) (*Live, error) {
	return newTransfer(rate, inputs, engines, s, nil)
}

// Feed appends src (interleaved frames of every input channel) to the
// stream and analyzes every complete frame, as Step does, returning the
// frames analyzed per channel. It does not allocate. Only the goroutine
// that owns the analyzer calls it, and only on one made by
// NewLiveFeed.
func (t *Live) Feed(src []float32) (int, error) {
	if t.rec != nil {
		return 0, errors.New("live: transfer: Feed on an analyzer of a recorder")
	}
	total := 0
	for len(src) > 0 {
		room := len(t.blocks[0]) - t.hist - t.have
		take := min(room, len(src)/t.inputs)
		t.deinterleave(src[:take*t.inputs])
		src = src[take*t.inputs:]
		n, err := t.run()
		total += n
		if err != nil {
			return total, err
		}
		if take == 0 && n == 0 {
			break // a partial frame of input left over
		}
	}
	return total, nil
}

// BatchFrames is the most frames per channel one engine call takes.
func (t *Live) BatchFrames() int { return t.cfg.MaxFrames() }
