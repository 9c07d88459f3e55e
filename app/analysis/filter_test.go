package analysis

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
)

var filterSpecs = []string{"lowpass:1000", "highpass:200", "bandpass:500-2000", "bandstop:1000-4000", "octave:1000", "third:100", "speech", "highpass:60"}

// TestFIRTargets: ripple ≤ 0.1 dB across the pass band and ≥ 60 dB of
// attenuation from one transition width (1/6 octave) beyond each edge,
// checked on the designed taps' float64 frequency response.
func TestFIRTargets(t *testing.T) {
	const rate = 48000
	t6 := math.Pow(2, 1.0/6)
	for _, spec := range filterSpecs {
		b, err := parseBandAt(spec, rate)
		if err != nil {
			t.Fatal(err)
		}
		h, err := dsp.BandFIR(b, rate, 1.0/6)
		if err != nil {
			t.Fatal(err)
		}
		if len(h)%2 != 1 {
			t.Fatalf("%s: even length %d", spec, len(h))
		}
		for n := range len(h) / 2 { // linear phase: symmetric taps
			if h[n] != h[len(h)-1-n] {
				t.Fatalf("%s: not symmetric at %d", spec, n)
			}
		}
		pass := func(f float64) bool {
			switch b.Kind {
			case dsp.Lowpass:
				return f <= b.Hi
			case dsp.Highpass:
				return f >= b.Lo
			case dsp.Bandpass:
				return f >= b.Lo && f <= b.Hi
			}
			return f <= b.Lo || f >= b.Hi
		}
		stop := func(f float64) bool {
			switch b.Kind {
			case dsp.Lowpass:
				return f >= b.Hi*t6
			case dsp.Highpass:
				return f <= b.Lo/t6
			case dsp.Bandpass:
				return f <= b.Lo/t6 || f >= b.Hi*t6
			}
			return f >= b.Lo*t6 && f <= b.Hi/t6
		}
		ripple, atten := 0.0, math.Inf(1)
		for i := 1; i < 1500; i++ {
			f := 10 * math.Pow(2200, float64(i)/1500) // 10 Hz … 22 kHz, log-spaced
			g := 20 * math.Log10(dsp.FIRResponse(h, f, rate))
			if pass(f) && f < 20000 {
				ripple = max(ripple, math.Abs(g))
			}
			if stop(f) {
				atten = min(atten, -g)
			}
		}
		if ripple > 0.1 || atten < 60 {
			t.Errorf("%s (%d taps): pass-band ripple %.3f dB (≤ 0.1), stop-band attenuation %.1f dB (≥ 60)", spec, len(h), ripple, atten)
		}
	}
}

// TestFilterFile: a pass-band sine comes out as the ideal filter would make
// it (residual < −90 dBFS: no block-boundary artefacts), a stop-band sine
// is gone (≥ 60 dB down), the length is kept and the delay compensated, on
// both engines and with several channels.
func TestFilterFile(t *testing.T) {
	const rate = 48000
	n := 3*rate + 777
	for _, e := range testEngines(t) {
		for _, c := range []struct {
			spec     string
			pass, sb float64
		}{{"bandpass:500-2000", 1000, 5000}, {"lowpass:1000", 300, 4000}, {"highpass:200", 3000, 60}} {
			in := filepath.Join(t.TempDir(), "in.wav")
			apptest.WriteWAV(t, in, rate, [][]float32{apptest.Tone(n, rate, c.pass, 0.5), apptest.Tone(n, rate, c.sb, 0.5)})
			out := filepath.Join(t.TempDir(), "out.wav")
			fr, err := FilterFile(context.Background(), in, out, FilterOptions{Band: apptest.Band(t, c.spec)}, engine.Pair{Preferred: e.Preferred, CPU: e.Preferred})
			got := fr.Frames
			if err != nil {
				t.Fatal(err)
			}
			f, y := apptest.ReadAll(t, out)
			if got != int64(n) || len(y) != 2*n || f.Channels != 2 || f.SampleRate != rate || f.Bits != 32 {
				t.Fatalf("%s: %d frames written, %d samples read back, format %+v", c.spec, got, len(y), f)
			}
			h, _ := dsp.BandFIR(apptest.Band(t, c.spec), rate, 1.0/6)
			gain := dsp.FIRResponse(h, c.pass, rate)
			ideal := apptest.Tone(n, rate, c.pass, 0.5*gain)
			m := len(h)
			var res, pow float64
			for i := m; i < n-m; i++ { // away from the start and end transients
				d := float64(y[2*i]) - float64(ideal[i])
				res += d * d
				s := float64(y[2*i+1])
				pow += s * s
			}
			cnt := float64(n - 2*m)
			resDB := 20 * math.Log10(math.Sqrt(res/cnt)*math.Sqrt2)
			stopDB := 20 * math.Log10(math.Sqrt(pow/cnt)*math.Sqrt2/0.5)
			t.Logf("%s %s: residual %.1f dBFS, stop-band tone %.1f dB, %d taps", e.Preferred.Name(), c.spec, resDB, stopDB, m)
			if resDB > -90 || stopDB > -60 {
				t.Errorf("%s %s: pass-band residual %.1f dBFS (want < −90), stop-band tone %.1f dB (want ≤ −60)", e.Preferred.Name(), c.spec, resDB, stopDB)
			}
		}
	}
}

// parseBandAt is dsp.ParseBand then Check(rate).
func parseBandAt(spec string, rate int) (dsp.BandSpec, error) {
	b, err := dsp.ParseBand(spec)
	if err != nil {
		return b, err
	}
	return b, b.Check(rate)
}
