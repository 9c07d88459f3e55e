package ui

import (
	"sync"
	"time"

	"github.com/prismaudio/prism/app/live"
)

// applier hands settings to the engine from a goroutine of its own:
// Engine.Apply and UseEngine queue work for the analysis goroutine and
// block once its queue is full, which a burst of ]/[ presses (each
// rebuilding the FFT plans, seconds on some OpenCL compilers) reached,
// freezing the window. The window posts the newest settings here and
// carries on; the goroutine applies the newest it finds, skipping
// settings that were superseded while it waited. The views follow the
// analysis by each spectrum's own geometry, so they need not wait.
type applier struct {
	mu     sync.Mutex
	eng    Engine
	live   *live.Settings // newest not yet applied
	engine string         // newest engine choice not yet applied
	busy   bool
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

func newApplier(eng Engine) *applier {
	a := &applier{eng: eng, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go a.run()
	return a
}

// apply posts analysis settings.
func (a *applier) apply(l live.Settings) {
	a.mu.Lock()
	a.live = &l
	a.mu.Unlock()
	a.poke()
}

// useEngine posts an engine choice ("gpu" or "cpu").
func (a *applier) useEngine(name string) {
	a.mu.Lock()
	a.engine = name
	a.mu.Unlock()
	a.poke()
}

func (a *applier) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// idle says whether everything posted has been applied.
func (a *applier) idle() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.busy && a.live == nil && a.engine == ""
}

// close stops the goroutine: it applies nothing more once the settings
// it is handing over (if any) are taken, which close waits for up to two
// seconds (an engine that stopped taking commands must not hold the
// window open).
func (a *applier) close() {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	select {
	case <-a.done:
	case <-time.After(2 * time.Second):
	}
}

func (a *applier) run() {
	defer close(a.done)
	for {
		select {
		case <-a.wake:
		case <-a.stop:
			return
		}
		for {
			select {
			case <-a.stop:
				return
			default:
			}
			a.mu.Lock()
			live, engine := a.live, a.engine
			a.live, a.engine = nil, ""
			a.busy = live != nil || engine != ""
			a.mu.Unlock()
			if !a.busy {
				break
			}
			if engine != "" {
				a.eng.UseEngine(engine)
			}
			if live != nil {
				a.eng.Apply(*live)
			}
			a.mu.Lock()
			a.busy = false
			a.mu.Unlock()
		}
	}
}
