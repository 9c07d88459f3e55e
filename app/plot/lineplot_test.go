package plot

import (
	"math"
	"testing"
)

// TestLinesPlacesTraces: a flat trace at −60 dB on a −120…0 dB range runs
// along the plot's middle row in the first trace colour; a second trace
// at +20 dB (above the range) is clipped to the top row; −Inf breaks a
// line instead of drawing it; the image has the plot area plus margins.
func TestLinesPlacesTraces(t *testing.T) {
	const rate, fft = 48000, 1024
	o := LineOptions{Width: 400, Height: 241, Scale: Log, DBMin: -120, DBMax: 0, Unit: "dBFS", Title: "t"}
	var f, a, b []float64
	for k := 0; k <= fft/2; k++ {
		f = append(f, float64(k)*rate/fft)
		a = append(a, -60)
		b = append(b, 20)
	}
	b[3] = math.Inf(-1) // 140.6 Hz: bins are ~19 pixels apart there
	img := Lines(o, rate, fft, f, [][]float64{a, b}, []string{"a", "b"})
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != marginLeft+400+marginRight || h != marginTop+241+marginBottom {
		t.Fatalf("image %d×%d", w, h)
	}
	mid := marginTop + 120 // (0 − (−60))/120 × 240
	top := marginTop
	axis := NewFreqAxis(Log, rate, fft)
	x := marginLeft + int(math.Round(axis.Pos(1000)*399))
	if got := img.RGBAAt(x, mid); got != lineColors[0] {
		t.Errorf("trace a at (%d, %d): %v, want %v", x, mid, got, lineColors[0])
	}
	if got := img.RGBAAt(x, top); got != lineColors[1] {
		t.Errorf("trace b at the top row: %v, want %v", got, lineColors[1])
	}
	// At bin 3 (−Inf) trace b has a gap between its neighbours.
	gx := marginLeft + int(math.Round(axis.Pos(f[3])*399))
	if got := img.RGBAAt(gx, top); got == lineColors[1] {
		t.Errorf("trace b drawn across its −Inf bin at x=%d", gx)
	}
}
