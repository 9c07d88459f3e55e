package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestBandsCalibrated: with a level calibration and a microphone
// response, a −20 dBFS 1 kHz sine reads in its band the calibrated level
// less the response at the band's centre: 100 − 20 − 3 = 77.00 dB SPL
// (the response is +3 dB from 500 Hz to 2 kHz); the stderr note says dB
// SPL and names the file. A calibrator recording (a 94 dB SPL tone at
// −6.02 dBFS: a full-scale sine reads 100.02) gives the same rule.
func TestBandsCalibrated(t *testing.T) {
	in := apptest.GenWAV(t, "sine:1000:-20", 48000, 2)
	dir := t.TempDir()
	mic := filepath.Join(dir, "umik.txt")
	if err := os.WriteFile(mic, []byte("* test microphone\n20 0\n500 3\n2000 3\n20000 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	band := func(out string) float64 {
		t.Helper()
		b, _ := os.ReadFile(out)
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Split(l, ","); len(f) == 6 && f[0] == "1000" {
				v, err := strconv.ParseFloat(f[4], 64)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
		}
		t.Fatalf("no 1 kHz band in %s", b)
		return 0
	}
	out := filepath.Join(dir, "b.csv")
	code, msg := runCLI("bands", in, "-o", out, "--engine", "cpu", "--weighting", "Z", "--cal-dbspl", "100", "--cal", mic)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if v := band(out); math.Abs(v-77) > 0.005 || !strings.Contains(msg, "dB SPL") || !strings.Contains(msg, "full-scale sine = 100.00 dB SPL, microphone umik.txt") {
		t.Errorf("1 kHz band %.2f, want 77.00; note %q", v, msg)
	}
	calRec := filepath.Join(dir, "calibrator.wav")
	apptest.WriteWAV(t, calRec, 48000, [][]float32{apptest.Tone(3*48000, 48000, 1000, 0.5)})
	if code, msg = runCLI("bands", in, "-o", out, "--engine", "cpu", "--weighting", "Z", "--calibrator", calRec); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if v, want := band(out), -20+94+20*math.Log10(2); math.Abs(v-want) > 0.02 || !strings.Contains(msg, "calibrator calibrator.wav") {
		t.Errorf("with a calibrator: 1 kHz band %.3f, want %.3f; note %q", v, want, msg)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--cal-dbspl", "94", "--calibrator", calRec}, "give one level calibration"},
		{[]string{"--cal", filepath.Join(dir, "none.txt")}, "--cal"},
	} {
		code, msg := runCLI(append([]string{"bands", in, "-o", out, "--engine", "cpu"}, c.args...)...)
		if code != 2 || !strings.Contains(msg, c.msg) {
			t.Errorf("%v: exit %d %q, want 2 %q", c.args, code, msg, c.msg)
		}
	}
}

// TestLevelsCalibrated: `prism levels --cal-dbspl 100` keeps the dBFS
// keys and adds the same levels in dB SPL (a −20 dBFS sine: 80.00) and
// the calibration; without one the dB SPL keys are absent; a microphone
// response is refused (it does not apply to broadband levels).
func TestLevelsCalibrated(t *testing.T) {
	const fs = 48000
	in := filepath.Join(t.TempDir(), "tone.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{apptest.Tone(4*fs, fs, 997, 0.1)})
	code, out, msg := runOut("levels", in, "--json", "--cal-dbspl", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var j struct {
		Calibration string `json:"calibration"`
		Channels    []struct {
			RMS      float64  `json:"rms_dbfs"`
			RMSSPL   *float64 `json:"rms_dbspl"`
			TP       float64  `json:"true_peak_dbtp"`
			TPSPL    *float64 `json:"true_peak_dbspl"`
			SPeak    float64  `json:"sample_peak_dbfs"`
			SPeakSPL *float64 `json:"sample_peak_dbspl"`
		} `json:"channels"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	c := j.Channels[0]
	if c.RMSSPL == nil || math.Abs(*c.RMSSPL-80) > 0.005 || math.Abs(*c.RMSSPL-c.RMS-100) > 1e-3 ||
		c.TPSPL == nil || math.Abs(*c.TPSPL-c.TP-100) > 1e-3 || c.SPeakSPL == nil || math.Abs(*c.SPeakSPL-c.SPeak-100) > 1e-3 ||
		j.Calibration != "full-scale sine = 100.00 dB SPL" {
		t.Errorf("calibrated levels: %s", out)
	}
	if code, out, _ = runOut("levels", in, "--json"); code != 0 || strings.Contains(out, "dbspl") || strings.Contains(out, "calibration") {
		t.Errorf("uncalibrated (exit %d): %s", code, out)
	}
	if code, out, _ = runOut("levels", in, "--cal-dbspl", "100"); code != 0 || !strings.Contains(out, "80.00 dB SPL") {
		t.Errorf("text (exit %d): %s", code, out)
	}
	if code, msg := runCLI("levels", in, "--cal", in); code != 2 || !strings.Contains(msg, "not broadband levels") {
		t.Errorf("--cal on levels: exit %d %q", code, msg)
	}
}
