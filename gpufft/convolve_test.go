package gpufft

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvolver: overlap-save through the plan equals direct convolution in
// float64 (relative RMS within float32 FFT accuracy), for short and long
// filters, single-pass and multi-pass sizes, several blocks per call.
func TestConvolver(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	for _, e := range engines(t) {
		for _, c := range []struct{ taps, size, blocks int }{{101, 1024, 5}, {1537, 8192, 3}, {12001, 65536, 2}} {
			h := randReal(rng, c.taps)
			p, err := e.NewConvolver(h, c.size, c.blocks)
			if err != nil {
				t.Fatal(err)
			}
			step := p.Step()
			total := c.blocks * step
			x := randReal(rng, c.taps-1+total) // the first taps−1 samples are history
			src := make([]float32, c.blocks*c.size)
			for b := range c.blocks {
				// block b ends at input sample taps−1 + (b+1)·step
				end := c.taps - 1 + (b+1)*step
				start := end - c.size
				for i := range c.size {
					if j := start + i; j >= 0 {
						src[b*c.size+i] = x[j]
					}
				}
			}
			dst := make([]float32, total)
			if err := p.Execute(dst, src); err != nil {
				t.Fatal(err)
			}
			var num, den float64
			for i := range total {
				n := c.taps - 1 + i // output sample at input position n
				var want float64
				for k, hk := range h {
					want += float64(hk) * float64(x[n-k])
				}
				d := float64(dst[i]) - want
				num += d * d
				den += want * want
			}
			if rel := math.Sqrt(num / den); rel > 4*errBound(c.size) {
				t.Errorf("%s %+v: relative RMS error %.3g", e.Name(), c, rel)
			}
			if a := testing.AllocsPerRun(3, func() { p.Execute(dst, src) }); a != 0 && !raceEnabled {
				t.Errorf("%s: %v allocs per Execute", e.Name(), a)
			}
			p.Close()
		}
	}
}
