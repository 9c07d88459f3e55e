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
