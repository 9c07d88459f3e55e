package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvolvePartitioned: the engine's convolution, in one transform or
// partitioned into blocks of half a small largest size (256 points), is
// the direct float64 sum Σ x[i]·h[n−i] over any window [from, to) — lengths
// on and around the blocks' edges, windows inside, across and past the
// ends — within 1e-6 relative (float32 transforms).
func TestConvolvePartitioned(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, e := range pairs(t) {
		for _, c := range []struct{ x, h, from, to int }{
			{100, 50, 0, 149},     // one transform
			{128, 128, 0, 255},    // full length exactly 255 ≤ 256: one
			{129, 128, 0, 256},    // 257: partitioned, blocks of 128
			{1000, 300, 0, 1299},  // several blocks each
			{1000, 300, 700, 900}, // a window inside
			{777, 1025, 1500, 2000},
			{300, 1000, -50, 1400}, // windows past both ends read 0
		} {
			t.Run(fmt.Sprintf("%s/x=%d/h=%d/%d…%d", e.Preferred.Name(), c.x, c.h, c.from, c.to), func(t *testing.T) {
				x, h := make([]float32, c.x), make([]float32, c.h)
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				for i := range h {
					h[i] = float32(r.NormFloat64())
				}
				cv, err := newConvolverMax(e.Preferred, h, len(x), 256)
				if err != nil {
					t.Fatal(err)
				}
				defer cv.Close()
				from, to := c.from, c.to
				got, err := cv.convolve(x, from, to)
				if err != nil {
					t.Fatal(err)
				}
				var d, n float64
				for k := from; k < to; k++ {
					want := 0.0
					for i := max(0, k-len(h)+1); i <= min(k, len(x)-1); i++ {
						want += float64(x[i]) * float64(h[k-i])
					}
					d += sq(float64(got[k-from]) - want)
					n += sq(want)
				}
				if rel := math.Sqrt(d / n); rel > 1e-6 {
					t.Errorf("relative error %.3g", rel)
				}
			})
		}
	}
}
