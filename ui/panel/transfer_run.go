package panel

import "sync"

// runner runs functions on a goroutine of its own, one at a time, in the
// order given: the transfer analyzer's start, stop and Find, which block
// (a plan is made, a source switches) and must not reorder.
type runner struct {
	ch   chan func()
	done chan struct{}
	once sync.Once
}

func newRunner() *runner {
	r := &runner{ch: make(chan func(), 64), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for f := range r.ch {
			f()
		}
	}()
	return r
}

// run queues f. It blocks while 64 are waiting.
func (r *runner) run(f func()) { r.ch <- f }

// close runs what is queued and ends the goroutine. Calling it twice is
// harmless.
func (r *runner) close() {
	r.once.Do(func() { close(r.ch) })
	<-r.done
}

// TransferKey is one of the Transfer tab's keys: the letter (either
// case), how the keys overlay names it, what it does, and the action.
type TransferKey struct {
	Rune rune
	Key  string
	Help string
	Do   func(p *Transfer)
}

// TransferKeys are the Transfer tab's keys, a table for the keys overlay
// to list under "Transfer". While the tab is shown they take their
// letters from the window's keys; elsewhere those keep theirs.
var TransferKeys = []TransferKey{
	{'f', "F", "find the delay once", (*Transfer).Find},
	{'t', "T", "track the delay on / off", (*Transfer).ToggleTrack},
	{'u', "U", "phase wrapped / unwrapped, delay taken out", (*Transfer).ToggleUnwrap},
	{'y', "Y", "group delay on / off", (*Transfer).ToggleGroupDelay},
	{'i', "I", "impulse response and ETC on / off", (*Transfer).ToggleImpulse},
	{'s', "S", "store the transfer function shown as a reference", (*Transfer).Store},
}

// Key runs the action of key r (either case) and says whether r is one.
func (p *Transfer) Key(r rune) bool {
	if r >= 'A' && r <= 'Z' {
		r += 'a' - 'A'
	}
	for _, k := range TransferKeys {
		if k.Rune == r {
			k.Do(p)
			return true
		}
	}
	return false
}
