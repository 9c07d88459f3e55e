package audio

import "time"

// gapKind says what a gap in the stream was.
type gapKind int

const (
	gapNone     gapKind = iota // no discontinuity: blocks are written as they come
	gapOutage                  // the source was reopened after an error or a stall, or paused
	gapOverflow                // the device dropped input (PortAudio input overflow)
)

// resyncHold is how much of the stream after a discontinuity the capture
// goroutine holds back at least to measure where it starts in real time;
// it holds on while the blocks come back to back (a backlog read at once
// says nothing of when it was captured), up to resyncMax.
const (
	resyncHold = 50 * time.Millisecond
	resyncMax  = time.Second
)

// resyncBlocks is the most blocks a hold keeps.
const resyncBlocks = 512

// resync holds the blocks that follow a discontinuity. The capture
// goroutine owns it; its buffers are allocated once.
type resync struct {
	rate, channels int
	minFrames      int       // resyncHold
	maxFrames      int       // resyncMax
	buf            []float32 // the held blocks' samples, interleaved, back to back
	ats            []time.Time
	ns             []int
	frames         int
	paced          int // blocks at the end that each came at least half its duration after the one before
}

// newResync makes a hold for a stream of rate and channels read in blocks
// of at most maxBlock frames.
func newResync(rate, channels, maxBlock int) resync {
	h := resync{rate: rate, channels: channels, minFrames: max(1, int(resyncHold.Seconds()*float64(rate))),
		maxFrames: max(1, int(resyncMax.Seconds()*float64(rate))),
		ats:       make([]time.Time, 0, resyncBlocks), ns: make([]int, 0, resyncBlocks)}
	h.buf = make([]float32, 0, (h.maxFrames+maxBlock)*channels)
	return h
}

// add holds a block of n frames (p: its samples) that arrived at `at`, and
// says whether the hold is done: resyncHold held and the last two blocks
// paced, or no room for another block of maxBlock frames.
func (h *resync) add(p []float32, n int, at time.Time, maxBlock int) (done bool) {
	if k := len(h.ats); k > 0 {
		dur := time.Duration(float64(n) / float64(h.rate) * float64(time.Second))
		if at.Sub(h.ats[k-1]) >= dur/2 {
			h.paced++
		} else {
			h.paced = 0
		}
	}
	h.buf = append(h.buf, p...)
	h.ats = append(h.ats, at)
	h.ns = append(h.ns, n)
	h.frames += n
	full := len(h.ns) == cap(h.ns) || cap(h.buf)-len(h.buf) < maxBlock*h.channels || h.frames >= h.maxFrames
	return full || h.frames >= h.minFrames && h.paced >= 2
}

// start estimates when the first held frame was captured: a block arrives
// no earlier than its last frame was captured, so the held frames start
// no later than any block's arrival less the frames up to its end; the
// earliest such bound is the estimate (the block that waited least: a
// paced one, not one of a backlog).
func (h *resync) start() time.Time {
	var est time.Time
	cum := 0
	for k, n := range h.ns {
		cum += n
		t := h.ats[k].Add(-time.Duration(float64(cum) / float64(h.rate) * float64(time.Second)))
		if k == 0 || t.Before(est) {
			est = t
		}
	}
	return est
}

func (h *resync) reset() {
	h.buf, h.ats, h.ns, h.frames, h.paced = h.buf[:0], h.ats[:0], h.ns[:0], 0, 0
}
