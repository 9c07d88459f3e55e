package ui

import (
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/session"
)

// TestStressPreset: the stress button asks for the generator at 192 kHz ×
// 8 channels with N=65536 and hop 16 (hop 16384 without a GPU engine or
// with OpenCL on a CPU device, on the CPU engine, and the side panel says
// why); Rate and
// Channels show 192000 and 8; the status shows each engine's load as a
// share, "overloaded" in words past 100 %; the preset is never saved;
// pressed again it brings back exactly the settings before it.
func TestStressPreset(t *testing.T) {
	for _, c := range []struct {
		hasGPU, onCPU bool
		hop           int
		load, note    string
	}{
		// the fake: 4 frames per batch at its 48 kHz, GPU 0.25 ms and CPU 2 ms per batch
		{true, false, 16, "engine load GPU 19 % · CPU overloaded, 1.5× too slow", "G switches engines"},
		{false, false, 16384, "engine load GPU 0 % · CPU 0 %", "No GPU engine here"},
		{true, true, 16384, "engine load GPU 0 % · CPU 0 %", "the OpenCL device is a CPU"},
	} {
		e := newFakeEngine()
		e.hasGPU, e.gpuOnCPU = c.hasGPU, c.onCPU
		w, a := newTestWindow(t, e)
		w.change(func(s *Settings) { s.FFT, s.Overlap = 8192, 0.5 })
		settle(t, w)
		before := w.set

		w.stress()
		settle(t, w)
		got := e.lastApplied()
		want := session.SourceSpec{Kind: session.SourceGenerator, Generator: "pink:-20", Rate: 192000, Channels: 8}
		if got.FFT != 65536 || got.Hop != c.hop || w.set.Source != want {
			t.Errorf("%+v: applied N=%d hop %d, source %+v", c, got.FFT, got.Hop, w.set.Source)
		}
		// without a GPU the CPU engine runs it
		if eng := fakeEngineName(e); (w.set.Engine == "cpu") != (c.hop != 16) || c.onCPU && eng != "cpu" {
			t.Errorf("%+v: engine %s (the fake's %s)", c, w.set.Engine, eng)
		}
		if w.c.rate.Selected != "192000" || w.c.chans.Selected != "8" {
			t.Errorf("%+v: Rate shows %q, Channels %q", c, w.c.rate.Selected, w.c.chans.Selected)
		}
		if !w.c.stressNote.Visible() || !strings.Contains(w.c.stressNote.Text, c.note) || w.c.stress.Text != stressText(true) {
			t.Errorf("%+v: button %q, note (shown %v) %q", c, w.c.stress.Text, w.c.stressNote.Visible(), w.c.stressNote.Text)
		}
		w.statusDue = w.now().Add(-1)
		w.Pull()
		if s := w.statusText(); !strings.Contains(s, c.load) {
			t.Errorf("%+v: no per-engine load %q in %q", c, c.load, s)
		}
		// a restart now comes back to the settings before the preset
		if saved := LoadSettings(a.Preferences()); saved.Source != before.Source || saved.FFT != 8192 || saved.Overlap != 0.5 {
			t.Errorf("%+v: the preset was saved: source %+v, N=%d, overlap %g", c, saved.Source, saved.FFT, saved.Overlap)
		}
		w.stress() // off
		settle(t, w)
		if w.set != before {
			t.Errorf("%+v: after the second press\n%+v\nwant\n%+v", c, w.set, before)
		}
		if got := e.lastApplied(); got.FFT != 8192 || got.Hop != 4096 {
			t.Errorf("%+v: after the second press applied N=%d hop %d", c, got.FFT, got.Hop)
		}
		if eng := fakeEngineName(e); (w.set.Engine == "cpu") != !c.hasGPU || c.onCPU && eng != "opencl" {
			t.Errorf("%+v: after the second press engine %s (the fake's %s)", c, w.set.Engine, eng)
		}
		if w.c.stressNote.Visible() || w.c.stress.Text != stressText(false) || w.c.rate.Selected != "Default" {
			t.Errorf("%+v: after the second press: button %q, note shown %v, rate %q", c, w.c.stress.Text, w.c.stressNote.Visible(), w.c.rate.Selected)
		}
		// on again, and the window closed: the settings saved are those before
		w.stress()
		settle(t, w)
		w.Close()
		if saved := LoadSettings(a.Preferences()); saved.Source != before.Source || saved.FFT != 8192 || saved.Overlap != 0.5 {
			t.Errorf("%+v: closing saved the preset: source %+v, N=%d", c, saved.Source, saved.FFT)
		}
	}
}

// fakeEngineName is the engine the fake runs.
func fakeEngineName(e *fakeEngine) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.engine
}
