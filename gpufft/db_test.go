package gpufft

import (
	"math"
	"testing"
)

// TestPowerDB: the host dB rule against math.Log10 in float64, and its
// floor.
func TestPowerDB(t *testing.T) {
	for _, p := range []float32{1, 0.5, 1e-3, 3.7e-12, 2e-20, 123.4} {
		want := 10 * math.Log10(float64(p))
		if got := float64(PowerDB(p)); math.Abs(got-want) > 1e-4 {
			t.Errorf("PowerDB(%g) = %g, want %g", p, got, want)
		}
	}
	if PowerDB(0) != FloorDB || PowerDB(1e-21) != FloorDB {
		t.Error("no floor")
	}
	got := AppendPowerDB(nil, []float32{1, 0.25}, []float32{0.5, 4})
	if math.Abs(float64(got[0])+3.0103) > 1e-4 || math.Abs(float64(got[1])) > 1e-4 {
		t.Errorf("AppendPowerDB with gains: %v", got)
	}
}
