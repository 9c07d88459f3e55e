package view

import (
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/live"
)

// TestLongLabel: the legend's time reads tenths below 10 s, whole seconds
// from there.
func TestLongLabel(t *testing.T) {
	for _, c := range []struct {
		secs float64
		want string
	}{{0, "long-term average (0.0 s)"}, {9.94, "long-term average (9.9 s)"}, {9.96, "long-term average (10 s)"},
		{3725.4, "long-term average (3725 s)"}} {
		if got := string(appendLongLabel(nil, c.secs)); got != c.want {
			t.Errorf("%g s: %q, want %q", c.secs, got, c.want)
		}
	}
	if s := longSeconds(&live.Spectrum{LongFrames: 10}); s != 0 {
		t.Errorf("without a geometry: %g s", s)
	}
}

// TestPullDoesNotAllocateLongTerm: the steady-state frame allocates
// nothing in the long-term mode either, with the time it has averaged
// (and so its legend label) changing every frame.
func TestPullDoesNotAllocateLongTerm(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var v *SpectrumView
	step := liveFrameWith(t, func(sv *SpectrumView, e *fakeSource) {
		sv.SetTraces(AvgLong, true)
		sv.SetChannels("L", "R", "mix")
		e.longStep = 47 // 1 s of frames at hop 1024: the label changes every frame
		v = sv
	})
	before := avgLegend(v)
	if n := testing.AllocsPerRun(50, step); n != 0 {
		t.Errorf("a frame allocates %v times", n)
	}
	if after := avgLegend(v); !strings.HasPrefix(before, "long-term average (") || after == before {
		t.Errorf("the legend read %q, then %q: it did not follow the frames", before, after)
	}
}

// BenchmarkFrameLegend is BenchmarkFrame with the channels' legend, in
// the exponential and the long-term mode (its seconds changing every
// frame): the legend is drawn over every frame.
func BenchmarkFrameLegend(b *testing.B) {
	for _, avg := range []string{AvgExp, AvgLong} {
		b.Run(avg, func(b *testing.B) {
			b.ReportAllocs()
			step := liveFrameWith(b, func(v *SpectrumView, e *fakeSource) {
				v.SetTraces(avg, true)
				v.SetChannels("L", "R", "mix")
				e.longStep = 47
			})
			for b.Loop() {
				step()
			}
		})
	}
}

// legendText is the legend label of the average trace ("" none).
func avgLegend(v *SpectrumView) string {
	for _, it := range v.Legend() {
		if strings.Contains(it.Text(), "average") {
			return it.Text()
		}
	}
	return ""
}
