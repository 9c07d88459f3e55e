// Package applier hands the window's settings to the analysis from a
// goroutine of its own (Applier), so the Fyne goroutine never waits for
// an engine that is rebuilding its plans. It knows the analysis only as
// the two calls of Target; it knows nothing of widgets or settings'
// names.
package applier

import (
	"sync"
	"time"

	"github.com/prismaudio/prism/app/live"
)

// Applier hands settings to the engine from a goroutine of its own:
// Engine.Apply and UseEngine queue work for the analysis goroutine and
// block once its queue is full, which a burst of ]/[ presses (each
// rebuilding the FFT plans, seconds on some OpenCL compilers) reached,
// freezing the window. The window posts the newest settings here and
// carries on; the goroutine applies the newest it finds, skipping
// settings that were superseded while it waited. The views follow the
// analysis by each spectrum's own geometry, so they need not wait.
type Applier struct {
	mu     sync.Mutex
	eng    Target
	live   *live.Settings // newest not yet applied
	engine string         // newest engine choice not yet applied
	busy   bool
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

// Target is what the applier calls on the analysis (ui.Engine's): both
// may block while the analysis's command queue is full.
type Target interface {
	Apply(s live.Settings)
	UseEngine(name string) // "gpu" or "cpu"
}

// New starts the applier's goroutine, which Close stops.
func New(eng Target) *Applier {
	a := &Applier{eng: eng, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go a.run()
	return a
}

// Apply posts analysis settings.
func (a *Applier) Apply(l live.Settings) {
	a.mu.Lock()
	a.live = &l
	a.mu.Unlock()
	a.poke()
}

// UseEngine posts an engine choice ("gpu" or "cpu").
func (a *Applier) UseEngine(name string) {
	a.mu.Lock()
	a.engine = name
	a.mu.Unlock()
	a.poke()
}

func (a *Applier) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Idle says whether everything posted has been applied.
func (a *Applier) Idle() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.busy && a.live == nil && a.engine == ""
}

// Close stops the goroutine: it applies nothing more once the settings
// it is handing over (if any) are taken, which Close waits for up to two
// seconds (an engine that stopped taking commands must not hold the
// window open).
func (a *Applier) Close() {
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

func (a *Applier) run() {
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
