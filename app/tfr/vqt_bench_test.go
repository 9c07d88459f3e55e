package tfr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// benchEngines is the CPU engine (every core) and, where it opens, OpenCL.
func benchEngines(b *testing.B) []gpufft.Engine {
	es := []gpufft.Engine{gpufft.NewCPU(0)}
	if g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{}); err == nil {
		es = append(es, g)
	} else {
		b.Logf("no OpenCL: %v", err)
	}
	for _, e := range es {
		b.Logf("engine %s: %s", e.Name(), e.Device())
	}
	b.Cleanup(func() {
		for _, e := range es {
			e.Close()
		}
	})
	return es
}

func noise(n int) []float32 {
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.1 * rng.NormFloat64())
	}
	return x
}

// BenchmarkVQTLive is the live target: 8 channels at 192 kHz, 48 bins
// per octave from 20 Hz, hop 128, frames frames per Execute (one stream);
// it reports output frames per second per channel (the live target is
// 1,500).
func BenchmarkVQTLive(b *testing.B) {
	for _, e := range benchEngines(b) {
		for _, frames := range []int{150, 1500} {
			b.Run(fmt.Sprintf("%s/channels=8/rate=192000/bpo=48/frames=%d", e.Name(), frames), func(b *testing.B) {
				cfg := Config{Mode: VQT, Rate: 192000, Channels: 8, Hop: 128, BinsPerOctave: 48, FMin: 20}
				cfg.MaxSamples = 1<<20 + (frames-1)*cfg.Hop
				tr, err := New(e, cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				src := noise(cfg.Channels * cfg.MaxSamples)
				dst := make([]float32, cfg.Channels*frames*len(tr.Freqs()))
				b.ReportAllocs()
				b.SetBytes(int64(4 * cfg.Channels * frames * cfg.Hop))
				for b.Loop() {
					if _, err := tr.Execute(dst, src); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(frames)*float64(b.N)/b.Elapsed().Seconds(), "frames/s/ch")
			})
		}
	}
}

// BenchmarkVQTFile times one 10-minute stereo buffer at 48 kHz, cut into
// calls of 2^22 samples per channel: the VQT (48 bins per octave from
// 20 Hz, hop 1024) against the plain STFT (N = 4096, Hann, hop 1024, dBFS)
// on the same engine. -short makes it one minute.
func BenchmarkVQTFile(b *testing.B) {
	const rate, hop, chunk = 48000, 1024, 1 << 22
	minutes := 10
	if testing.Short() {
		minutes = 1
	}
	total := rate * 60 * minutes
	for _, e := range benchEngines(b) {
		for _, mode := range []Mode{STFT, VQT} {
			b.Run(fmt.Sprintf("%s/%v/channels=2/minutes=%d", e.Name(), mode, minutes), func(b *testing.B) {
				var exec func(dst, src []float32) (int, error)
				var span, bins int
				if mode == STFT {
					sc := gpufft.SpectrogramConfig{Size: 4096, Hop: hop, Window: window.Func{Kind: window.Hann}, Channels: 2, MaxSamples: chunk, Output: gpufft.DBFS}
					p, err := e.NewSpectrogram(sc)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					exec, span, bins = p.Execute, sc.Size, sc.Bins()
				} else {
					tr, err := New(e, Config{Mode: VQT, Rate: rate, Channels: 2, Hop: hop, BinsPerOctave: 48, FMin: 20, MaxSamples: chunk})
					if err != nil {
						b.Fatal(err)
					}
					defer tr.Close()
					exec, span, bins = tr.Execute, tr.Span(), len(tr.Freqs())
				}
				x := [2][]float32{noise(total), noise(total)}
				src := make([]float32, 2*chunk)
				dst := make([]float32, 2*((chunk-span)/hop+1)*bins)
				b.ReportAllocs()
				b.SetBytes(int64(4 * 2 * total))
				for b.Loop() {
					for off := 0; off+span <= total; {
						n := min(chunk, total-off)
						for c := range 2 {
							copy(src[c*n:(c+1)*n], x[c][off:off+n])
						}
						frames, err := exec(dst, src[:2*n])
						if err != nil {
							b.Fatal(err)
						}
						off += frames * hop
					}
				}
			})
		}
	}
}
