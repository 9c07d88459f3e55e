package app

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/audio"
)

var filterSpecs = []string{"lowpass:1000", "highpass:200", "bandpass:500-2000", "bandstop:1000-4000", "octave:1000", "third:100", "speech", "highpass:60"}

// TestFIRTargets: ripple ≤ 0.1 dB across the pass band and ≥ 60 dB of
// attenuation from one transition width (1/6 octave) beyond each edge,
// checked on the designed taps' float64 frequency response.
func TestFIRTargets(t *testing.T) {
	const rate = 48000
	t6 := math.Pow(2, 1.0/6)
	for _, spec := range filterSpecs {
		b, err := ParseBand(spec, rate)
		if err != nil {
			t.Fatal(err)
		}
		h, err := DesignFIR(b, rate, 1.0/6)
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
			case "lowpass":
				return f <= b.Hi
			case "highpass":
				return f >= b.Lo
			case "bandpass":
				return f >= b.Lo && f <= b.Hi
			}
			return f <= b.Lo || f >= b.Hi
		}
		stop := func(f float64) bool {
			switch b.Kind {
			case "lowpass":
				return f >= b.Hi*t6
			case "highpass":
				return f <= b.Lo/t6
			case "bandpass":
				return f <= b.Lo/t6 || f >= b.Hi*t6
			}
			return f >= b.Lo*t6 && f <= b.Hi/t6
		}
		ripple, atten := 0.0, math.Inf(1)
		for i := 1; i < 1500; i++ {
			f := 10 * math.Pow(2200, float64(i)/1500) // 10 Hz … 22 kHz, log-spaced
			g := 20 * math.Log10(FIRResponse(h, f, rate))
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
			writeWAV(t, in, rate, [][]float32{tone(n, rate, c.pass, 0.5), tone(n, rate, c.sb, 0.5)})
			out := filepath.Join(t.TempDir(), "out.wav")
			got, err := FilterFile(context.Background(), in, out, FilterOptions{Band: c.spec}, e.Preferred)
			if err != nil {
				t.Fatal(err)
			}
			f, y := readAll(t, out)
			if got != int64(n) || len(y) != 2*n || f.Channels != 2 || f.SampleRate != rate || f.Bits != 32 {
				t.Fatalf("%s: %d frames written, %d samples read back, format %+v", c.spec, got, len(y), f)
			}
			b, _ := ParseBand(c.spec, rate)
			h, _ := DesignFIR(b, rate, 1.0/6)
			gain := FIRResponse(h, c.pass, rate)
			ideal := tone(n, rate, c.pass, 0.5*gain)
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

func readAll(t *testing.T, path string) (audio.Format, []float32) {
	t.Helper()
	d, err := audio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f := d.Format()
	var out []float32
	buf := make([]float32, 4096*f.Channels)
	for {
		k, err := d.Read(buf)
		out = append(out, buf[:k*f.Channels]...)
		if err != nil {
			return f, out
		}
	}
}

// TestFilterDelay: an impulse comes out centred where it went in (the
// linear-phase delay compensated) and the output keeps the input's format
// with --format input.
func TestFilterDelay(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "click.wav")
	x := make([]float32, 20000)
	x[12345] = 0.5
	writeWAV(t, in, 48000, [][]float32{x})
	out := filepath.Join(dir, "o.wav")
	code, msg := runCLI("filter", in, "-o", out, "--band", "lowpass:5000", "--engine", "cpu", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	_, y := readAll(t, out)
	peak := 0
	for i, v := range y {
		if math.Abs(float64(v)) > math.Abs(float64(y[peak])) {
			peak = i
		}
	}
	if len(y) != len(x) || peak != 12345 {
		t.Errorf("length %d (want %d), peak at %d (want 12345)", len(y), len(x), peak)
	}
}

func TestFilterCLIErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	writeWAV(t, in, 48000, [][]float32{tone(4800, 48000, 440, 0.5)})
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"filter", in, "-o", filepath.Join(dir, "a.wav"), "--band", "bandpass:5000-100"}, 2, "not below"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "a.wav"), "--band", "lowpass:30000"}, 2, "Nyquist"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "a.wav"), "--band", "notch:1000"}, 2, "want lowpass"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "a.wav"), "--band", "bandstop:1000-1100"}, 2, "narrower than two transitions"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "a.wav")}, 2, "--band SPEC is required"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "a.mp3"), "--band", "speech"}, 2, "OUT.wav"},
		{[]string{"filter", filepath.Join(dir, "none.wav"), "-o", filepath.Join(dir, "a.wav"), "--band", "speech"}, 2, "no such file"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "a.wav"), "--band", "highpass:1", "--transition", "0.01"}, 2, "taps"},
	} {
		code, msg := runCLI(append(c.args, "--quiet", "--engine", "cpu")...)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args[1:], code, msg, c.code, c.msg)
		}
	}
}
