package bench

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestGonumBaseline: the baseline's R2C and dBFS rows are gonum's float64
// transforms of the frames, checked against a plain O(n²) DFT, and its
// dBFS reads 0 dB for a full-scale sine at a bin centre (the contract's
// level scale, which `prism bench` compares the engines on).
func TestGonumBaseline(t *testing.T) {
	const n, hop, frames = 64, 16, 5
	rng := rand.New(rand.NewPCG(1, 1))
	src := make([]float32, (frames-1)*hop+n)
	for i := range src {
		src[i] = float32(rng.NormFloat64())
	}
	bins := n/2 + 1
	cdst := make([]complex64, frames*bins)
	newBaseline(n, hop, 3, nil).run(src, frames, cdst, nil)
	for f := range frames {
		for k := range bins {
			var want complex128
			for i := range n {
				want += complex(float64(src[f*hop+i]), 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(k*i)/n))
			}
			if d := cmplx.Abs(complex128(cdst[f*bins+k]) - want); d > 1e-4*(1+cmplx.Abs(want)) {
				t.Fatalf("frame %d bin %d: %v, want %v", f, k, cdst[f*bins+k], want)
			}
		}
	}
	sine := make([]float32, (frames-1)*hop+n)
	for i := range sine {
		sine[i] = float32(math.Sin(2 * math.Pi * 8 * float64(i) / n))
	}
	fdst := make([]float32, frames*bins)
	newBaseline(n, hop, 2, window.Func{Kind: window.Hann}.Values(n)).run(sine, frames, nil, fdst)
	for f := range frames {
		if db := fdst[f*bins+8]; math.Abs(float64(db)) > 0.01 {
			t.Errorf("frame %d: full-scale sine at bin 8 reads %.4f dBFS, want 0", f, db)
		}
	}
}

// BenchmarkGonum is gonum's dsp/fourier real FFT used the way the CPU engine
// works (baseline). Compare with BenchmarkTransform/cpu/r2c.
func BenchmarkGonum(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{256, 1024, 4096, 16384, 65536} {
		const batch = 32
		b.Run(fmt.Sprintf("r2c/size=%d/batch=%d", n, batch), func(b *testing.B) {
			src := make([]float32, n*batch)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
			}
			dst := make([]complex64, (n/2+1)*batch)
			g := newBaseline(n, n, gpufft.NewCPU(0).Workers(), nil)
			b.SetBytes(int64(4 * len(src)))
			for b.Loop() {
				g.run(src, batch, dst, nil)
			}
		})
	}
}
