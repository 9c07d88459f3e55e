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

// Recorder runs a Source into a Ring on its own goroutine (the capture
// goroutine: it owns the block buffer and is the ring's only writer). A
// watchdog marks the source stalled when no data comes for max(200 ms, 4
// block periods), closes it (which makes a blocked Read return) and the
// capture goroutine reopens it with open, as it does after a read error.
type Recorder struct {
	open     func() (Source, error)
	ring     *Ring
	rate     int
	channels int
	name     string
	limit    time.Duration

	mu        sync.Mutex // guards src, lastErr
	src       Source
	lastErr   string
	lastData  atomic.Int64 // UnixNano of the last block
	stalls    atomic.Uint64
	reopens   atomic.Uint64
	overflows atomic.Uint64 // from closed sources; live ones are added in Stats
	stalled   atomic.Bool
	stop      chan struct{}
	done      sync.WaitGroup
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
	r := &Recorder{open: open, rate: rate, channels: ch, name: src.Name(), src: src, stop: make(chan struct{}),
		ring: NewRing(int(max(2, ringSeconds)*float64(rate)), ch)}
	// a block is at most 5 ms from the generator or a capture; allow for
	// larger ones from other sources
	r.limit = max(200*time.Millisecond, 4*time.Duration(float64(time.Second)*4096/float64(rate)))
	r.lastData.Store(time.Now().UnixNano())
	r.done.Add(2)
	go r.capture(src)
	go r.watchdog()
	return r, nil
}

// Ring is where the captured frames go. Only the analysis goroutine reads it.
func (r *Recorder) Ring() *Ring { return r.ring }

// SampleRate and Channels of the stream.
func (r *Recorder) SampleRate() int { return r.rate }
func (r *Recorder) Channels() int   { return r.channels }

type overflowCounter interface{ Overflows() uint64 }

// Stats returns the counters.
func (r *Recorder) Stats() RecorderStats {
	r.mu.Lock()
	s := RecorderStats{Source: r.name, LastError: r.lastErr}
	ov := r.overflows.Load()
	if oc, ok := r.src.(overflowCounter); ok && r.src != nil {
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

func (r *Recorder) capture(src Source) {
	defer r.done.Done()
	block := make([]float32, 4096*r.channels)
	for {
		select {
		case <-r.stop:
			return
		default:
		}
		n, at, err := src.Read(block)
		if err != nil {
			src = r.reopen(src, err)
			if src == nil {
				return
			}
			continue
		}
		if n > 0 {
			r.ring.Write(block[:n*r.channels], at)
			r.lastData.Store(at.UnixNano())
			r.stalled.Store(false)
		}
	}
}

// reopen closes src and opens a new source, retrying every 500 ms until it
// works or the recorder stops (nil).
func (r *Recorder) reopen(src Source, cause error) Source {
	r.setErr(cause)
	r.mu.Lock()
	if oc, ok := src.(overflowCounter); ok {
		r.overflows.Add(oc.Overflows())
	}
	r.src = nil
	r.mu.Unlock()
	src.Close()
	for {
		select {
		case <-r.stop:
			return nil
		default:
		}
		s, err := r.open()
		if err == nil && (s.SampleRate() != r.rate || s.Channels() != r.channels) {
			s.Close()
			err = fmt.Errorf("audio: reopened %s at %d Hz × %d channels, was %d × %d", s.Name(), s.SampleRate(), s.Channels(), r.rate, r.channels)
		}
		if err == nil {
			r.mu.Lock()
			r.src, r.name = s, s.Name()
			r.mu.Unlock()
			r.reopens.Add(1)
			r.lastData.Store(time.Now().UnixNano())
			return s
		}
		r.setErr(err)
		select {
		case <-r.stop:
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (r *Recorder) watchdog() {
	defer r.done.Done()
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
			r.mu.Lock()
			src := r.src
			r.mu.Unlock()
			if src != nil {
				src.Close() // a blocked Read returns; capture reopens
			}
		}
	}
}

// Stop ends capture and closes the source. Calling it twice is harmless.
func (r *Recorder) Stop() {
	select {
	case <-r.stop:
		return
	default:
	}
	close(r.stop)
	r.mu.Lock()
	if r.src != nil {
		r.src.Close()
	}
	r.mu.Unlock()
	r.done.Wait()
}
