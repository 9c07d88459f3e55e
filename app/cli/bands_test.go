package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

func TestBandsCLI(t *testing.T) {
	in := apptest.GenWAV(t, "sine:1000:-20", 48000, 2)
	dir := t.TempDir()
	out := filepath.Join(dir, "b.csv")
	code, msg := runCLI("bands", in, "-o", out, "--fraction", "3", "--weighting", "C", "--engine", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved" || len(lines) != 32 {
		t.Errorf("%d lines, header %q", len(lines), lines[0])
	}
	if !strings.Contains(string(b), "\n1000,1000.0000,891.2509,1122.0185,-20.00,0\n") {
		t.Errorf("no −20.00 dB row for 1 kHz:\n%s", b)
	}
	// a 24th-octave analysis down to 20 Hz cannot resolve the low bands
	// of a 2 s file: the file is the limit, not the transform
	code, msg = runCLI("bands", in, "-o", filepath.Join(dir, "c.csv"), "--fraction", "24", "--engine", "cpu")
	if code != 0 || !strings.Contains(msg, "under_resolved") || !strings.Contains(msg, "65536-point FFT") || !strings.Contains(msg, "longer recording") {
		t.Errorf("fraction 24: exit %d, %q", code, msg)
	}
	// at 96 kHz, 1/48 octave from 20 Hz is measured decimated by 2
	in96 := apptest.GenWAV(t, "sine:1000:-20", 96000, 2)
	code, msg = runCLI("bands", in96, "-o", filepath.Join(dir, "d.csv"), "--fraction", "48", "--max-freq", "2000", "--engine", "cpu")
	if code != 0 || !strings.Contains(msg, "of the signal decimated by 2") {
		t.Errorf("fraction 48 at 96 kHz: exit %d, %q", code, msg)
	}
	// 1 kHz is the upper edge of the band at 993 Hz: half the sine's power
	if b, _ := os.ReadFile(filepath.Join(dir, "d.csv")); !strings.Contains(string(b), "\n993,992.8302,985.7119,1000.0000,-22.8") {
		t.Errorf("fraction 48 at 96 kHz: no −23 dB band at 993 Hz:\n%s", b)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"bands", in, "-o", out, "--fraction", "5"}, 2, "fraction 5"},
		{[]string{"bands", in, "-o", out, "--weighting", "B"}, 2, "weighting"},
		{[]string{"bands", in, "-o", filepath.Join(dir, "x.txt")}, 2, "OUT.csv"},
		{[]string{"bands", filepath.Join(dir, "none.wav"), "-o", out}, 2, "no such file"},
		{[]string{"bands", in, "-o", out, "--min-freq", "21000", "--max-freq", "30000"}, 2, "no 1/3-octave band"},
		{[]string{"bands", in, "-o", out, "--min-freq", "500", "--max-freq", "100"}, 2, "min ≤ max"},
	} {
		code, msg := runCLI(c.args...)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args[1:], code, msg, c.code, c.msg)
		}
	}
}
