package session

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/tfr"
)

// modeState is the analysis mode running beside the live analysis
// (package tfrlive): while one runs, the spectra, columns, frame count and
// statistics the window reads are its own.
type modeState struct {
	cur  atomic.Pointer[modeRun] // nil: the live analysis's own STFT
	want *tfrlive.Settings       // what is to run (nil: none), under Session.mu
	err  atomic.Pointer[string]  // why the last mode asked for did not start (nil: it did)

	mu      sync.Mutex // the requests:
	next    *tfrlive.Settings
	pending bool // next holds a request
	busy    bool // a goroutine is applying requests
}

// modeRun is one Runner on its goroutine.
type modeRun struct {
	r    *tfrlive.Runner
	cpu  bool // it runs on the CPU engine (followEngine)
	stop chan struct{}
	done chan struct{}
}

// SetMode asks for the analysis mode s.TFR describes (its Mode other than
// tfr.STFT) to run beside the live analysis, on the engine the live
// analysis uses, its results shown in Latest, Columns, Frames and
// ReadStats; tfr.STFT stops it. It does not block: a goroutine of the
// session's makes the transform (kernels compiled, tables built), taking
// the newest request when several came meanwhile, and a mode that fails
// to start says why in the statistics' Status (ReadStats) until the next
// request. A source switch restarts the mode for the new source, and so
// does a switch of the live analysis's engine (followEngine).
func (m *Session) SetMode(s tfrlive.Settings) {
	ms := &m.mode
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.next, ms.pending = &s, true
	if ms.busy {
		return
	}
	ms.busy = true
	go func() {
		for {
			ms.mu.Lock()
			next, ok := ms.next, ms.pending
			ms.next, ms.pending = nil, false
			if !ok {
				ms.busy = false
				ms.mu.Unlock()
				return
			}
			ms.mu.Unlock()
			ms.err.Store(nil)
			if err := m.SetModeWait(*next); err != nil {
				msg := "analysis mode " + next.TFR.Mode.String() + ": " + err.Error()
				ms.err.Store(&msg)
			}
		}
	}()
}

// SetModeWait is SetMode that returns once the mode runs (or has
// stopped), or with the reason it could not start (the STFT is then
// shown).
func (m *Session) SetModeWait(s tfrlive.Settings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("monitor closed")
	}
	m.mode.want = nil
	if s.TFR.Mode != tfr.STFT {
		m.mode.want = &s
	}
	return m.restartModeLocked()
}

// restartModeLocked stops the mode running and starts the one wanted on
// the current source.
func (m *Session) restartModeLocked() error {
	m.stopModeLocked()
	if m.mode.want == nil {
		return nil
	}
	e, cpu := m.engines.Preferred, m.onCPU()
	if cpu {
		e = m.engines.CPU
	}
	r, err := tfrlive.New(m.rec, e, *m.mode.want)
	if err != nil {
		m.mode.want = nil
		return err
	}
	run := &modeRun{r: r, cpu: cpu, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(run.done)
		r.Run(run.stop)
		r.Close()
	}()
	m.live.SetTeeAt(live.TeeMode, r.In())
	m.mode.cur.Store(run)
	go m.followEngine(run)
	return nil
}

// stopModeLocked stops the mode running, if one is.
func (m *Session) stopModeLocked() {
	run := m.mode.cur.Swap(nil)
	if run == nil {
		return
	}
	m.live.SetTeeAt(live.TeeMode, nil)
	close(run.stop)
	<-run.done
}

// ModeFreqs is the running mode's bins' centre frequencies in Hz (nil:
// no mode runs, the live analysis's bins are uniform). Shared: never to
// be written.
func (m *Session) ModeFreqs() []float64 {
	if run := m.mode.cur.Load(); run != nil {
		return run.r.Freqs()
	}
	return nil
}
