package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/ui/panel"
)

// TestStatusStripAt1280x800: at the default window size the strip shows
// PAUSED, the engine, its load, drops and stalls and a fresh warning in
// full (its text is no wider than the label); the warning's Go duration
// reads as people write it; after panel.WarnFor the warning leaves the strip
// and stays in the details.
func TestStatusStripAt1280x800(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	clock := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return clock }
	e.mu.Lock()
	e.status = "no data for 371.519272ms"
	e.mu.Unlock()
	w.typedKey(fyne.KeySpace)
	w.statusDue = time.Time{}
	w.Pull()
	strip := w.statusStrip()
	for _, want := range []string{"PAUSED", "GPU", "ms/batch", "drops 0", "stalls 0", "CPU", "⚠ no data for 372 ms"} {
		if !strings.Contains(strip, want) {
			t.Errorf("strip %q lacks %q", strip, want)
		}
	}
	if w.win.Canvas().Size() != fyne.NewSize(1280, 800) {
		t.Fatalf("window %v", w.win.Canvas().Size())
	}
	if need, room := w.bar.StripWidth(); need > room {
		t.Errorf("the strip needs %.0f units, has %.0f: %q is cut off", need, room, strip)
	}

	clock = clock.Add(panel.WarnFor + time.Second)
	w.statusDue = time.Time{}
	w.Pull()
	if strings.Contains(w.statusStrip(), "no data") {
		t.Errorf("the warning is still in the strip after %v: %q", panel.WarnFor+time.Second, w.statusStrip())
	}
	if d := w.bar.Details(); !strings.Contains(d, "Last warning (6.0 s ago): no data for 372 ms") {
		t.Errorf("details %q", d)
	}
	// a new warning shows again
	e.mu.Lock()
	e.status = "GPU failed: CL_OUT_OF_RESOURCES — using the CPU"
	e.mu.Unlock()
	w.statusDue = time.Time{}
	w.Pull()
	if !strings.Contains(w.statusStrip(), "⚠ GPU failed") {
		t.Errorf("a new warning is not shown: %q", w.statusStrip())
	}
	w.bar.TapDetails() // the popover opens over the window
	if !strings.Contains(w.bar.Details(), "Engine: GPU (fake device)") {
		t.Errorf("details %q", w.bar.Details())
	}
}

// TestFileShownPausesLive: with a file shown the live views do not pull
// and the status line describes the file and its analysis.
func TestFileShownPausesLive(t *testing.T) {
	e := newFakeEngine()
	e.file = syntheticFile()
	w, _ := newTestWindow(t, e)
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	n := e.latestN
	w.Pull()
	if e.latestN != n {
		t.Error("the live spectrum pulled while the file is shown")
	}
	if s := w.statusText(); !strings.Contains(s, "File synthetic.wav · 48000 Hz × 1 · 4.000 s · N=1024 hop 256") {
		t.Errorf("status while a file is shown: %q", s)
	}
	e.mu.Lock()
	paused := e.paused
	e.mu.Unlock()
	if !paused {
		t.Error("the live analysis runs on while a file is shown")
	}
	w.tabs.Select(w.liveTab)
	e.mu.Lock()
	paused = e.paused
	e.mu.Unlock()
	if paused {
		t.Error("the live analysis stays paused back on the Live tab")
	}
}

// TestFirstFrameNote: while the first frame of a long FFT fills (65536
// points at 8 kHz span 8.2 s; 2^20 at 48 kHz, 21.8 s), the strip says when
// it will be analyzed, counting down on the window's clock; it goes once
// a frame has been analyzed, and never shows for frames under a second.
func TestFirstFrameNote(t *testing.T) {
	e := newFakeEngine()
	e.frozen, e.rate = true, 8000
	w, _ := newTestWindow(t, e)
	clock := time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return clock }
	pull := func() string {
		w.statusDue = time.Time{}
		w.Pull()
		return w.statusStrip()
	}
	w.change(func(s *Settings) { s.FFT = 65536 })
	settle(t, w)
	if s := pull(); !strings.Contains(s, "first frame in 9 s (N=65536 spans 8.2 s)") {
		t.Errorf("strip %q", s)
	}
	clock = clock.Add(5 * time.Second)
	if s := pull(); !strings.Contains(s, "first frame in 4 s") {
		t.Errorf("after 5 s: strip %q", s)
	}
	clock = clock.Add(30 * time.Second)
	if s := pull(); !strings.Contains(s, "first frame in 0 s") {
		t.Errorf("past the span: strip %q", s)
	}
	e.mu.Lock()
	e.framesN++
	e.mu.Unlock()
	if s := pull(); strings.Contains(s, "first frame") {
		t.Errorf("after a frame: strip %q", s)
	}
	w.change(func(s *Settings) { s.FFT = 4096 }) // 0.5 s
	settle(t, w)
	if s := pull(); strings.Contains(s, "first frame") {
		t.Errorf("N=4096: strip %q", s)
	}
}
