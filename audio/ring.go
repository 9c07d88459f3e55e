package audio

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// Ring carries interleaved frames from the capture goroutine (the only
// writer) to the analysis goroutine (the only reader) without locks. The
// writer never blocks: when the reader falls behind by more than the ring
// holds, the oldest unread frames are overwritten, and the reader counts
// exactly how many it lost.
//
// Each sample is stored with an atomic 32-bit store, so a read that races an
// overwrite is a detected event (the write position is checked again after
// copying), never a data race. On amd64 the stores cost a few ns a sample:
// about 0.2 % of a core at 48 kHz stereo.
//
// Alongside the samples the ring keeps the arrival time of each written
// block, so the reader can tell how old a frame's newest sample is.
type Ring struct {
	channels int
	mask     uint64 // capacity in frames − 1
	buf      []atomic.Uint32
	w        atomic.Uint64 // frames written, ever (writer)
	reserve  atomic.Uint64 // end of the write in progress (writer): set before its samples
	r        uint64        // frames consumed, ever (reader)
	lost     atomic.Uint64 // frames overwritten before they were read (reader)

	marks    []blockMark // arrival times, a ring of its own
	markMask uint64
	markW    atomic.Uint64
}

type blockMark struct {
	end atomic.Uint64 // write position after the block
	ns  atomic.Int64  // arrival time, UnixNano
}

// NewRing makes a ring of at least capacity frames of channels samples
// (rounded up to a power of two).
func NewRing(capacity, channels int) *Ring {
	if capacity < 1 || channels < 1 {
		panic(fmt.Sprintf("audio: NewRing(%d, %d)", capacity, channels))
	}
	c := 1
	for c < capacity {
		c *= 2
	}
	const marks = 4096
	return &Ring{channels: channels, mask: uint64(c - 1), buf: make([]atomic.Uint32, c*channels),
		marks: make([]blockMark, marks), markMask: marks - 1}
}

// Capacity is the number of frames the ring holds.
func (r *Ring) Capacity() int { return int(r.mask + 1) }

// Channels is the number of samples per frame.
func (r *Ring) Channels() int { return r.channels }

// Write appends whole frames (len(p) a multiple of Channels) that arrived
// at t. It never blocks and never allocates. Only one goroutine may write.
func (r *Ring) Write(p []float32, t time.Time) {
	ch := r.channels
	frames := len(p) / ch
	if frames*ch != len(p) {
		panic(fmt.Sprintf("audio: Ring.Write of %d samples, not whole frames of %d", len(p), ch))
	}
	w := r.w.Load()
	if over := frames - r.Capacity(); over > 0 {
		// only the newest fit; the skipped frames count as written, and the
		// reader counts them lost when it sees w jump
		p = p[over*ch:]
		frames -= over
		w += uint64(over)
	}
	end := w + uint64(frames)
	r.reserve.Store(end) // announce the overwrite before doing it
	for i := range frames {
		base := int((w+uint64(i))&r.mask) * ch
		for c := range ch {
			r.buf[base+c].Store(math.Float32bits(p[i*ch+c]))
		}
	}
	r.w.Store(end)
	m := &r.marks[r.markW.Load()&r.markMask]
	m.end.Store(end)
	m.ns.Store(t.UnixNano())
	r.markW.Add(1)
}

// Written is the number of frames ever written.
func (r *Ring) Written() uint64 { return r.w.Load() }

// Available is the number of unread frames (at most Capacity).
func (r *Ring) Available() int {
	return int(min(r.w.Load()-r.r, r.mask+1))
}

// Lost is the number of frames overwritten before they were read.
func (r *Ring) Lost() uint64 { return r.lost.Load() }

// Position is the stream position of the next frame Read returns: frames
// consumed plus frames lost.
func (r *Ring) Position() uint64 { return r.r }

// Read copies up to len(dst)/Channels of the oldest unread frames into dst
// and returns how many. Frames the writer overwrote first (before or while
// they were copied) are skipped and counted in Lost; the frames returned
// are always consecutive from Position() − n. Only one goroutine may read.
func (r *Ring) Read(dst []float32) int {
	ch := r.channels
	capF := r.mask + 1
	w := r.w.Load()
	if w-r.r > capF {
		r.skip(w - r.r - capF)
	}
	n := min(uint64(len(dst)/ch), w-r.r)
	for i := range n {
		base := int((r.r+i)&r.mask) * ch
		for c := range ch {
			dst[int(i)*ch+c] = math.Float32frombits(r.buf[base+c].Load())
		}
	}
	// Anything below reserve − capacity may have been overwritten while
	// copying (the writer announces a write before its first store).
	if w2 := r.reserve.Load(); w2 > capF && w2-capF > r.r {
		bad := min(n, w2-capF-r.r)
		copy(dst, dst[int(bad)*ch:int(n)*ch])
		n -= bad
		r.skip(bad)
	}
	r.r += n
	return int(n)
}

// Drain discards every unread frame but the newest keep, without counting
// them as lost (a reader starting fresh on purpose). Reader only.
func (r *Ring) Drain(keep int) {
	w := r.w.Load()
	if w > r.r+uint64(keep) {
		r.r = w - uint64(keep)
	}
}

func (r *Ring) skip(frames uint64) {
	r.r += frames
	r.lost.Add(frames)
}

// ArrivalOf returns when the frame at stream position pos arrived: the
// time of the block that contained it, if the ring still remembers it.
func (r *Ring) ArrivalOf(pos uint64) (time.Time, bool) {
	top := r.markW.Load()
	n := min(top, r.markMask+1)
	// newest first: the block containing pos is the oldest mark whose end
	// is past pos
	var found int64
	ok := false
	for i := uint64(1); i <= n; i++ {
		m := &r.marks[(top-i)&r.markMask]
		end := m.end.Load()
		if end <= pos {
			break
		}
		found, ok = m.ns.Load(), true
	}
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, found), true
}
