package view

import (
	"math"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/plot"
)

// TestBinMapsByLength: the map a spectrum gets is made for its own length,
// and a short spectrum is never read past its end.
func TestBinMapsByLength(t *testing.T) {
	test.NewTempApp(t)
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	var c binMaps
	for _, n := range []int{4096, 8192, 64, 4096} {
		m := c.get(v.axis, 500, 48000, n/2+1)
		if m.bins != n/2+1 {
			t.Fatalf("map for %d bins is for %d", n/2+1, m.bins)
		}
		short := make([]float32, 10)
		for x := range m.width() {
			if math.IsNaN(float64(m.value(x, short))) {
				t.Fatal("NaN")
			}
		}
	}
	if len(c.maps) != 3 {
		t.Errorf("%d maps for 3 geometries", len(c.maps))
	}
	if c.get(v.axis, 500, 48000, 1) != nil || c.get(v.axis, 0, 48000, 2049) != nil {
		t.Error("a map for no geometry")
	}
}

// TestBinMapKeepsPeaks: on columns about a bin wide, where the map
// interpolates between bins, the top of a narrow peak is still drawn at
// its bin's level, wherever the peak falls among the columns: the
// highest column equals the highest bin (it read up to 2.7 dB low when
// only the column centres' interpolation was drawn).
func TestBinMapKeepsPeaks(t *testing.T) {
	const n, rate = 4096, 48000
	for _, width := range []int{600, 620, 640, 700} {
		axis := plot.NewFreqAxis(plot.Log, rate, n)
		m := newBinMap(axis, width, n, rate)
		for peak := 60; peak < 120; peak++ {
			db := make([]float32, n/2+1)
			for k := range db {
				d := float64(k - peak)
				db[k] = float32(-6 - 3*d*d) // a main lobe's top, in dB
			}
			best := float32(-1000)
			for x := range width {
				best = max(best, m.value(x, db))
			}
			if best != -6 {
				t.Fatalf("width %d, peak at bin %d: drawn top %.2f dB, want −6", width, peak, best)
			}
		}
	}
}
