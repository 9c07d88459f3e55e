package transfer

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/prismaudio/prism/app/live"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
)

// Capture measures seconds of the recorder's stream with a live
// transfer analyzer (NewLive with s) and returns its last result and
// statistics: `prism capture --transfer`. It ends when seconds of input
// were analyzed, with the context's error when ctx ends first, or with an
// error wrapping live.ErrIncomplete at seconds + 5 s of wall-clock time when
// the input stopped coming or the analysis fell behind (the result is
// then what was averaged). log gets a line at the start and the end (nil:
// none).
func Capture(ctx context.Context, rec *audio.Recorder, engines engine.Pair, s LiveSettings, seconds float64, log io.Writer) (LiveResult, live.Stats, error) {
	var res LiveResult
	rate := rec.SampleRate()
	want := uint64(seconds * float64(rate))
	if want < uint64(s.FFT) {
		return res, live.Stats{}, fmt.Errorf("live: transfer: %g s at %d Hz is shorter than one frame of %d", seconds, rate, s.FFT)
	}
	tr, err := NewLive(rec, engines, s)
	if err != nil {
		return res, live.Stats{}, err
	}
	defer tr.Close()
	logTo(log, "prism: measuring %.1f s from %s at %d Hz: reference channel %d, channels %v, on %s\n",
		seconds, rec.Stats().Source, rate, tr.set.RefChannel, tr.set.Channels, tr.eng.Name())
	start, deadline := tr.pos, time.Now().Add(time.Duration((seconds+5)*float64(time.Second)))
	var short error
	total := uint64(dsp.FrameCount(int64(want), s.FFT, s.Hop))
	for tr.frames < total {
		if err := ctx.Err(); err != nil {
			return res, tr.Stats(), err
		}
		if time.Now().After(deadline) {
			short = fmt.Errorf("%w: %.2f s of %g analyzed by the deadline", live.ErrIncomplete, float64(tr.pos-start)/float64(rate), seconds)
			break
		}
		n, err := tr.Step()
		if err != nil && tr.eng == engines.CPU {
			return res, tr.Stats(), err
		}
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	if !tr.Latest(&res) && short == nil {
		short = fmt.Errorf("%w: no frame analyzed", live.ErrIncomplete)
	}
	st := tr.Stats()
	logTo(log, "prism: %d frames per channel; latency p50 %.2f ms, p99 %.2f ms; %d input frames dropped\n",
		st.Frames, st.LatencyP50Ms, st.LatencyP99Ms, st.DroppedFrames)
	return res, st, short
}

// logTo writes a line to w unless it is nil.
func logTo(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format, a...)
	}
}
