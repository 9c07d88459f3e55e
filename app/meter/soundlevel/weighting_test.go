package soundlevel

import (
	"fmt"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

// TestWeightingResponse holds the digital A and C weightings to
// IEC 61672-1:2013 Table 3's class 1 acceptance limits around the
// analog definition (dsp.Weighting.GainDB) at the common rates; below
// 2 kHz they must agree within 0.05 dB (the bilinear transform is exact
// there to a few hundredths).
func TestWeightingResponse(t *testing.T) {
	// frequency, class 1 upper and lower limit (dB) from Table 3
	limits := []struct{ hz, up, down float64 }{
		{31.5, 1.5, 1.5}, {63, 1.0, 1.0}, {125, 1.0, 1.0}, {250, 1.0, 1.0},
		{500, 1.0, 1.0}, {1000, 0.7, 0.7}, {2000, 1.0, 1.0}, {4000, 1.0, 1.0},
		{8000, 1.5, 2.5}, {10000, 2.0, 3.0}, {12500, 2.0, 5.0}, {16000, 3.5, 17.0},
	}
	for _, rate := range []float64{44100, 48000, 96000} {
		for _, w := range []dsp.Weighting{dsp.WeightA, dsp.WeightC} {
			t.Run(fmt.Sprintf("%v/%v", w, rate), func(t *testing.T) {
				for _, l := range limits {
					got, want := GainDB(w, l.hz, rate), w.GainDB(l.hz)
					up, down := l.up, l.down
					if l.hz < 2000 {
						up, down = 0.05, 0.05
					}
					if got > want+up || got < want-down {
						t.Errorf("%v Hz: %.3f dB, analog %.3f (limits +%.2f/−%.2f)", l.hz, got, want, up, down)
					}
				}
			})
		}
	}
}
