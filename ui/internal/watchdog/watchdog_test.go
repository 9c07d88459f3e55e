package watchdog

import (
	"strings"
	"testing"
	"time"
)

// reports is a writer that hands each write to the test.
type reports chan string

func (r reports) Write(p []byte) (int, error) {
	r <- string(p)
	return len(p), nil
}

// TestWatchdog: a tick that stops running is reported once per stall,
// with every goroutine's stack (this test's among them); ticks in time
// are not reported.
func TestWatchdog(t *testing.T) {
	out := make(reports, 10)
	var d Watchdog
	d.Start(out, 500*time.Millisecond)
	defer d.Close()
	for range 20 { // ticking 50 times as often as needed: nothing to say
		time.Sleep(10 * time.Millisecond)
		d.Ticked()
	}
	if len(out) != 0 {
		t.Fatalf("reported while ticking: %q", <-out)
	}
	time.Sleep(1500 * time.Millisecond) // one stall, three times as long as allowed
	if n := len(out); n != 1 {
		t.Fatalf("one stall: %d reports", n)
	}
	if s := <-out; !strings.Contains(s, "has not run for") || !strings.Contains(s, "TestWatchdog") {
		t.Errorf("the report does not give this test's stack:\n%.300s", s)
	}
	d.Ticked()
	time.Sleep(1500 * time.Millisecond) // a second stall
	if n := len(out); n != 1 {
		t.Errorf("a second stall: %d reports", n)
	}
}
