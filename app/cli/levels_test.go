package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

func runOut(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestLevelsCLI: EBU Tech 3341 case 1 (stereo 1 kHz at −23 dBFS, 20 s)
// reads −23.0 ± 0.1 LUFS momentary, short-term and integrated, LRA 0;
// every channel's RMS reads −23.00 (AES17) and its peaks −23.0 (the
// samples of a 1 kHz sine at 48 kHz fall within 0.02 dB of its crest).
func TestLevelsCLI(t *testing.T) {
	const fs = 48000
	x := apptest.Tone(20*fs, fs, 1000, math.Pow(10, -23.0/20))
	in := filepath.Join(t.TempDir(), "tech3341-1.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{x, x})
	code, out, msg := runOut("levels", in, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var j struct {
		Channels []struct {
			SamplePeak *float64 `json:"sample_peak_dbfs"`
			TruePeak   *float64 `json:"true_peak_dbtp"`
			RMS        *float64 `json:"rms_dbfs"`
		} `json:"channels"`
		Integrated *float64 `json:"integrated_lufs"`
		Range      *float64 `json:"loudness_range_lu"`
		Momentary  *float64 `json:"momentary_max_lufs"`
		ShortTerm  *float64 `json:"short_term_max_lufs"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	check := func(what string, got *float64, want, tol float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > tol {
			t.Errorf("%s = %v, want %v ± %v", what, deref(got), want, tol)
		}
	}
	check("integrated", j.Integrated, -23, 0.1)
	check("momentary max", j.Momentary, -23, 0.1)
	check("short-term max", j.ShortTerm, -23, 0.1)
	check("range", j.Range, 0, 0.1)
	if len(j.Channels) != 2 {
		t.Fatalf("%d channels", len(j.Channels))
	}
	for _, c := range j.Channels {
		check("rms", c.RMS, -23, 0.005)
		check("sample peak", c.SamplePeak, -23, 0.02)
		check("true peak", c.TruePeak, -23, 0.01)
	}
	code, out, _ = runOut("levels", in)
	if code != 0 || !strings.Contains(out, "channel 1: sample peak -23.0") || !strings.Contains(out, "loudness range 0.00 LU") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
}

// TestLevelsCLIShortAndErrors: a file shorter than 3 s has no short-term
// loudness: JSON null, text -inf; bad input exits 2 with a prism: message.
func TestLevelsCLIShortAndErrors(t *testing.T) {
	in := filepath.Join(t.TempDir(), "short.wav")
	apptest.WriteWAV(t, in, 48000, [][]float32{apptest.Tone(48000, 48000, 1000, 0.5)})
	code, out, msg := runOut("levels", in, "--json")
	if code != 0 || !strings.Contains(out, `"short_term_max_lufs": null`) || strings.Contains(out, `"momentary_max_lufs": null`) {
		t.Errorf("exit %d %s\n%s", code, msg, out)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"levels"}, "want one input file"},
		{[]string{"levels", filepath.Join(t.TempDir(), "none.wav")}, "no such file"},
		{[]string{"levels", in, "--bogus"}, "flag provided but not defined"},
	} {
		code, _, msg := runOut(c.args...)
		if code != 2 || !strings.Contains(msg, c.msg) {
			t.Errorf("%v: exit %d %q, want 2 %q", c.args, code, msg, c.msg)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
