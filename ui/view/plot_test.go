package view

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/plot"
)

// TestMelTicks: no tick under 20 Hz on a mel axis (the stray "1"), and the
// labels on every axis leave room between them.
func TestMelTicks(t *testing.T) {
	test.NewTempApp(t)
	for _, scale := range []string{"mel", "log", "lin"} {
		for _, px := range []int{300, 700, 1200} {
			a := plot.NewFreqAxis(scaleOf(scale), 48000, 4096)
			ticks := plot.FreqTicks(a, px)
			if scale == "mel" && len(ticks) > 0 && ticks[0] < 20 {
				t.Errorf("mel at %d px: tick at %g Hz", px, ticks[0])
			}
			width := func(s string) int { return 7*len(s) + 8 }
			labels := placeLabels(a, px, ticks, width)
			for i := 1; i < len(labels); i++ {
				x0 := a.Pos(labels[i-1]) * float64(px-1)
				x1 := a.Pos(labels[i]) * float64(px-1)
				need := float64(width(plot.FormatHz(labels[i-1]))+width(plot.FormatHz(labels[i]))) / 2
				if x1-x0 < need-1 {
					t.Errorf("%s at %d px: %g and %g Hz labels %0.f px apart, need %.0f", scale, px, labels[i-1], labels[i], x1-x0, need)
				}
			}
			if scale != "lin" && px >= 700 {
				for _, d := range []float64{100, 1000, 10000} {
					if !slices.Contains(labels, d) {
						t.Errorf("%s at %d px: %g Hz unlabelled (labels %v)", scale, px, d, labels)
					}
				}
			}
		}
	}
}
