package view

import (
	"math"
	"strings"
	"testing"

	"github.com/prismaudio/prism/ui/internal/uitest"
)

// TestHarmonicWindows: the readout is exact (THD within 0.002 %) with the
// windows whose side lobes lie under the harmonics, and says that the
// others leak instead of passing their reading off as a measurement.
func TestHarmonicWindows(t *testing.T) {
	const rate, n, a1, f0 = 48000, 8192, 0.5, 1000.0
	amps := map[int]float64{2: 0.001 * a1, 3: 0.0005 * a1, 5: 0.0002 * a1}
	truth := 100 * math.Sqrt(0.001*0.001+0.0005*0.0005+0.0002*0.0002)
	for _, c := range []struct {
		window string
		clean  bool
	}{{"rect", false}, {"hann", false}, {"hamming", false}, {"blackman", false},
		{"blackman-harris", true}, {"flattop", true}, {"kaiser:20", true}} {
		var h HarmonicMeter
		h.measure(uitest.DistortedSpectrum(t, c.window, n, rate, a1, f0, amps, 1e-5, 8), rate/float64(n), windowOf(c.window))
		warned := strings.Contains(string(h.note), "leaks")
		t.Logf("%-16s THD %.5f %% (truth %.5f)  %s  %s", c.window, h.res.THDPercent, truth, h.line, h.note)
		if warned == c.clean {
			t.Errorf("%s: leak warning %v, want %v (side lobes %.1f dB)", c.window, warned, !c.clean, h.work.leakDB)
		}
		if c.clean && (h.err != nil || math.Abs(h.res.THDPercent-truth) > 0.002) {
			t.Errorf("%s: THD %.5f %% (%v), want %.5f ± 0.002", c.window, h.res.THDPercent, h.err, truth)
		}
	}
}
