package ui

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader on two
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWatchdog: a tick that stops running is reported once per stall,
// with every goroutine's stack (this test's among them); ticks in time
// are not reported.
func TestWatchdog(t *testing.T) {
	var out lockedBuffer
	var d watchdog
	d.start(&out, 500*time.Millisecond)
	defer d.close()
	for range 20 { // ticking 50 times as often as needed: nothing to say
		time.Sleep(10 * time.Millisecond)
		d.ticked()
	}
	if s := out.String(); s != "" {
		t.Fatalf("reported while ticking: %q", s)
	}
	time.Sleep(1500 * time.Millisecond) // one stall, three times as long as allowed
	s := out.String()
	if strings.Count(s, "has not run for") != 1 || !strings.Contains(s, "TestWatchdog") {
		t.Errorf("one stall: %d reports, this test's stack %v", strings.Count(s, "has not run for"), strings.Contains(s, "TestWatchdog"))
	}
	d.ticked()
	time.Sleep(1500 * time.Millisecond) // a second stall
	if n := strings.Count(out.String(), "has not run for"); n != 2 {
		t.Errorf("two stalls: %d reports", n)
	}
}
