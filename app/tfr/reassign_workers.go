package tfr

import (
	"runtime"
	"sync"
)

// The phases of a reassigned Execute that the workers share: windowing the
// frames, finding each bin's place, and the dB conversion. Adding the
// powers up stays on the caller's goroutine, in bin order.
const (
	phaseWindow = iota
	phasePeak
	phaseMove
	phaseDB
)

// workers are a reassigned transform's goroutines (shared by a
// multi-resolution one's sizes), started by New and stopped by Close,
// each taking rows (channel·frames + frame) of one phase of one size. A
// job is a value: handing one over does not allocate.
type workers struct {
	ch   int
	jobs chan raJob
	done sync.WaitGroup
	n    int
	once sync.Once
}

type raJob struct {
	t         *reassigned
	phase     int
	buf       []float32 // src (phaseWindow) or dst (phaseDB)
	l, frames int
	lo, hi    int
}

func newWorkers(channels int) *workers {
	w := &workers{ch: channels, n: min(16, runtime.GOMAXPROCS(0))}
	w.jobs = make(chan raJob, w.n)
	for range w.n {
		go w.loop()
	}
	return w
}

func (w *workers) loop() {
	for j := range w.jobs {
		switch j.phase {
		case phaseWindow:
			j.t.window(j.buf, j.l, j.frames, j.lo, j.hi)
		case phasePeak:
			j.t.peaks(j.lo, j.hi)
		case phaseMove:
			j.t.move(j.frames, j.lo, j.hi)
		case phaseDB:
			j.t.levels(j.buf, j.lo, j.hi)
		}
		w.done.Done()
	}
}

// run does phase of t over every row of frames×channels and returns when
// all are done.
func (w *workers) run(t *reassigned, phase int, buf []float32, l, frames int) {
	rows := w.ch * frames
	parts := min(w.n, rows)
	w.done.Add(parts)
	for p := range parts {
		w.jobs <- raJob{t: t, phase: phase, buf: buf, l: l, frames: frames, lo: p * rows / parts, hi: (p + 1) * rows / parts}
	}
	w.done.Wait()
}

// stop ends the goroutines; calling it twice is harmless.
func (w *workers) stop() { w.once.Do(func() { close(w.jobs) }) }
