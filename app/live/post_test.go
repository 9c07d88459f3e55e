package live

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestLiveConfigMatchesSettings: the engine's live plan, as Live
// configures it from settings, gives (on both engines) the RTA levels
// dsp.BandAccumulator.Frame gives on the same |X|² frames averaged with
// the settings' exponential weight in float64, the exponential average of
// the settings' time constant and the long-term average, for a tone with
// noise. Tolerances: bands 1e-9 relative (float64 on both sides, summation
// order; float32 pairs for the GPU's weights); traces as in gpufft's
// TestLiveMatchesReference (4e-5 for the float32 exponential average).
func TestLiveConfigMatchesSettings(t *testing.T) {
	type pair struct{ eng gpufft.Engine }
	for _, pr := range apptest.Engines(t, func(e, _ gpufft.Engine) pair { return pair{e} }) {
		t.Run(pr.eng.Name(), func(t *testing.T) {
			const rate, outCh = 48000, 2
			s := Settings{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, AvgTau: 100 * time.Millisecond,
				AvgFrames: 4, PeakHold: time.Second, PeakDecay: 20, Fraction: 3, Weighting: dsp.WeightA}.withDefaults()
			geo := Geometry{Rate: rate, FFT: s.FFT, Hop: s.Hop}
			rta, err := newRTA(s, rate)
			if err != nil {
				t.Fatal(err)
			}
			var post postState
			post.reset(s, geo, rta)
			plan, cfg, err := newLivePlan(pr.eng, &post, s, rate, outCh, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			if want := float32(1 - math.Exp(-float64(s.Hop)/rate/0.1)); cfg.ExpAlpha != want {
				t.Fatalf("ExpAlpha %v, want %v", cfg.ExpAlpha, want)
			}
			spec, err := pr.eng.NewSpectrogram(cfg.Spectrogram)
			if err != nil {
				t.Fatal(err)
			}
			defer spec.Close()
			sig := apptest.GenSamples(t, "tones:1000,5000:-12", rate, 40*s.Hop+s.FFT)
			out := cfg.NewOutput()
			bins := geo.Bins()
			alpha := float64(cfg.ExpAlpha)
			refBands := make([]float64, len(rta.Bands))
			ms := make([]float64, len(rta.Bands))
			refExp, refSum := make([]float64, bins), make([]float64, bins)
			frames := 0
			for f0 := 0; f0 < 40; f0 += 5 {
				samples := s.FFT + 4*s.Hop
				src := make([]float32, outCh*samples)
				for c := range outCh {
					copy(src[c*samples:], sig[f0*s.Hop:f0*s.Hop+samples])
				}
				pow := make([]float32, cfg.Spectrogram.DstLen(samples))
				if _, err := spec.Execute(pow, src); err != nil {
					t.Fatal(err)
				}
				for f := range 5 { // channel 0's frames
					row := pow[f*bins : (f+1)*bins]
					rta.Frame(row, ms)
					for i := range ms {
						if frames == 0 {
							refBands[i] = ms[i]
						} else {
							refBands[i] += alpha * (ms[i] - refBands[i])
						}
					}
					for k, p := range row {
						v := float64(p) * float64(post.gain2[k])
						if frames == 0 {
							refExp[k] = v
						}
						refExp[k] += alpha * (v - refExp[k])
						refSum[k] += v
					}
					frames++
				}
				if _, err := plan.Execute(out, src, int64(f0), true); err != nil {
					t.Fatal(err)
				}
			}
			checkLiveAgainst(t, out, rta.Bands, refBands, refExp, refSum, frames)
		})
	}
}

// TestFloorsAgree: the host's dB floor for bands and meters is the
// engines'.
func TestFloorsAgree(t *testing.T) {
	if dsp.FloorDB != gpufft.FloorDB {
		t.Fatalf("dsp.FloorDB %v, gpufft.FloorDB %v", dsp.FloorDB, gpufft.FloorDB)
	}
}

// BenchmarkPost times the CPU engine's live plan (spectrogram and
// post-processing) on 16 frames of 3 channels at hop 64.
func BenchmarkPost(b *testing.B) {
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	for _, fft := range []int{4096, 65536} {
		s := DefaultSettings()
		s.FFT, s.Hop = fft, 64
		s = s.withDefaults()
		geo := Geometry{Rate: 48000, FFT: fft, Hop: 64}
		var post postState
		post.reset(s, geo, nil)
		plan, cfg, err := newLivePlan(cpu, &post, s, 48000, 3, nil)
		if err != nil {
			b.Fatal(err)
		}
		const n = 16
		samples := fft + (n-1)*64
		src := make([]float32, 3*samples)
		for i := range src {
			src[i] = float32(i%97) * 1e-3
		}
		out := cfg.NewOutput()
		b.Run(fmt.Sprintf("fft=%d", fft), func(b *testing.B) {
			b.ReportAllocs()
			f := int64(0)
			for b.Loop() {
				plan.Execute(out, src, f, true)
				f += n
			}
		})
		plan.Close()
	}
}

// checkLiveAgainst compares a live plan's output with the float64
// reference of the same frames: the band levels (refBands), the
// exponential average (refExp) and the long-term average (refSum over
// frames), in power.
func checkLiveAgainst(t *testing.T, out *gpufft.LiveOutput, bands []dsp.Band, refBands, refExp, refSum []float64, frames int) {
	t.Helper()
	bins := len(refExp)
	for i := range refBands {
		if got := out.Bands[i]; math.Abs(got-refBands[i]) > 1e-9*refBands[i] {
			t.Errorf("band %v: %g, want %g", bands[i], got, refBands[i])
		}
	}
	for k := range bins {
		e := float64(out.Traces[gpufft.TraceExp*bins+k])
		l := float64(out.Traces[gpufft.TraceLong*bins+k])
		if math.Abs(e-refExp[k]) > 4e-5*refExp[k] || math.Abs(l-refSum[k]/float64(frames)) > 1e-6*refSum[k]/float64(frames) {
			t.Fatalf("bin %d: exp %g long %g, want %g and %g", k, e, l, refExp[k], refSum[k]/float64(frames))
		}
	}
}
