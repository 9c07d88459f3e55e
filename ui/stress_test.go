package ui

import (
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/session"
)

// TestStressPreset: the stress button asks for the generator at 192 kHz ×
// 8 channels with N=65536 and hop 16, and the status shows each engine's
// share of real time; without a GPU engine, or with OpenCL on a CPU
// device, the window says there is no GPU.
func TestStressPreset(t *testing.T) {
	for _, c := range []struct{ hasGPU, onCPU bool }{{true, false}, {false, false}, {true, true}} {
		hasGPU := c.hasGPU
		e := newFakeEngine()
		e.hasGPU, e.gpuOnCPU = hasGPU, c.onCPU
		w, _ := newTestWindow(t, e)
		w.stress()
		settle(t, w)
		got := e.lastApplied()
		want := session.SourceSpec{Kind: session.SourceGenerator, Generator: "pink:-20", Rate: 192000, Channels: 8}
		if got.FFT != 65536 || got.Hop != 16 || w.set.Source != want {
			t.Errorf("GPU %v: applied N=%d hop %d, source %+v", hasGPU, got.FFT, got.Hop, w.set.Source)
		}
		w.statusDue = w.now().Add(-1)
		w.Pull()
		s := w.statusText()
		// the fake: 4 frames of hop 16 at its 48 kHz per batch (1.33 ms),
		// GPU 0.25 ms and CPU 2 ms per batch
		if !strings.Contains(s, "load GPU 19% · CPU 150% ✗") {
			t.Errorf("GPU %v: no per-engine load in %q", hasGPU, s)
		}
		if !hasGPU && !strings.Contains(s, "no GPU engine here") {
			t.Errorf("no GPU: the window does not say so: %q", s)
		}
		if noGPU := strings.Contains(s, "no GPU here"); noGPU != c.onCPU {
			t.Errorf("OpenCL on a CPU %v: the status says so %v: %q", c.onCPU, noGPU, s)
		}
	}
}

// TestMixNoiseNote: the generator's noise in the mix view is explained
// (2 independent channels: 3.0 dB lower, 8: 9.0 dB); tones, one channel
// and the per-channel view need no note.
func TestMixNoiseNote(t *testing.T) {
	s := DefaultSettings()
	s.Source = session.SourceSpec{Kind: session.SourceGenerator, Generator: "pink:-20"}
	s.Channels = "mix"
	if n := mixNoiseNote(s, 2); !strings.Contains(n, "-20 dBFS RMS per channel") || !strings.Contains(n, "3.0 dB lower") {
		t.Errorf("2 channels: %q", n)
	}
	if n := mixNoiseNote(s, 8); !strings.Contains(n, "9.0 dB lower") {
		t.Errorf("8 channels: %q", n)
	}
	for _, c := range []struct {
		gen, view string
		ch        int
	}{{"sine:1000:-6", "mix", 2}, {"pink:-20", "mix", 1}, {"white:-20", "all", 2}} {
		s.Source.Generator, s.Channels = c.gen, c.view
		if n := mixNoiseNote(s, c.ch); n != "" {
			t.Errorf("%+v: note %q", c, n)
		}
	}
}
