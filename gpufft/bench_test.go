package gpufft

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Benchmarks are named by what varies; run e.g.
//
//	go test -run - -bench 'Transform/cpu' ./gpufft
//
// The GPU rows include host transfers (the plan's Forward); `prism bench`
// measures device-resident throughput and copy bandwidth side by side.

func benchEngines(b *testing.B) []Engine {
	es := []Engine{testCPU}
	if testGPU != nil {
		es = append(es, testGPU)
	}
	return es
}

func BenchmarkTransform(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, e := range benchEngines(b) {
		for _, n := range []int{256, 1024, 4096, 16384, 65536} {
			for _, batch := range []int{1, 32} {
				b.Run(fmt.Sprintf("%s/r2c/size=%d/batch=%d", e.Name(), n, batch), func(b *testing.B) {
					p, err := e.NewReal(n, batch)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					src := randReal(rng, n*batch)
					dst := make([]complex64, (n/2+1)*batch)
					b.SetBytes(int64(4 * len(src)))
					b.ReportAllocs()
					for b.Loop() {
						if err := p.Forward(dst, src); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(fmt.Sprintf("%s/c2c/size=%d/batch=%d", e.Name(), n, batch), func(b *testing.B) {
					p, err := e.NewComplex(n, batch)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					src := randComplex(rng, n*batch)
					dst := make([]complex64, n*batch)
					b.SetBytes(int64(8 * len(src)))
					b.ReportAllocs()
					for b.Loop() {
						if err := p.Forward(dst, src); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func BenchmarkSpectrogram(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, e := range benchEngines(b) {
		for _, c := range []struct{ n, hop int }{{1024, 256}, {4096, 1024}, {4096, 256}, {16384, 4096}} {
			b.Run(fmt.Sprintf("%s/size=%d/hop=%d", e.Name(), c.n, c.hop), func(b *testing.B) {
				const samples = 1 << 20
				cfg := SpectrogramConfig{Size: c.n, Hop: c.hop, Window: Window{Kind: Hann}, Channels: 1, Mix: true, MaxSamples: samples}
				p, err := e.NewSpectrogram(cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				src := randReal(rng, samples)
				dst := make([]float32, cfg.DstLen(samples))
				b.SetBytes(4 * samples)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Execute(dst, src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGonum is gonum's dsp/fourier real FFT used the way the CPU engine
// works: the batch split across the same number of goroutines, float64
// conversion in and out. Compare with BenchmarkTransform/cpu/r2c.
func BenchmarkGonum(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	workers := testCPU.Workers()
	for _, n := range []int{256, 1024, 4096, 16384, 65536} {
		const batch = 32
		b.Run(fmt.Sprintf("r2c/size=%d/batch=%d", n, batch), func(b *testing.B) {
			src := randReal(rng, n*batch)
			dst := make([]complex64, (n/2+1)*batch)
			type state struct {
				f   *fourier.FFT
				in  []float64
				out []complex128
			}
			st := make([]state, workers)
			for i := range st {
				st[i] = state{fourier.NewFFT(n), make([]float64, n), make([]complex128, n/2+1)}
			}
			b.SetBytes(int64(4 * len(src)))
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						s := st[w]
						for f := w * batch / workers; f < (w+1)*batch/workers; f++ {
							for i, v := range src[f*n : (f+1)*n] {
								s.in[i] = float64(v)
							}
							s.f.Coefficients(s.out, s.in)
							for k, v := range s.out {
								dst[f*(n/2+1)+k] = complex64(v)
							}
						}
					})
				}
				wg.Wait()
			}
		})
	}
}
