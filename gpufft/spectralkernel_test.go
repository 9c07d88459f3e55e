package gpufft

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// spectralTestConfig is two groups (sizes 64 and 256) of random rows,
// some reaching the spectrum's edges, over 3 channels; the second group's
// weights are of the packed form (real Re, imaginary Im).
func spectralTestConfig(rng *rand.Rand, output Output) SpectralKernelConfig {
	cfg := SpectralKernelConfig{Channels: 3, MaxSamples: 1000, Output: output}
	for _, n := range []int{64, 256} {
		g := SpectralGroup{Size: n, Hop: n / 4, MaxFrames: 5, Offset: []int32{0}}
		for r := range 7 {
			width := 1 + rng.IntN(20)
			first := rng.IntN(n/2 + 2 - width)
			if r == 0 {
				first = 0
			} else if r == 1 {
				first = n/2 + 1 - width
			}
			g.First = append(g.First, int32(first))
			for range width {
				re := complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
				im := complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
				if n == 256 {
					re, im = complex(real(re), 0), complex(0, imag(im))
				}
				g.Re, g.Im = append(g.Re, re), append(g.Im, im)
			}
			g.Offset = append(g.Offset, int32(len(g.Re)))
		}
		cfg.Groups = append(cfg.Groups, g)
	}
	return cfg
}

// TestSpectralKernelMatchesDFT: each row of each group, channel and frame
// equals the kernel applied in float64 to a float64 O(n²) DFT of the
// frame, in amplitude within 2e-6 of √N·Σ|weights| (the size of a row's
// terms for unit noise; both engines measured ≤ 2.2e-7 of it: float32
// FFT rounding, errBound, plus the dB path's log10f), on each engine,
// for power and dB outputs; frames start where asked; Load and Execute
// allocate nothing.
func TestSpectralKernelMatchesDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, e := range engines(t) {
		for _, output := range []Output{Power, DBFS} {
			cfg := spectralTestConfig(rng, output)
			p, err := e.NewSpectralKernel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			samples := 900
			src := make([]float32, cfg.Channels*samples)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
			}
			frames := []SpectralFrames{{Start: 13, Frames: 5}, {Start: 101, Frames: 4}}
			dst := make([]float32, cfg.DstLen(frames))
			if err := p.Load(src); err != nil {
				t.Fatal(err)
			}
			if err := p.Execute(dst, frames); err != nil {
				t.Fatal(err)
			}
			base, worst := 0, 0.0
			for gi, g := range cfg.Groups {
				f := frames[gi]
				for c := range cfg.Channels {
					for j := range f.Frames {
						off := c*samples + f.Start + j*g.Hop
						x := realDFT64(src[off : off+g.Size])
						for r := range g.Rows() {
							var y complex128
							var scale float64
							for i := g.Offset[r]; i < g.Offset[r+1]; i++ {
								v := x[int(g.First[r])+int(i-g.Offset[r])]
								y += complex(real(v), 0)*complex128(g.Re[i]) + complex(imag(v), 0)*complex128(g.Im[i])
								scale += cmplx.Abs(complex128(g.Re[i])) + cmplx.Abs(complex128(g.Im[i]))
							}
							got := float64(dst[base+(c*f.Frames+j)*g.Rows()+r])
							norm := math.Sqrt(float64(g.Size)) * scale // |X_k| ≤ ‖x‖·√N ~ N for unit noise
							var diff float64
							if output == Power {
								diff = math.Abs(math.Sqrt(got) - cmplx.Abs(y))
							} else {
								diff = math.Abs(math.Pow(10, got/20) - cmplx.Abs(y))
							}
							worst = max(worst, diff/norm)
							if diff > 2e-6*norm {
								t.Fatalf("%s %v: group %d channel %d frame %d row %d: %g, want amplitude %g", e.Name(), output, gi, c, j, r, got, cmplx.Abs(y))
							}
						}
					}
				}
				base += cfg.Channels * f.Frames * g.Rows()
			}
			t.Logf("%s %v: worst error %.3g of the bound's scale", e.Name(), output, worst)
			if n := testing.AllocsPerRun(10, func() {
				if raceEnabled {
					return // counts are not meaningful under -race (race_test.go)
				}
				_ = p.Load(src)
				_ = p.Execute(dst, frames)
			}); n != 0 {
				t.Errorf("%s: Load and Execute: %v allocs per call, want 0", e.Name(), n)
			}
			p.Close()
			p.Close()
		}
	}
}

// realDFT64 is the O(n²) DFT of real x in float64, bins 0…n/2.
func realDFT64(x []float32) []complex128 {
	n := len(x)
	out := make([]complex128, n/2+1)
	for k := range out {
		var s complex128
		for i, v := range x {
			s += complex(float64(v), 0) * cmplx.Rect(1, -2*math.Pi*float64(k*i%n)/float64(n))
		}
		out[k] = s
	}
	return out
}

// TestSpectralKernelConfigErrors: configurations breaking the contract are
// refused with ErrInvalid.
func TestSpectralKernelConfigErrors(t *testing.T) {
	good := spectralTestConfig(rand.New(rand.NewPCG(2, 2)), DBFS)
	for name, edit := range map[string]func(c *SpectralKernelConfig){
		"channels":   func(c *SpectralKernelConfig) { c.Channels = 0 },
		"output":     func(c *SpectralKernelConfig) { c.Output = Complex },
		"no groups":  func(c *SpectralKernelConfig) { c.Groups = nil },
		"size":       func(c *SpectralKernelConfig) { c.Groups[0].Size = 100 },
		"hop":        func(c *SpectralKernelConfig) { c.Groups[0].Hop = 0 },
		"max frames": func(c *SpectralKernelConfig) { c.Groups[1].MaxFrames = 100 },
		"offsets":    func(c *SpectralKernelConfig) { c.Groups[0].Offset = c.Groups[0].Offset[1:] },
		"weights":    func(c *SpectralKernelConfig) { c.Groups[0].Im = c.Groups[0].Im[1:] },
		"row bins":   func(c *SpectralKernelConfig) { c.Groups[0].First[0] = 30 },
	} {
		c := good.clone()
		edit(&c)
		if err := c.check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := good.check(); err != nil {
		t.Fatal(err)
	}
}
