package applier

import (
	"sync"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/live"
)

// target records what it is handed; its first Apply blocks until release
// is closed (an engine rebuilding its plans).
type target struct {
	mu      sync.Mutex
	ffts    []int
	engines []string
	entered chan struct{}
	release chan struct{}
}

func (t *target) Apply(s live.Settings) {
	t.mu.Lock()
	first := len(t.ffts) == 0
	t.ffts = append(t.ffts, s.FFT)
	t.mu.Unlock()
	if first {
		close(t.entered)
		<-t.release
	}
}

func (t *target) UseEngine(name string) {
	t.mu.Lock()
	t.engines = append(t.engines, name)
	t.mu.Unlock()
}

// TestNewestWins: posting never waits for a blocked engine; what was
// posted while it was busy is applied once, the newest only (the
// settings in between are skipped), and Idle says when all is handed
// over.
func TestNewestWins(t *testing.T) {
	tg := &target{entered: make(chan struct{}), release: make(chan struct{})}
	a := New(tg)
	defer a.Close()
	s := live.DefaultSettings()
	s.FFT = 1024
	a.Apply(s)
	<-tg.entered // the engine is busy with 1024
	posted := time.Now()
	for _, n := range []int{2048, 4096, 8192} {
		s.FFT = n
		a.Apply(s)
	}
	a.UseEngine("gpu")
	a.UseEngine("cpu")
	if d := time.Since(posted); d > time.Second {
		t.Errorf("posting to a busy engine took %v", d)
	}
	if a.Idle() {
		t.Error("idle while the engine is busy and settings wait")
	}
	close(tg.release)
	deadline := time.Now().Add(10 * time.Second)
	for !a.Idle() {
		if time.Now().After(deadline) {
			t.Fatal("never idle")
		}
		time.Sleep(time.Millisecond)
	}
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if len(tg.ffts) != 2 || tg.ffts[0] != 1024 || tg.ffts[1] != 8192 || len(tg.engines) != 1 || tg.engines[0] != "cpu" {
		t.Errorf("applied FFTs %v and engines %v, want [1024 8192] and [cpu]", tg.ffts, tg.engines)
	}
}
