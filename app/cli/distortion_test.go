package cli

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestDistortionCLI: 1 kHz at −6 dBFS + 0.1 % second harmonic + white
// noise of RMS 1e-5 (−100 dBFS) at 48 kHz, 5 s, in channel 1 of a stereo
// file: THD 0.100 % ± 0.002, SNR and SINAD within 0.1 dB of the values
// from the known powers (the noise's own mean square).
func TestDistortionCLI(t *testing.T) {
	const fs, amp, sigma = 48000, 0.5, 1e-5
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float32, 5*fs)
	ms := 0.0
	for i := range x {
		ph := 2 * math.Pi * 1000 * float64(i) / fs
		e := sigma * r.NormFloat64()
		ms += e * e
		x[i] = float32(amp*math.Sin(ph) + 0.001*amp*math.Sin(2*ph+1) + e)
	}
	ms /= float64(len(x))
	in := filepath.Join(t.TempDir(), "thd.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{make([]float32, len(x)), x})
	code, out, msg := runOut("distortion", in, "--channel", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var j struct {
		FundamentalHz   float64 `json:"fundamental_hz"`
		FundamentalDBFS float64 `json:"fundamental_dbfs"`
		THDPercent      float64 `json:"thd_percent"`
		THDDB           float64 `json:"thd_db"`
		THDNDB          float64 `json:"thdn_db"`
		SNRDB           float64 `json:"snr_db"`
		SINADDB         float64 `json:"sinad_db"`
		Harmonics       []struct {
			N      int     `json:"n"`
			FreqHz float64 `json:"freq_hz"`
			DBFS   float64 `json:"dbfs"`
		} `json:"harmonics"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	F, H, N := amp*amp, 1e-6*amp*amp, 2*ms // amplitude² units
	for _, c := range []struct {
		what           string
		got, want, tol float64
	}{
		{"fundamental_hz", j.FundamentalHz, 1000, 0.01},
		{"fundamental_dbfs", j.FundamentalDBFS, 20 * math.Log10(amp), 0.01},
		{"thd_percent", j.THDPercent, 0.1, 0.002},
		{"thd_db", j.THDDB, -60, 0.2},
		{"thdn_db", j.THDNDB, 10 * math.Log10((H+N)/F), 0.1},
		{"snr_db", j.SNRDB, 10 * math.Log10(F/N), 0.1},
		{"sinad_db", j.SINADDB, 10 * math.Log10((F+H+N)/(H+N)), 0.1},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %v, want %v ± %v", c.what, c.got, c.want, c.tol)
		}
	}
	if len(j.Harmonics) != 9 || j.Harmonics[0].N != 2 || math.Abs(j.Harmonics[0].DBFS-(20*math.Log10(amp)-60)) > 0.1 {
		t.Errorf("harmonics %+v", j.Harmonics)
	}
	code, out, _ = runOut("distortion", in, "--channel", "1", "--fundamental", "1000")
	if code != 0 || !strings.Contains(out, "THD 0.1000 %") || !strings.Contains(out, "H2 ") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"distortion", in, "--fundamental", "30000"}, "outside"},
		{[]string{"distortion", in, "--channel", "2"}, "no channel 2"},
		{[]string{"distortion", in, "--fundamental", "-5"}, "--fundamental"},
		{[]string{"distortion", in}, "no fundamental"}, // channel 0 is silent
		{[]string{"distortion"}, "want one input file"},
	} {
		code, _, msg := runOut(c.args...)
		if code != 2 || !strings.Contains(msg, c.msg) || !strings.HasPrefix(msg, "prism: ") {
			t.Errorf("%v: exit %d %q, want 2 %q", c.args[1:], code, msg, c.msg)
		}
	}
}

// TestDistortionHarmonicNearNyquist: a second harmonic 3 Hz below Nyquist
// (fundamental 11998.5 Hz at 48 kHz: within the Kaiser window's main lobe
// of ±4.7 Hz of it) is counted as a harmonic, not as noise: THD −40 dB
// within 0.05 dB, SNR within 0.2 dB of the noise's known power, as for a
// harmonic anywhere else.
func TestDistortionHarmonicNearNyquist(t *testing.T) {
	const fs, amp, sigma, f0 = 48000, 0.5, 1e-5, 11998.5
	r := rand.New(rand.NewPCG(2, 2))
	x := make([]float32, 10*fs)
	ms := 0.0
	for i := range x {
		ph := 2 * math.Pi * f0 * float64(i) / fs
		e := sigma * r.NormFloat64()
		ms += e * e
		x[i] = float32(amp*math.Sin(ph) + 0.01*amp*math.Sin(2*ph+0.5) + e)
	}
	ms /= float64(len(x))
	in := filepath.Join(t.TempDir(), "nyq.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{x})
	code, out, msg := runOut("distortion", in, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var j struct {
		THDDB     *float64 `json:"thd_db"`
		SNRDB     float64  `json:"snr_db"`
		Harmonics []struct {
			N      int     `json:"n"`
			FreqHz float64 `json:"freq_hz"`
		} `json:"harmonics"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	wantSNR := 10 * math.Log10(amp*amp/(2*ms))
	if j.THDDB == nil || math.Abs(*j.THDDB+40) > 0.05 || math.Abs(j.SNRDB-wantSNR) > 0.2 {
		t.Errorf("THD %v dB, SNR %.2f dB; want −40.00 and %.2f\n%s", j.THDDB, j.SNRDB, wantSNR, out)
	}
	if len(j.Harmonics) != 1 || j.Harmonics[0].N != 2 || math.Abs(j.Harmonics[0].FreqHz-2*f0) > 0.1 {
		t.Errorf("harmonics %+v, want H2 at %v Hz", j.Harmonics, 2*f0)
	}
}
