package gpufft

import (
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// TestNoAllocs pins the hot path: executing any plan on either engine
// allocates nothing, for both single-pass and multi-pass sizes.
func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	rng := rand.New(rand.NewPCG(7, 1))
	for _, e := range engines(t) {
		for _, n := range []int{1024, 32768} {
			const batch = 5
			c, err := e.NewComplex(n, batch)
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.NewReal(n, batch)
			if err != nil {
				t.Fatal(err)
			}
			cfg := SpectrogramConfig{Size: n, Hop: n / 2, Window: window.Func{Kind: window.Hann}, Channels: 2, MaxSamples: 4 * n}
			s, err := e.NewSpectrogram(cfg)
			if err != nil {
				t.Fatal(err)
			}
			x := randComplex(rng, n*batch)
			y := make([]complex64, n*batch)
			xr := randReal(rng, n*batch)
			yr := make([]complex64, (n/2+1)*batch)
			src := randReal(rng, 2*4*n)
			dst := make([]float32, cfg.DstLen(4*n))
			sumCfg := SpectrogramConfig{Size: n, Hop: n / 2, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 4 * n, Output: PowerSum}
			ps, err := e.NewSpectrogram(sumCfg)
			if err != nil {
				t.Fatal(err)
			}
			sums := make([]float32, sumCfg.DstLen(4*n))
			pcm := make([]int16, 4*n)
			for i := range pcm {
				pcm[i] = int16(rng.Uint32())
			}
			for name, f := range map[string]func() error{
				"complex forward": func() error { return c.Forward(y, x) },
				"complex inverse": func() error { return c.Inverse(x, y) },
				"real forward":    func() error { return r.Forward(yr, xr) },
				"real inverse":    func() error { return r.Inverse(xr, yr) },
				"spectrogram":     func() error { _, err := s.Execute(dst, src); return err },
				"power sum":       func() error { _, err := ps.Execute(sums, src[:4*n]); return err },
				"power sum int16": func() error { _, err := ps.(Int16Executor).ExecuteInt16(sums, pcm); return err },
			} {
				if err := f(); err != nil { // warm up
					t.Fatal(err)
				}
				if a := testing.AllocsPerRun(10, func() { _ = f() }); a != 0 {
					t.Errorf("%s n=%d %s: %v allocs per call, want 0", e.Name(), n, name, a)
				}
			}
			c.Close()
			r.Close()
			s.Close()
			ps.Close()
		}
	}
}
