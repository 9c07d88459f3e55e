package live

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// BenchmarkRecordPlan times what a full-resolution recording adds to a
// batch above 500 frames/s (below, it reads the live plan's columns): the
// live plan's Execute (every channel and the mix: FFT, averages, holds,
// folded columns) against the recording's (one channel on a one-frame
// grid), on the same batch (48 frames, or the most a batch takes), on
// each engine, at 48 kHz stereo. The recording's sink (a copy per row; the writer on
// its own goroutine) is BenchmarkCaptureSink's.
func BenchmarkRecordPlan(b *testing.B) {
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	engines := []engine.Pair{{Preferred: cpu, CPU: cpu}}
	if g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{}); err == nil {
		defer g.Close()
		engines = append(engines, engine.Pair{Preferred: g, CPU: cpu})
	} else {
		b.Logf("no OpenCL: %v", err)
	}
	for _, eng := range engines {
		for _, g := range [][2]int{{4096, 64}, {16384, 16}, {65536, 64}} {
			b.Run(fmt.Sprintf("%s/N=%d/hop=%d", eng.Preferred.Name(), g[0], g[1]), func(b *testing.B) {
				benchRecordPlan(b, eng, g[0], g[1])
			})
		}
	}
}

func benchRecordPlan(b *testing.B, eng engine.Pair, fft, hop int) {
	gs, err := audio.ParseGenerator("pink:-20")
	if err != nil {
		b.Fatal(err)
	}
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.NewGenerator(gs, 48000, 2, true) }, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Stop()
	s := DefaultSettings()
	s.FFT, s.Hop = fft, hop
	l, err := New(rec, eng, s)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	d := &recording{ch: 2}
	if err := l.recordPlan(d); err != nil {
		b.Fatal(err)
	}
	if d.plan == nil {
		b.Skip("the recording reads the live plan's columns: no engine cost")
	}
	defer d.plan.Close()
	batch := min(48, l.run.cfg.Frames(l.run.cfg.MaxSamples))
	samples := fft + (batch-1)*hop
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, 3*samples)
	for i := range src {
		src[i] = rng.Float32() - 0.5
	}
	for _, which := range []string{"live", "record"} {
		b.Run(which, func(b *testing.B) {
			first := int64(0)
			for b.Loop() {
				var err error
				if which == "live" {
					_, err = l.run.plan.Execute(l.run.out, src, first, false)
				} else {
					_, err = d.plan.Execute(d.out, src[2*samples:], first, false)
				}
				if err != nil {
					b.Fatal(err)
				}
				first += int64(batch)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(b.N*batch), "µs/frame")
		})
	}
}
