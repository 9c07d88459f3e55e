package panel

import (
	"strings"
	"testing"

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
