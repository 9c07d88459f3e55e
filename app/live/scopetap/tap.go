// Package scopetap keeps the newest seconds of a live input as the
// analysis reads it, for the oscilloscope and the pitch trace: Live's
// engine goroutine writes every block it reads (live.Live.OnBlock), any
// goroutine copies a span of one channel or of the mix out by its
// absolute position. It knows nothing of triggers, pitch or the window;
// the Tap owns its ring and hands out copies only.
package scopetap

import (
	"sync"
)

// Tap is a ring of the newest Seconds of interleaved input frames.
type Tap struct {
	seconds float64

	mu       sync.Mutex
	ring     []float32 // interleaved, len = frames·channels
	frames   int       // capacity in frames
	channels int
	rate     int
	from     uint64 // the oldest position held
	end      uint64 // the position after the newest frame
}

// New makes a tap holding the newest seconds of input (sized at the first
// block and again when the channel count or rate changes).
func New(seconds float64) *Tap { return &Tap{seconds: seconds} }

// Write copies a block of interleaved frames (len(block)/channels of
// them), the first at absolute position pos. A block that does not follow
// the last one (a gap, a new source) restarts the ring. Only the engine
// goroutine calls it; it allocates only when the format changes.
func (t *Tap) Write(block []float32, channels, rate int, pos uint64) {
	if channels < 1 || rate < 1 {
		return
	}
	n := len(block) / channels
	t.mu.Lock()
	defer t.mu.Unlock()
	if channels != t.channels || rate != t.rate {
		t.frames = max(1, int(t.seconds*float64(rate)))
		t.ring = make([]float32, t.frames*channels)
		t.channels, t.rate = channels, rate
		t.from, t.end = pos, pos
	}
	if pos != t.end {
		t.from, t.end = pos, pos
	}
	if n > t.frames { // only the newest frames fit
		block = block[(n-t.frames)*channels:]
		pos += uint64(n - t.frames)
		t.from, n = pos, t.frames
	}
	at := int(pos % uint64(t.frames))
	k := copy(t.ring[at*channels:], block[:n*channels])
	copy(t.ring, block[k:n*channels])
	t.end = pos + uint64(n)
	if t.end-t.from > uint64(t.frames) {
		t.from = t.end - uint64(t.frames)
	}
}

// Span is what the tap holds: positions from…end (end exclusive), the
// channel count and the sample rate (0 before the first block). Any
// goroutine may call it.
func (t *Tap) Span() (from, end uint64, channels, rate int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.from, t.end, t.channels, t.rate
}

// ReadAt copies len(dst) samples of channel ch (−1: the mean of the
// channels) from position start on into dst. It returns false, copying
// nothing, where the tap no longer or not yet holds them all, or has no
// channel ch. Any goroutine may call it; it does not allocate.
func (t *Tap) ReadAt(dst []float32, ch int, start uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if start < t.from || start+uint64(len(dst)) > t.end || ch >= t.channels || ch < -1 {
		return false
	}
	c := t.channels
	for i := range dst {
		at := int((start + uint64(i)) % uint64(t.frames))
		frame := t.ring[at*c : at*c+c]
		if ch >= 0 {
			dst[i] = frame[ch]
			continue
		}
		s := float32(0)
		for _, v := range frame {
			s += v
		}
		dst[i] = s / float32(c)
	}
	return true
}
