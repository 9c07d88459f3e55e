package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestFilterDelay: an impulse comes out centred where it went in (the
// linear-phase delay compensated) and the output keeps the input's format
// with --format input.
func TestFilterDelay(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "click.wav")
	x := make([]float32, 20000)
	x[12345] = 0.5
	apptest.WriteWAV(t, in, 48000, [][]float32{x})
	out := filepath.Join(dir, "o.wav")
	code, msg := runCLI("filter", in, "-o", out, "--band", "lowpass:5000", "--engine", "cpu", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	_, y := apptest.ReadAll(t, out)
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
	apptest.WriteWAV(t, in, 48000, [][]float32{apptest.Tone(4800, 48000, 440, 0.5)})
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
