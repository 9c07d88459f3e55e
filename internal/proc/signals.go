package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prismaudio/prism/internal/message"
)

// WatchSignals returns a context that SIGINT, SIGTERM or SIGHUP (a
// closed terminal or SSH session) cancels, and the function that stops
// watching. After a signal the command has grace to return; then, or at
// a second signal, the process removes its temporary files (cleanup and
// the spools), says on stderr which outputs were written (written; nil:
// none) and exits with code.
func WatchSignals(stderr io.Writer, written *Outputs, grace time.Duration, cleanup func(), code int) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-done:
			return
		case <-sigs:
		case <-time.After(grace):
		}
		cleanup()
		RemoveSpools()
		fmt.Fprintf(stderr, "prism: interrupted: %s\n", written.Say())
		os.Exit(code)
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
}

// Outputs lists the outputs a command has put in place, for the
// message of an interrupt. Any goroutine may call its methods; a nil one
// lists none.
type Outputs struct {
	mu    sync.Mutex
	paths []string
	want  []string // a command's one output, named when not written
}

// Expect names the output a command of one output will write.
func (w *Outputs) Expect(path string) {
	w.mu.Lock()
	w.want = []string{path}
	w.mu.Unlock()
}

// Add records an output put in place.
func (w *Outputs) Add(path string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.paths = append(w.paths, path)
	w.mu.Unlock()
}

// Say is "no output written", or which were and that the others were not.
func (w *Outputs) Say() string {
	if w == nil {
		return "no output written"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.paths) == 0 && len(w.want) == 1 {
		return message.Quote(w.want[0]) + " not written"
	}
	if len(w.paths) == 0 {
		return "no output written"
	}
	q := make([]string, len(w.paths))
	for i, p := range w.paths {
		q[i] = message.Quote(p)
	}
	return fmt.Sprintf("%d output(s) written (%s); the others not written", len(q), strings.Join(q, ", "))
}
