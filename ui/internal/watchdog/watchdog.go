// Package watchdog reports a window whose per-frame tick stopped running,
// with every goroutine's stack, so a stall says where the Fyne goroutine
// was. It knows nothing of the window but its ticks.
package watchdog

import (
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"time"
)

// StallAfter is how long the window's tick may not run before the
// watchdog reports it: the key stress fails at 5 s without a drawn second.
const StallAfter = 3 * time.Second

// Watchdog reports a window whose tick stopped running: with a trace set
// (PRISM_UI_TRACE, the desktop tests) a goroutine of its own checks twice
// a second that Pull ran, and once per stall writes every goroutine's
// stack to out, so a stall that a stress test meets says where the Fyne
// goroutine was (a stall of 5 s under the key stress at 2^20 points once
// left nothing to go on).
type Watchdog struct {
	tick atomic.Int64 // time of the last tick, Unix ns
	stop chan struct{}
}

// Start begins watching for ticks more than `after` apart; Ticked records
// each tick; Close ends it.
func (d *Watchdog) Start(out io.Writer, after time.Duration) {
	d.Ticked()
	d.stop = make(chan struct{})
	go d.run(out, after, d.stop)
}

// Ticked records a tick.
func (d *Watchdog) Ticked() { d.tick.Store(time.Now().UnixNano()) }

// Close ends the watching; twice is harmless.
func (d *Watchdog) Close() {
	if d.stop != nil {
		close(d.stop)
		d.stop = nil
	}
}

func (d *Watchdog) run(out io.Writer, after time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(after / 6)
	defer t.Stop()
	reported := int64(0) // the tick a report was written for
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			last := d.tick.Load()
			if late := now.Sub(time.Unix(0, last)); late > after && last != reported {
				reported = last
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				fmt.Fprintf(out, "prism: the window's tick has not run for %.1f s; every goroutine:\n%s\n", late.Seconds(), buf)
			}
		}
	}
}
