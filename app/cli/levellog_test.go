package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestLevelsEveryCLI: `prism levels IN --every 1s --csv` of 2.5 s of a
// 1-kHz sine at −20 dBFS with --cal-dbspl 100 is the fixed header and
// rows at 0, 1 and 2 s, LAeq 80.00 dB SPL after the first (a full-scale
// sine reads 100, A weighting is 0 dB at 1 kHz); its flags' misuse is
// a usage error, as is capture's --levels-every below 0.
func TestLevelsEveryCLI(t *testing.T) {
	const fs = 48000
	in := filepath.Join(t.TempDir(), "tone.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{apptest.Tone(5*fs/2, fs, 1000, math.Pow(10, -20.0/20))})
	code, out, msg := runOut("levels", in, "--every", "1s", "--csv", "--cal-dbspl", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || lines[0] != "time_s,laeq_db,lceq_db,lafmax_db,lasmax_db,lcpeak_db,sample_peak_dbfs,true_peak_dbtp" {
		t.Fatalf("output:\n%s", out)
	}
	for i, start := range []string{"0.000,", "1.000,80.00,80.00,", "2.000,80.00,80.00,"} {
		if !strings.HasPrefix(lines[i+1], start) {
			t.Errorf("row %d %q, want it to start %q", i, lines[i+1], start)
		}
	}
	for _, args := range [][]string{
		{"levels", in, "--every", "1s"},
		{"levels", in, "--csv"},
		{"levels", in, "--every", "1s", "--csv", "--json"},
		{"levels", in, "--every", "1s", "--csv", "--channel", "1"},
		{"capture", "--generator", "sine:1000:-20", "-o", filepath.Join(t.TempDir(), "c.png"), "--levels-every", "-1s"},
	} {
		if code, msg := runCLI(args...); code != ExitUsage || !strings.HasPrefix(msg, "prism: ") {
			t.Errorf("%v: exit %d, %q", args, code, msg)
		}
	}
}
