package analysis

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// generatorSpectra runs a generator through the CPU engine's spectrogram
// (flat-top window, so levels read true between bins) and returns the dB
// frames.
func generatorSpectra(t *testing.T, spec string, rate, n, seconds int) ([]float32, int) {
	t.Helper()
	x := apptest.GenSamples(t, spec, rate, rate*seconds)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	cfg := gpufft.SpectrogramConfig{Size: n, Hop: n, Window: window.Func{Kind: window.FlatTop}, Channels: 1, Mix: true, MaxSamples: len(x)}
	p, err := cpu.NewSpectrogram(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out := make([]float32, cfg.DstLen(len(x)))
	frames, err := p.Execute(out, x)
	if err != nil {
		t.Fatal(err)
	}
	return out, frames
}

// TestGeneratorThroughAnalysis: tones land on their bins at their levels.
func TestGeneratorThroughAnalysis(t *testing.T) {
	const rate, n = 48000, 8192
	binHz := float64(rate) / n
	for _, c := range []struct {
		spec  string
		freqs []float64
		level float64
	}{
		{"sine:1000:-6", []float64{1000}, -6},
		{"sine:12345.6:-30", []float64{12345.6}, -30},
		{"tones:440,880,1320:-12", []float64{440, 880, 1320}, -12},
	} {
		out, frames := generatorSpectra(t, c.spec, rate, n, 1)
		bins := n/2 + 1
		for f := range frames {
			row := out[f*bins : (f+1)*bins]
			for _, hz := range c.freqs {
				k := int(math.Round(hz / binHz))
				pk, lv := apptest.PeakIn(row, k-3, k+4)
				if math.Abs(float64(pk)-hz/binHz) > 1 || math.Abs(float64(lv)-c.level) > 0.1 {
					t.Errorf("%s frame %d: peak at bin %d (%.1f Hz) %.2f dBFS; want %.1f Hz at %.1f", c.spec, f, pk, float64(pk)*binHz, lv, hz, c.level)
				}
			}
		}
	}
}

// TestSweepThroughAnalysis: the sweep's peak follows f0·(f1/f0)^(t/T).
func TestSweepThroughAnalysis(t *testing.T) {
	const rate, n = 48000, 2048
	out, frames := generatorSpectra(t, "sweep:100:10000:-12:2", rate, n, 2)
	bins := n/2 + 1
	binHz := float64(rate) / n
	for f := 1; f < frames-1; f++ {
		tc := (float64(f*n) + n/2) / rate
		want := 100 * math.Pow(100, tc/2)
		pk, lv := apptest.PeakIn(out[f*bins:(f+1)*bins], 1, bins)
		// the tone moves during a frame: allow the frame's own sweep span
		span := want * (math.Pow(100, float64(n)/rate/2) - 1)
		// where the tone crosses many bins within a frame its energy spreads
		// over them: check the level only where it stays within two bins
		levelOK := span > 2*binHz || math.Abs(float64(lv)+12) <= 1
		if math.Abs(float64(pk)*binHz-want) > span+2*binHz || !levelOK {
			t.Errorf("frame %d (t=%.3f s): peak %.0f Hz %.2f dB, want %.0f Hz ± %.0f at −12", f, tc, float64(pk)*binHz, lv, want, span)
		}
	}
}

// TestPinkIsPink: octave bands of pink noise hold equal power (±1 dB) from
// 62.5 Hz to 8 kHz; white noise rises 3 dB per octave.
func TestPinkIsPink(t *testing.T) {
	const rate, n = 48000, 16384
	for _, c := range []struct {
		spec  string
		slope float64
	}{{"pink:-20", 0}, {"white:-20", 3}} {
		out, frames := generatorSpectra(t, c.spec, rate, n, 20)
		bins := n/2 + 1
		binHz := float64(rate) / n
		band := func(lo, hi float64) float64 {
			var s float64
			for f := range frames {
				for k := int(math.Ceil(lo / binHz)); float64(k)*binHz < hi; k++ {
					s += math.Pow(10, float64(out[f*bins+k])/10)
				}
			}
			return 10 * math.Log10(s)
		}
		ref := band(500, 1000)
		for i, lo := 0, 62.5; lo < 8000; i, lo = i+1, lo*2 {
			want := ref + c.slope*(math.Log2(lo/500))
			if got := band(lo, 2*lo); math.Abs(got-want) > 1 {
				t.Errorf("%s: octave %.1f–%.0f Hz at %.2f dB, want %.2f ± 1", c.spec, lo, 2*lo, got, want)
			}
		}
	}
}
