package bandwidth

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

// model is a one-sided spectrum of n/2+1 bins at rate: level(f) dB plus
// a noise spectrum's spread (±5 dB, seeded).
func model(rate float64, n int, level func(f float64) float64) ([]float64, float64) {
	r := rand.New(rand.NewPCG(3, 4))
	binHz := rate / float64(n)
	s := make([]float64, n/2+1)
	for k := range s {
		s[k] = level(float64(k)*binHz) + 5*r.NormFloat64()
	}
	return s, binHz
}

// TestDetectCliff: flat noise at −20 dB with a linear-in-dB fall of
// 100 dB over 400 Hz from fc: the bandwidth is where the fall reaches
// EdgeDB below the passband, fc + 400·EdgeDB/100, within one band; a
// lossy-looking cliff, named after LAME's 128 kb/s for fc near 17 kHz.
func TestDetectCliff(t *testing.T) {
	for _, fc := range []float64{11000, 16000, 16900, 19000, 20000} {
		for _, rate := range []float64{44100, 48000} {
			s, binHz := model(rate, 4096, func(f float64) float64 {
				return -20 - 100*min(1, max(0, (f-fc)/400))
			})
			v := Detect(s, binHz)
			want := fc + 400*EdgeDB/100
			if math.Abs(v.BandwidthHz-want) > BandHz || !v.LossyLowpass || v.FullBand || v.Silent {
				t.Errorf("fc %v Hz at %v: %+v, want bandwidth %.0f ± %v Hz and a lossy low-pass", fc, rate, v, want, BandHz)
			}
			if fc == 16900 && !strings.Contains(v.String(), "LAME at 128 kb/s") {
				t.Errorf("fc %v: %q names no LAME 128 kb/s", fc, v)
			}
		}
	}
}

// TestDetectRollOff: a gradual roll-off (−48 dB per octave above 4 kHz
// to a floor 90 dB down, which it meets at 4·2^(90/48) ≈ 14.7 kHz) is a
// band limit where its content meets the floor (ContentDB above it:
// 4·2^(70/48) ≈ 11.0 kHz, or a little below), but no lossy low-pass: it
// loses some 6 dB across ±0.5 kHz, not CliffDB.
func TestDetectRollOff(t *testing.T) {
	s, binHz := model(44100, 4096, func(f float64) float64 {
		return max(-110, -20-48*math.Log2(max(1, f/4000)))
	})
	v := Detect(s, binHz)
	if v.LossyLowpass || v.FullBand || v.BandwidthHz < 10000 || v.BandwidthHz > 11500 {
		t.Errorf("roll-off: %+v, want a bandwidth of 10 … 11.5 kHz and no lossy low-pass", v)
	}
}

// TestDetectUpsampled: a 96-kHz file with a cliff at 22.05 or 24 kHz is
// 44.1 or 48 kHz upsampled, not a lossy low-pass; the same cliff at
// 20 kHz is one.
func TestDetectUpsampled(t *testing.T) {
	for _, c := range []struct{ edge, from float64 }{{22050, 44100}, {24000, 48000}, {20000, 0}} {
		s, binHz := model(96000, 8192, func(f float64) float64 {
			return -20 - 100*min(1, max(0, (f-c.edge+100)/200))
		})
		v := Detect(s, binHz)
		if v.UpsampledFromHz != c.from || v.LossyLowpass != (c.from == 0) || math.Abs(v.BandwidthHz-c.edge) > 2*BandHz {
			t.Errorf("cliff at %v Hz in 96 kHz: %+v (%q)", c.edge, v, v)
		}
	}
}

func TestDetectFullBandAndSilence(t *testing.T) {
	s, binHz := model(48000, 4096, func(float64) float64 { return -30 })
	if v := Detect(s, binHz); !v.FullBand || v.BandwidthHz != 24000 || v.LossyLowpass {
		t.Errorf("flat noise: %+v, want full band at 24000 Hz", v)
	}
	silent := make([]float64, 2049)
	for k := range silent {
		silent[k] = dsp.FloorDB
	}
	if v := Detect(silent, 48000.0/4096); !v.Silent || v.BandwidthHz != 0 || v.String() != "silent: no content" {
		t.Errorf("silence: %+v (%q)", v, v)
	}
}

func TestHint(t *testing.T) {
	for _, c := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{BandwidthHz: 17100, LossyLowpass: true}, "LAME at 128 kb/s cuts at 17.0 kHz"},
		{Verdict{BandwidthHz: 18500, LossyLowpass: true}, "LAME at 192 kb/s cuts at 18.6 kHz"},
		{Verdict{BandwidthHz: 17100}, ""},
		{Verdict{BandwidthHz: 12300, LossyLowpass: true}, ""},
	} {
		if got := c.v.Hint(); got != c.want {
			t.Errorf("%+v: hint %q, want %q", c.v, got, c.want)
		}
	}
}
