package audio

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// RecorderStats are the capture side's counters, readable at any time.
type RecorderStats struct {
	Source     string // the source's name
	Overflows  uint64 // buffers the device dropped (PortAudio input overflow)
	Stalls     uint64 // times no data came for the watchdog's limit
	Reopens    uint64 // successful reopenings after a stall or error
	Stalled    bool   // no data right now
	LastError  string // the last read or reopen error, "" if none
	RingFrames uint64 // frames written to the ring, gaps included
	RingLost   uint64 // frames the analysis skipped: overwritten before it read them, or gaps
	RingGaps   uint64 // the part of RingLost that was outage gaps
	// Outages counts the gaps a reopening left in the stream, and
	// OutageFrames the frames of time they lasted (written to the ring as
	// gaps, so the timeline keeps real time).
	Outages      uint64
	OutageFrames uint64
	// OverflowFrames is the input the device dropped (PortAudio input
	// overflows), measured on the blocks' arrival times and written to the
	// ring as gaps too.
	OverflowFrames uint64
	// Since is when the last data arrived, while Stalled or reopening
	// (zero while data flows).
	Since time.Time
}

// Outage is a gap in the stream: Frames of time with no input, starting
// at stream position At (frames since the recorder started).
type Outage struct {
	At, Frames uint64
}

// firstDataLimit is how long a freshly opened source may take to deliver
// its first block before the watchdog reopens it. Through ALSA's pulse
// plugin, the first capture stream after PulseAudio (re)starts took 1.4 s
// here; later ones about 0.2 s.
const firstDataLimit = 3 * time.Second

// maxOutages is how many outages a Recorder lists (it counts them all).
const maxOutages = 1000

// aborter is a source whose blocked Read can be made to return from another
// goroutine. PortAudio streams are not: they are only ever closed by the
// goroutine that reads them.
type aborter interface{ Abort() }

type overflowCounter interface{ Overflows() uint64 }

// selfPaced is a source whose data this process makes (the signal
// generator). It cannot stall for real: it is late only when the capture
// goroutine is starved of CPU, and then it catches up by itself with every
// sample in its place, whereas reopening it would turn a busy machine into
// false outages (gaps in a signal that never stopped). The watchdog gives
// it firstDataLimit, enough for any starvation but a hang.
type selfPaced interface{ selfPaced() }

// Recorder runs a Source into a Ring on a capture goroutine, the ring's
// only writer. A watchdog marks the source stalled when no data comes for
// max(200 ms, 4 block periods) (firstDataLimit from a freshly opened
// source: PulseAudio's first buffer can take over a second) and starts a
// new capture goroutine on a
// freshly opened source; the stuck one is abandoned: it may write nothing
// more and closes its own source whenever its Read returns (a PortAudio
// stream must not be closed under a blocked read). Read errors reopen the
// source the same way. Reopening retries with backoff (100 ms doubling to
// 1 s) until it works or the recorder stops.
//
// The time between the end of the stream before an outage and the start
// of the stream after it (both estimated on the blocks' arrival times) is
// written to the ring as a gap (Ring.WriteGap), so stream positions keep
// real time: a 5-s outage is 5 s of stream the analysis skips and counts.
// Input the device dropped (an input overflow) is measured and written the
// same way. Gaps shorter than the arrival jitter (10 ms or two blocks) are
// not measurable and not written.
type Recorder struct {
	open     func() (Source, error)
	ring     *Ring
	rate     int
	channels int
	limit    time.Duration
	fresh    atomic.Bool // the current source has delivered nothing yet

	writeMu   sync.Mutex // held while writing the ring: one generation at a time
	gen       atomic.Uint64
	endAt     time.Time  // when the last frame written was captured, estimated (writeMu)
	mu        sync.Mutex // guards name, lastErr, cur, outages, since
	name      string
	lastErr   string
	cur       Source
	outages   []Outage
	outageN   uint64
	outageF   uint64
	overflowF uint64
	since     time.Time    // when data stopped (zero while it flows)
	lastData  atomic.Int64 // UnixNano of the last block
	stalls    atomic.Uint64
	reopens   atomic.Uint64
	overflows atomic.Uint64 // from retired sources; the live one is added in Stats
	stalled   atomic.Bool
	stop      chan struct{}
	stopOnce  sync.Once
	running   sync.WaitGroup // the current capture goroutine and the watchdog
}

// StartRecorder opens the first source and starts capturing into a ring of
// ringSeconds (at least 2 s). open is called again to reopen after a stall
// or an error; it must return the same rate and channel count.
func StartRecorder(open func() (Source, error), ringSeconds float64) (*Recorder, error) {
	src, err := open()
	if err != nil {
		return nil, err
	}
	rate, ch := src.SampleRate(), src.Channels()
	r := &Recorder{open: open, rate: rate, channels: ch, name: src.Name(), cur: src, stop: make(chan struct{}),
		ring: NewRing(int(max(2, ringSeconds)*float64(rate)), ch)}
	r.limit = max(200*time.Millisecond, 4*time.Duration(float64(time.Second)*4096/float64(rate)))
	if _, ok := src.(selfPaced); ok {
		r.limit = max(r.limit, firstDataLimit)
	}
	r.lastData.Store(time.Now().UnixNano())
	r.fresh.Store(true)
	r.running.Add(2)
	go r.capture(src, r.gen.Load())
	go r.watchdog()
	return r, nil
}

// Ring is where the captured frames go. Only the analysis goroutine reads it.
func (r *Recorder) Ring() *Ring { return r.ring }

// SampleRate and Channels of the stream.
func (r *Recorder) SampleRate() int { return r.rate }
func (r *Recorder) Channels() int   { return r.channels }

// Stats returns the counters.
func (r *Recorder) Stats() RecorderStats {
	r.mu.Lock()
	s := RecorderStats{Source: r.name, LastError: r.lastErr}
	ov := r.overflows.Load()
	if oc, ok := r.cur.(overflowCounter); ok {
		ov += oc.Overflows()
	}
	r.mu.Unlock()
	s.Overflows, s.Stalls, s.Reopens, s.Stalled = ov, r.stalls.Load(), r.reopens.Load(), r.stalled.Load()
	s.RingGaps = r.ring.Gaps() // before Lost: the reader adds to Lost first
	s.RingFrames, s.RingLost = r.ring.Written(), r.ring.Lost()
	r.mu.Lock()
	s.Outages, s.OutageFrames, s.OverflowFrames, s.Since = r.outageN, r.outageF, r.overflowF, r.since
	r.mu.Unlock()
	return s
}

// Outages lists the gaps reopenings left in the stream, oldest first (the
// first maxOutages of them).
func (r *Recorder) Outages() []Outage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Outage(nil), r.outages...)
}

// gap writes frames of lost time to the ring, counted as kind. Callers
// hold writeMu.
func (r *Recorder) gap(frames uint64, kind gapKind) {
	r.mu.Lock()
	if kind == gapOverflow {
		r.overflowF += frames
	} else {
		if len(r.outages) < maxOutages {
			r.outages = append(r.outages, Outage{At: r.ring.Written(), Frames: frames})
		}
		r.outageN++
		r.outageF += frames
	}
	r.mu.Unlock()
	r.ring.WriteGap(frames)
}

// dataStopped notes that data stopped arriving (a read error or a stall):
// the recorder is stalled until data comes again, so the watchdog leaves
// the reopening under way alone.
func (r *Recorder) dataStopped() {
	r.stalled.Store(true)
	r.mu.Lock()
	if r.since.IsZero() {
		r.since = time.Unix(0, r.lastData.Load())
	}
	r.mu.Unlock()
}

// write puts a block of n frames that arrived at `at` into the ring.
// Callers hold writeMu.
//
// A block arrives some time after its last frame was captured, later when
// the capture goroutine was not scheduled at once; so the end of the
// stream so far is estimated as the earliest arrival any recent block
// allows: each block moves the estimate on by its frames (plus 0.1 %, so
// it follows a device clock slower than the system's), or back to its own
// arrival if that is earlier.
func (r *Recorder) write(block []float32, n int, at time.Time) {
	dur := time.Duration(float64(n) / float64(r.rate) * float64(time.Second))
	if r.endAt.IsZero() {
		r.endAt = at
	} else {
		r.endAt = r.endAt.Add(dur + dur/1000)
		if at.Before(r.endAt) {
			r.endAt = at
		}
	}
	r.ring.Write(block[:n*r.channels], at)
	r.lastData.Store(at.UnixNano())
	r.stalled.Store(false)
	r.fresh.Store(false)
	r.mu.Lock()
	r.since = time.Time{}
	r.mu.Unlock()
}

// resume writes the blocks held after a discontinuity: first the gap
// between the end of the stream before it and where the held blocks
// start in real time (if it is measurable), then the blocks. kind says
// what the gap was (outage or overflow). Callers hold writeMu.
func (r *Recorder) resume(h *resync, kind gapKind) {
	start := h.start()
	if !r.endAt.IsZero() {
		lost := start.Sub(r.endAt).Seconds() * float64(r.rate)
		if tol := max(0.010*float64(r.rate), 2*float64(h.frames)/float64(len(h.ns))); lost >= tol {
			r.gap(uint64(math.Round(lost)), kind)
		}
	}
	r.endAt = start
	off := 0
	for k, n := range h.ns {
		r.write(h.buf[off:], n, h.ats[k])
		off += n * r.channels
	}
}

// abandon ends generation g if it is still the current one: from now on
// its capture goroutine writes nothing (whatever its Read still returns,
// a backlog of unknown capture time included, is dropped and becomes part
// of the gap) and closes its source when that Read returns. It returns
// the next generation, which restart runs, and whether g was current.
func (r *Recorder) abandon(g uint64) (next uint64, ok bool) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	return g + 1, r.gen.CompareAndSwap(g, g+1)
}

// restart opens a new source (retrying with backoff until it works, the
// recorder stops or generation g is abandoned too) and runs generation g
// on it.
func (r *Recorder) restart(g uint64) {
	wait := 100 * time.Millisecond
	for !r.stopped() && r.gen.Load() == g {
		s, err := r.open()
		if err == nil && (s.SampleRate() != r.rate || s.Channels() != r.channels) {
			s.Close()
			err = fmt.Errorf("audio: reopened %s at %d Hz × %d channels, was %d × %d", s.Name(), s.SampleRate(), s.Channels(), r.rate, r.channels)
		}
		if err == nil {
			r.writeMu.Lock()
			if r.gen.Load() != g || r.stopped() {
				r.writeMu.Unlock()
				s.Close()
				return
			}
			r.mu.Lock()
			r.cur, r.name = s, s.Name()
			r.mu.Unlock()
			r.reopens.Add(1)
			// the watchdog watches the new source afresh: if it delivers
			// nothing either, that is another stall and another reopening
			r.lastData.Store(time.Now().UnixNano())
			r.stalled.Store(false)
			r.fresh.Store(true)
			r.running.Add(1)
			go r.capture(s, g)
			r.writeMu.Unlock()
			return
		}
		r.setErr(err)
		select {
		case <-r.stop:
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

func (r *Recorder) watchdog() {
	defer r.running.Done()
	t := time.NewTicker(r.limit / 4)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case now := <-t.C:
			limit := r.limit
			if r.fresh.Load() {
				limit = max(limit, firstDataLimit)
			}
			if now.Sub(time.Unix(0, r.lastData.Load())) < limit || r.stalled.Load() {
				continue
			}
			r.stalled.Store(true)
			r.stalls.Add(1)
			r.dataStopped()
			r.setErr(fmt.Errorf("audio: no data for %v: reopening", limit))
			// abandon the stuck generation (its Read may never return, and
			// what it returns after the stall came at an unknown time) and
			// start another on a fresh source
			next, ok := r.abandon(r.gen.Load())
			r.mu.Lock()
			stuck := r.cur
			r.mu.Unlock()
			if a, ok := stuck.(aborter); ok {
				a.Abort()
			}
			if ok {
				go r.restart(next)
			}
		}
	}
}

// Stop ends capture. The current source is closed by its goroutine; Stop
// waits for that up to a second (a stalled device may never return from a
// read: its goroutine is then left to finish on its own). Calling Stop
// twice is harmless.
func (r *Recorder) Stop() {
	r.stopOnce.Do(func() {
		close(r.stop)
		r.mu.Lock()
		if a, ok := r.cur.(aborter); ok {
			a.Abort()
		}
		r.mu.Unlock()
		done := make(chan struct{})
		go func() { r.running.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	})
}

func (r *Recorder) setErr(err error) {
	r.mu.Lock()
	r.lastErr = err.Error()
	r.mu.Unlock()
}

func (r *Recorder) stopped() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

// retire closes a source its own goroutine is done with.
func (r *Recorder) retire(src Source) {
	if oc, ok := src.(overflowCounter); ok {
		r.overflows.Add(oc.Overflows())
	}
	src.Close()
}

// capture is generation g's loop. It ends when stopped, abandoned by the
// watchdog, or after handing over to a reopened source. The first blocks
// of a reopened source, those after an input overflow and those after a
// pause (late) are held for resyncHold before they are written (resume),
// so that the gap before them is measured on several blocks' arrivals,
// not one.
func (r *Recorder) capture(src Source, g uint64) {
	defer r.running.Done()
	const maxBlock = 4096
	block := make([]float32, maxBlock*r.channels)
	hold := newResync(r.rate, r.channels, maxBlock)
	kind := gapOutage
	if g == 0 {
		kind = gapNone // the first source: nothing before it
	}
	var ov uint64
	oc, counts := src.(overflowCounter)
	if counts {
		ov = oc.Overflows()
	}
	for {
		n, at, err := src.Read(block)
		if r.stopped() || r.gen.Load() != g {
			r.retire(src)
			return
		}
		if err != nil {
			r.setErr(err)
			r.dataStopped()
			r.retire(src)
			if next, ok := r.abandon(g); ok {
				r.restart(next)
			}
			return
		}
		if n == 0 {
			continue
		}
		if counts && oc.Overflows() != ov { // input was lost before this block
			ov = oc.Overflows()
			if hold.frames > 0 {
				r.resumeIf(g, &hold, kind)
			}
			kind = gapOverflow
		}
		if kind == gapNone {
			r.writeMu.Lock()
			if r.gen.Load() == g { // not abandoned meanwhile
				if r.late(n, at) { // the stream paused: was input lost?
					kind = gapOutage
				} else {
					r.write(block, n, at)
				}
			}
			r.writeMu.Unlock()
			if kind == gapNone {
				continue
			}
		}
		if hold.add(block[:n*r.channels], n, at, maxBlock) {
			r.resumeIf(g, &hold, kind)
			kind = gapNone
		}
	}
}

// late says a block of n frames that arrived at `at` came more than
// max(50 ms, 4 blocks) after its frames' time would have it: the stream
// paused (a stalled server, a reader held up), with or without losing
// input; the blocks from it on are held and the gap measured. Callers
// hold writeMu.
func (r *Recorder) late(n int, at time.Time) bool {
	if r.endAt.IsZero() {
		return false
	}
	dur := time.Duration(float64(n) / float64(r.rate) * float64(time.Second))
	return at.Sub(r.endAt)-dur > max(resyncHold, 4*dur)
}

// resumeIf resumes with the held blocks if generation g is still the
// current one, and empties the hold.
func (r *Recorder) resumeIf(g uint64, h *resync, kind gapKind) {
	r.writeMu.Lock()
	if r.gen.Load() == g {
		r.resume(h, kind)
	}
	r.writeMu.Unlock()
	h.reset()
}
