package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
	"gonum.org/v1/gonum/dsp/fourier"
)

// baseline is gonum's dsp/fourier used the way Prism's CPU engine
// works: frames split across workers goroutines, each transforming its
// frames one by one in float64 (as gonum requires, converted from and to
// float32), and, with a window, dBFS through math.Log10. Gonum and
// BenchmarkGonum both measure it.
type baseline struct {
	n, hop, workers int
	win             []float64 // nil: plain R2C to complex64
	scale           float64   // 1/Σw
	st              []baselineState
}

type baselineState struct {
	fft *fourier.FFT
	in  []float64
	out []complex128
}

func newBaseline(n, hop, workers int, win []float64) *baseline {
	g := &baseline{n: n, hop: hop, workers: workers, win: win}
	for _, v := range win {
		g.scale += v
	}
	if win != nil {
		g.scale = 1 / g.scale
	}
	for range workers {
		g.st = append(g.st, baselineState{fourier.NewFFT(n), make([]float64, n), make([]complex128, n/2+1)})
	}
	return g
}

// run transforms frames frames of src (hop apart) into cdst (R2C) or fdst
// (dBFS, with a window), split across the workers.
func (g *baseline) run(src []float32, frames int, cdst []complex64, fdst []float32) {
	var wg sync.WaitGroup
	for w := range g.workers {
		wg.Go(func() { g.frames(g.st[w], src, w*frames/g.workers, (w+1)*frames/g.workers, cdst, fdst) })
	}
	wg.Wait()
}

func (g *baseline) frames(s baselineState, src []float32, lo, hi int, cdst []complex64, fdst []float32) {
	n, bins := g.n, g.n/2+1
	for f := lo; f < hi; f++ {
		for i, v := range src[f*g.hop : f*g.hop+n] {
			s.in[i] = float64(v)
			if g.win != nil {
				s.in[i] *= g.win[i]
			}
		}
		s.fft.Coefficients(s.out, s.in)
		if g.win == nil {
			for k, v := range s.out {
				cdst[f*bins+k] = complex64(v)
			}
			continue
		}
		for k, v := range s.out {
			c := 2 * g.scale
			if k == 0 || k == n/2 {
				c = g.scale
			}
			p := (real(v)*real(v) + imag(v)*imag(v)) * c * c
			db := float32(gpufft.FloorDB)
			if p > 1e-20 {
				db = float32(10 * math.Log10(p))
			}
			fdst[f*bins+k] = db
		}
	}
}

// Gonum runs the r2c and spectrogram cases of `prism bench` with gonum's
// dsp/fourier (baseline) on workers goroutines for at least minTime
// each, so the CPU engine's speed-up over gonum is measured side by side
// in one run; c2c cases are skipped.
func Gonum(workers int, cases []gpufft.BenchCase, minTime time.Duration) ([]gpufft.BenchResult, error) {
	var out []gpufft.BenchResult
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		if c.Plan == "c2c" {
			continue
		}
		r := gpufft.BenchResult{Engine: "gonum", Device: fmt.Sprintf("gonum dsp/fourier, %d goroutines", workers), Plan: c.Plan, Size: c.Size, Hop: c.Hop}
		n, hop := c.Size, c.Size
		var win []float64
		if c.Plan == "spectrogram" {
			hop, win = c.Hop, window.Func{Kind: window.Hann}.Values(n)
		}
		frames := (c.Samples-n)/hop + 1
		r.Batch, r.Samples = frames, c.Samples
		if c.Plan == "r2c" {
			r.Samples = frames * n
		}
		src := make([]float32, c.Samples)
		for i := range src {
			src[i] = float32(rng.NormFloat64())
		}
		bins := n/2 + 1
		cdst := make([]complex64, frames*bins)
		fdst := make([]float32, frames*bins)
		g := newBaseline(n, hop, workers, win)
		sec, calls, err := gpufft.TimeLoop(minTime, func() error {
			g.run(src, frames, cdst, fdst)
			return nil
		})
		if err != nil {
			return out, err
		}
		r.Calls, r.MsPerCall = calls, sec*1e3
		r.GSamplesSec = float64(r.Samples) / sec / 1e9
		outBytes := 8 * len(cdst)
		if win != nil {
			outBytes = 4 * len(fdst)
		}
		r.GBs = float64(4*r.Samples+outBytes) / sec / 1e9
		out = append(out, r)
	}
	return out, nil
}
