package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// linesOf is stderr's lines, without the last newline.
func linesOf(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// TestNamesQuoted: a file name holding a newline and a tab cannot forge a
// line: every line of stderr starts with "prism:" and the name is printed
// quoted, as Go quotes it, in the messages of the command line and of the
// packages under it; a name without control characters is printed as it
// is.
func TestNamesQuoted(t *testing.T) {
	dir := t.TempDir()
	forged := "x\nprism: warning: forged\t.wav"
	in := filepath.Join(dir, forged)
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(100, 8000, 500, 0.5)}) // shorter than a frame
	for _, args := range [][]string{
		{"analyze", in, "-o", filepath.Join(dir, "o.npy"), "--fft", "256", "--engine", "cpu", "--quiet"},
		{"levels", filepath.Join(dir, "missing\n.wav")},
		{"filter", in, "-o", filepath.Join(dir, "o\t.wav"), "--band", "lowpass:100", "--engine", "cpu"},
	} {
		_, msg := runCLI(args...)
		for _, l := range linesOf(msg) {
			if !strings.HasPrefix(l, "prism: ") || strings.Contains(l, "\t") {
				t.Errorf("%q: line %q: not one prism: line", args, l)
			}
		}
		if strings.Contains(msg, "forged") && !strings.Contains(msg, `\nprism: warning: forged\t`) {
			t.Errorf("%q: the name is not quoted: %q", args, msg)
		}
	}
	code, msg := runCLI("analyze", in, "-o", filepath.Join(dir, "o.npy"), "--fft", "256", "--engine", "cpu", "--quiet")
	if want := `"` + strings.ReplaceAll(strings.ReplaceAll(in, "\n", `\n`), "\t", `\t`) + `"`; code != ExitUsage || !strings.Contains(msg, want) {
		t.Errorf("exit %d, %q; want the name as %s", code, msg, want)
	}
	good := filepath.Join(dir, "y\tz.wav")
	apptest.WriteWAV(t, good, 8000, [][]float32{apptest.Tone(4096, 8000, 500, 0.5)})
	other := filepath.Join(dir, "w.wav")
	apptest.WriteWAV(t, other, 8000, [][]float32{apptest.Tone(4096, 8000, 500, 0.5)})
	code, msg = runCLI("analyze", good, other, "-o", filepath.Join(dir, "out")+"/", "--format", "npy", "--fft", "256", "--engine", "cpu")
	if code != ExitOK || !strings.Contains(msg, `out/y\tz.npy"`) || strings.Contains(msg, "\t") {
		t.Errorf("a batch: exit %d, %q; want the derived output quoted", code, msg)
	}
	plain := filepath.Join(dir, "plain name.wav")
	if _, msg := runCLI("levels", plain); !strings.Contains(msg, plain) || strings.Contains(msg, `"`+plain) {
		t.Errorf("a plain name: %q, want it unquoted", msg)
	}
}

// TestUnknownCommand: one line naming the command and where help is,
// exit 2.
func TestUnknownCommand(t *testing.T) {
	code, msg := runCLI("nosuch")
	if code != ExitUsage || msg != "prism: unknown command \"nosuch\" (see prism help)\n" {
		t.Errorf("exit %d, %q", code, msg)
	}
}

// TestBadArgumentsExitUsage: arguments that name nothing usable are bad
// usage (exit 2), with a message naming the flag: an audio device that
// does not exist, a bench size that is no transform size, a NaN length,
// a filter transition of zero.
func TestBadArgumentsExitUsage(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(8000, 8000, 500, 0.5)})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capture", "--device", "nonexistent-device-xyz", "-o", filepath.Join(dir, "c.npy"), "--seconds", "1"}, "no input device"},
		{[]string{"bench", "--engine", "cpu", "--sizes", "3"}, `"3"`},
		{[]string{"capture", "--seconds", "NaN", "-o", filepath.Join(dir, "c.npy")}, "--seconds"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "f.wav"), "--band", "lowpass:1000", "--transition", "0"}, "--transition"},
		{[]string{"filter", in, "-o", filepath.Join(dir, "f.wav"), "--band", "lowpass:1000", "--transition", "-1"}, "--transition"},
	} {
		code, msg := runCLI(c.args...)
		if code != ExitUsage || !strings.Contains(msg, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 naming %s", c.args, code, msg, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "f.wav")); err == nil {
		t.Error("filter --transition 0 wrote its output")
	}
}
