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
	code, msg = runCLI("bands", in, "-o", filepath.Join(dir, "c.csv"), "--fraction", "24", "--engine", "cpu")
	if code != 0 || !strings.Contains(msg, "under_resolved") {
		t.Errorf("fraction 24: exit %d, %q", code, msg)
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
