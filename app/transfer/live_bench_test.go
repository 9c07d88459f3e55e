package transfer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// BenchmarkLiveTransfer times the live transfer path (Feed: the plan,
// the averages' read-back, the delay tracked every batch) per batch of
// new input; frames/s per channel is reported. -short runs the small
// case only; the stress setting is ch=16/n=65536/hop=128.
func BenchmarkLiveTransfer(b *testing.B) {
	cases := []struct{ ch, n, hop int }{{2, 4096, 1024}, {16, 65536, 128}}
	if testing.Short() {
		cases = cases[:1]
	}
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	engs := []gpufft.Engine{cpu}
	if g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{}); err == nil {
		defer g.Close()
		engs = append(engs, g)
	} else {
		b.Logf("no OpenCL: %v", err)
	}
	for _, e := range engs {
		for _, c := range cases {
			b.Run(fmt.Sprintf("engine=%s/ch=%d/n=%d/hop=%d", e.Name(), c.ch, c.n, c.hop), func(b *testing.B) {
				pair := engine.Pair{Preferred: e, Strict: true}
				if e == gpufft.Engine(cpu) {
					pair.CPU = cpu
				}
				tr, err := NewLiveFeed(192000, 1+c.ch, pair, LiveSettings{FFT: c.n, Hop: c.hop,
					Window: window.Func{Kind: window.Hann}, Average: dual.AverageComplex, Frames: 64, Track: true, TrackEvery: 1})
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				in := make([]float32, (1+c.ch)*tr.BatchFrames()*c.hop)
				rng := rand.New(rand.NewPCG(1, 1))
				for i := range in {
					in[i] = float32(0.1 * rng.NormFloat64())
				}
				tr.Feed(in) // warm up
				b.SetBytes(int64(4 * len(in)))
				b.ReportAllocs()
				frames := 0
				for b.Loop() {
					n, err := tr.Feed(in)
					if err != nil {
						b.Fatal(err)
					}
					frames += n
				}
				b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s/ch")
			})
		}
	}
}
