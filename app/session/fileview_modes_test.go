package session

import (
	"testing"
	"time"

	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/tfr"
)

// TestModeFollowsEngine: a mode running beside the live analysis on the
// GPU restarts on the CPU engine once the live analysis switches there
// (UseEngine), and back on the GPU, showing its spectra each time.
func TestModeFollowsEngine(t *testing.T) {
	es := testEngines(t)
	if len(es) < 2 {
		t.Skip("no OpenCL engine: nothing to switch between")
	}
	m, _, err := New(SourceSpec{Kind: SourceGenerator, Generator: "sine:1000:-10", Rate: 48000, Channels: 1}, live.DefaultSettings(), es[1])
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cfg := tfr.Config{Mode: tfr.VQT, BinsPerOctave: 12, FMin: 100, Hop: 1024}
	if err := m.SetModeWait(tfrlive.SettingsFrom(live.DefaultSettings(), cfg)); err != nil {
		t.Fatal(err)
	}
	first := m.mode.cur.Load()
	if first == nil || first.cpu {
		t.Fatalf("the mode does not run on the GPU: %+v", first)
	}
	var sp live.Spectrum
	for _, want := range []struct {
		name string
		cpu  bool
	}{{"cpu", true}, {"gpu", false}} {
		m.UseEngine(want.name)
		waitLong(t, "the mode on the "+want.name, func() bool {
			run := m.mode.cur.Load()
			return run != nil && run.cpu == want.cpu && run != first
		})
		run := m.mode.cur.Load()
		waitLong(t, "the mode's spectra on the "+want.name, func() bool {
			m.Latest(1, &sp)
			return len(sp.Freqs) > 0 && len(sp.Current) == len(sp.Freqs) && sp.Peak.Freq > 950 && sp.Peak.Freq < 1050
		})
		if m.onCPU() != want.cpu {
			t.Errorf("the live analysis is not on the %s", want.name)
		}
		first = run
	}
}

// waitLong is waitUntil for work that builds OpenCL kernels (a cold PoCL
// cache takes seconds per kernel on this machine's two cores).
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
