package audio

import "time"

// gapKind says what a gap in the stream was.
type gapKind int

const (
	gapNone     gapKind = iota // no discontinuity: blocks are written as they come
	gapOutage                  // the source was reopened after an error or a stall
	gapOverflow                // the device dropped input (PortAudio input overflow)
)

// resyncHold is how much of the stream after a discontinuity the capture
// goroutine holds back to measure where it starts in real time.
const resyncHold = 50 * time.Millisecond

// resync holds the blocks that follow a discontinuity. The capture
// goroutine owns it; its buffers are reused.
type resync struct {
	buf    []float32 // the held blocks' samples, interleaved, back to back
	ats    []time.Time
	ns     []int
	frames int
}

// newResync makes a hold for at least frames frames of channels samples
// in blocks of at most maxBlock frames: its buffers are allocated once.
func newResync(frames, maxBlock, channels int) resync {
	return resync{buf: make([]float32, 0, (frames+maxBlock)*channels),
		ats: make([]time.Time, 0, resyncBlocks), ns: make([]int, 0, resyncBlocks)}
}

// resyncBlocks is the most blocks a hold keeps.
const resyncBlocks = 256

// add holds a block of n frames (p: its samples) that arrived at `at`, and
// says whether the hold has frames frames or no room for another block of
// maxBlock.
func (h *resync) add(p []float32, n int, at time.Time, frames, maxBlock int) (full bool) {
	h.buf = append(h.buf, p...)
	h.ats = append(h.ats, at)
	h.ns = append(h.ns, n)
	h.frames += n
	return h.frames >= frames || len(h.ns) == cap(h.ns) || cap(h.buf)-len(h.buf) < len(p)/max(n, 1)*maxBlock
}

// start estimates when the first held frame was captured: a block arrives
// no earlier than its last frame was captured, so the held frames start
// no later than any block's arrival less the frames up to its end; the
// earliest such bound is the estimate (the block that waited least).
func (h *resync) start(rate int) time.Time {
	var est time.Time
	cum := 0
	for k, n := range h.ns {
		cum += n
		t := h.ats[k].Add(-time.Duration(float64(cum) / float64(rate) * float64(time.Second)))
		if k == 0 || t.Before(est) {
			est = t
		}
	}
	return est
}

func (h *resync) reset() {
	h.buf, h.ats, h.ns, h.frames = h.buf[:0], h.ats[:0], h.ns[:0], 0
}
