package gpufft

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
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
				timeSpectrogram(b, e, rng, SpectrogramConfig{Size: c.n, Hop: c.hop, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true})
			})
		}
	}
}

// BenchmarkPowerSum: the Welch sums of the archive analyses (frames half a
// frame apart, their powers summed on the engine).
func BenchmarkPowerSum(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, e := range benchEngines(b) {
		for _, n := range []int{1024, 8192, 65536} {
			b.Run(fmt.Sprintf("%s/size=%d", e.Name(), n), func(b *testing.B) {
				timeSpectrogram(b, e, rng, SpectrogramConfig{Size: n, Hop: n / 2, Window: window.Func{Kind: window.Hann}, Channels: 1, Output: PowerSum})
			})
		}
	}
}

// timeSpectrogram times Execute of a plan of cfg over 2^20 random samples.
func timeSpectrogram(b *testing.B, e Engine, rng *rand.Rand, cfg SpectrogramConfig) {
	const samples = 1 << 20
	cfg.MaxSamples = samples
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
}
