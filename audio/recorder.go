package audio

import (
	"fmt"
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
	RingFrames uint64 // frames written to the ring
	RingLost   uint64 // frames overwritten before the analysis read them
}

// aborter is a source whose blocked Read can be made to return from another
// goroutine. PortAudio streams are not: they are only ever closed by the
// goroutine that reads them.
type aborter interface{ Abort() }

type overflowCounter interface{ Overflows() uint64 }

// Recorder runs a Source into a Ring on a capture goroutine, the ring's
// only writer. A watchdog marks the source stalled when no data comes for
// max(200 ms, 4 block periods) and starts a new capture goroutine on a
// freshly opened source; the stuck one is abandoned: it may write nothing
// more and closes its own source whenever its Read returns (a PortAudio
// stream must not be closed under a blocked read). Read errors reopen the
// source the same way.
type Recorder struct {
	open     func() (Source, error)
	ring     *Ring
	rate     int
	channels int
	limit    time.Duration

	writeMu   sync.Mutex // held while writing the ring: one generation at a time
	gen       atomic.Uint64
	mu        sync.Mutex // guards name, lastErr, cur
	name      string
	lastErr   string
	cur       Source
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
	r.lastData.Store(time.Now().UnixNano())
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
	s.RingFrames, s.RingLost = r.ring.Written(), r.ring.Lost()
	return s
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
// watchdog, or after handing over to a reopened source.
func (r *Recorder) capture(src Source, g uint64) {
	defer r.running.Done()
	block := make([]float32, 4096*r.channels)
	for {
		n, at, err := src.Read(block)
		if r.stopped() || r.gen.Load() != g {
			r.retire(src)
			return
		}
		if err != nil {
			r.setErr(err)
			r.retire(src)
			r.restart(g)
			return
		}
		if n > 0 {
			r.writeMu.Lock()
			if r.gen.Load() == g { // not abandoned meanwhile
				r.ring.Write(block[:n*r.channels], at)
				r.lastData.Store(at.UnixNano())
				r.stalled.Store(false)
			}
			r.writeMu.Unlock()
		}
	}
}

// restart opens a new source (retrying every 500 ms until it works or the
// recorder stops) and runs a new capture generation on it, if generation g
// is still the current one.
func (r *Recorder) restart(g uint64) {
	for !r.stopped() {
		s, err := r.open()
		if err == nil && (s.SampleRate() != r.rate || s.Channels() != r.channels) {
			s.Close()
			err = fmt.Errorf("audio: reopened %s at %d Hz × %d channels, was %d × %d", s.Name(), s.SampleRate(), s.Channels(), r.rate, r.channels)
		}
		if err == nil {
			r.writeMu.Lock()
			if !r.gen.CompareAndSwap(g, g+1) || r.stopped() {
				r.writeMu.Unlock()
				s.Close()
				return
			}
			r.mu.Lock()
			r.cur, r.name = s, s.Name()
			r.mu.Unlock()
			r.reopens.Add(1)
			r.lastData.Store(time.Now().UnixNano())
			r.running.Add(1)
			go r.capture(s, g+1)
			r.writeMu.Unlock()
			return
		}
		r.setErr(err)
		select {
		case <-r.stop:
		case <-time.After(500 * time.Millisecond):
		}
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
			if now.Sub(time.Unix(0, r.lastData.Load())) < r.limit || r.stalled.Load() {
				continue
			}
			r.stalled.Store(true)
			r.stalls.Add(1)
			r.setErr(fmt.Errorf("audio: no data for %v: reopening", r.limit))
			// abandon the stuck generation (its Read may never return) and
			// start another on a fresh source
			g := r.gen.Load()
			r.mu.Lock()
			stuck := r.cur
			r.mu.Unlock()
			if a, ok := stuck.(aborter); ok {
				a.Abort()
			}
			go func() {
				r.restart(g)
			}()
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
