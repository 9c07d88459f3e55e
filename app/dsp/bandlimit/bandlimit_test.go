package bandlimit

import (
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

// Detect on model spectra of a 192-kHz input (N = 8192, per-bin
// dBFS): a converter's flat noise floor with a tone uses its band (0);
// the same below 24 kHz and an upsampler's stopband (−140 dB re the
// floor) above reads 24 kHz; digital zero above 48 kHz reads 48 kHz;
// silence reads 0; a 48-kHz input empty above 11 kHz reads 11.025 kHz,
// one empty above 12 kHz 0 (only rates at most half its own are tried).
func TestDetect(t *testing.T) {
	const rate, n = 192000, 8192
	binHz := float64(rate) / n
	r := rand.New(rand.NewPCG(1, 2))
	spectrum := func(edge, floor, above float64) []float32 {
		s := make([]float32, n/2+1)
		for k := range s {
			v := floor
			if float64(k)*binHz > edge {
				v = above
			}
			s[k] = float32(v + 5*r.NormFloat64()) // a noise floor's spread
		}
		s[int(1000/binHz)] = -6 // a tone
		return s
	}
	scratch := make([]float32, n/2+1)
	for _, c := range []struct {
		name string
		s    []float32
		want float64
	}{
		{"flat floor", spectrum(96000, -150, -150), 0},
		{"48 kHz upsampled", spectrum(24000, -150, -290), 24000},
		{"96 kHz, then zero", spectrum(48000, -140, dsp.FloorDB), 48000},
		{"a slope, no edge", spectrum(96000, -150, -165), 0},
	} {
		if got := Detect(scratch, c.s, binHz, rate); got != c.want {
			t.Errorf("%s: %g Hz, want %g", c.name, got, c.want)
		}
	}
	silent := make([]float32, n/2+1)
	for k := range silent {
		silent[k] = dsp.FloorDB
	}
	if got := Detect(scratch, silent, binHz, rate); got != 0 {
		t.Errorf("silence: %g Hz, want 0", got)
	}
	if got := Detect(scratch, spectrum(11000, -150, dsp.FloorDB)[:n/8+1], binHz, 48000); got != 11025 {
		t.Errorf("a 48-kHz input empty above 11 kHz: %g, want 11025", got)
	}
	if got := Detect(scratch, spectrum(12000, -150, dsp.FloorDB)[:n/8+1], binHz, 48000); got != 0 {
		t.Errorf("a 48-kHz input empty above 12 kHz: %g, want 0 (no standard Nyquist frequency at or below half its band fits)", got)
	}
	if a := testing.AllocsPerRun(10, func() { Detect(scratch, silent, binHz, rate) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}
