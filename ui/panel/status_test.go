package panel

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live"
)

// TestLoadShare: an engine's load reads as a percentage up to 100 % and
// as "overloaded" with the factor beyond, so hop 16 at 192 kHz on a CPU
// (3064 times real time) never reads "306449 %".
func TestLoadShare(t *testing.T) {
	for _, c := range []struct {
		load float64
		want string
	}{{0.04, "4 %"}, {1, "100 %"}, {1.37, "overloaded, 1.4× too slow"}, {3064.49, "overloaded, 3064× too slow"}} {
		if got := loadShare(c.load); got != c.want {
			t.Errorf("load %g: %q, want %q", c.load, got, c.want)
		}
	}
	// 12,000 frames/s per channel at hop 16 (4 frames a batch: 0.333 ms of
	// audio), engines taking 0.0133 ms and 1021 ms a batch
	st := &live.Stats{SampleRate: 192000, Hop: 16, FramesPerBatch: 4, EngineMs: map[string]float64{"opencl": 1.0 / 75, "cpu": 1021.5}}
	got := loadText(engineLoads(st))
	if got != "engine load GPU 4 % · CPU overloaded, 3064× too slow" {
		t.Errorf("loads %q", got)
	}
	if strings.Contains(got, "306") && strings.Contains(got, "%") && strings.Contains(got, "3064 %") {
		t.Errorf("a load in the thousands of percent: %q", got)
	}
}

// TestStripKeepsWhatMatters: in a strip too narrow for everything, the
// UI frame rate leaves first, then frames/s and the process CPU; PAUSED,
// the engine, its load, drops, stalls and the warning stay, and what is
// left fits.
func TestStripKeepsWhatMatters(t *testing.T) {
	test.NewTempApp(t)
	b := NewStatusBar(nil, func() {})
	win := test.NewTempWindow(t, b.Build(widget.NewLabel("")))
	st := &live.Stats{Engine: "opencl", SampleRate: 48000, Hop: 1024, FramesPerBatch: 4, FramesPerSec: 47,
		EngineMs: map[string]float64{"opencl": 3.4, "cpu": 1.7}, DroppedFrames: 12}
	f := &StatusFacts{Stats: st, Paused: true, HasGPU: true, Now: time.Unix(0, 0)}
	b.fps, b.cpuPct = 60, 139
	for _, c := range []struct {
		width      float32
		kept, gone []string
	}{
		{1600, []string{"PAUSED", "GPU engine", "engine load GPU 4 % · CPU 2 %", "drops 12", "47 frames/s", "process CPU 139 %", "UI 60 fps", "⚠ GPU failed"}, nil},
		{1000, []string{"PAUSED", "engine load GPU 4 % · CPU 2 %", "drops 12", "stalls 0", "⚠ GPU failed"}, []string{"UI 60 fps"}},
		{800, []string{"PAUSED", "GPU engine", "engine load GPU 4 % · CPU 2 %", "drops 12", "stalls 0", "⚠ GPU failed"}, []string{"UI 60 fps", "process CPU"}},
	} {
		win.Resize(fyne.NewSize(c.width, 120))
		b.Show("GPU failed", f)
		s := b.Strip()
		for _, k := range c.kept {
			if !strings.Contains(s, k) {
				t.Errorf("%.0f wide: %q lacks %q", c.width, s, k)
			}
		}
		for _, g := range c.gone {
			if strings.Contains(s, g) {
				t.Errorf("%.0f wide: %q still has %q", c.width, s, g)
			}
		}
		if need, room := b.StripWidth(); need > room {
			t.Errorf("%.0f wide: %q needs %.0f of %.0f", c.width, s, need, room)
		}
	}
}
