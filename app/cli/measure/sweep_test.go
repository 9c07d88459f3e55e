package measure

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestSweepCLI: `prism sweep` writes the sweep — Farina's formula, written
// out here, with its level, fades and silences — and its inverse filter
// beside it, both mono float WAV at --rate that decode as such, and
// prism ir reads its parameters back from it.
func TestSweepCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.wav")
	code, stdout, msg := runOut("sweep", "-o", out, "--from", "100", "--to", "10000", "--seconds", "1", "--rate", "44100", "--level", "-6", "--fade", "20")
	if code != 0 || !strings.Contains(stdout, "s.inverse.wav") {
		t.Fatalf("exit %d: %s%s", code, stdout, msg)
	}
	f, x := apptest.ReadAll(t, out)
	if f.SampleRate != 44100 || f.Channels != 1 || len(x) != int(0.2*44100)+44100+44100 {
		t.Fatalf("%+v, %d samples", f, len(x))
	}
	L := 1 / math.Log(100)
	lead, fade := int(0.2*44100), int(0.02*44100)
	for i := range 44100 {
		tt := float64(i) / 44100
		g := 1.0
		if d := min(i, 44100-1-i); d < fade {
			g = math.Pow(math.Sin(math.Pi/2*float64(d)/float64(fade)), 2)
		}
		want := math.Pow(10, -6.0/20) * g * math.Sin(2*math.Pi*100*L*(math.Exp(tt/L)-1))
		if math.Abs(float64(x[lead+i])-want) > 1e-6 {
			t.Fatalf("sample %d: %g, want %g", lead+i, x[lead+i], want)
		}
	}
	for _, v := range append(x[:lead], x[lead+44100:]...) {
		if v != 0 {
			t.Fatal("the silences are not silent")
		}
	}
	f, inv := apptest.ReadAll(t, filepath.Join(dir, "s.inverse.wav"))
	if f.SampleRate != 44100 || len(inv) != 44100 {
		t.Fatalf("inverse: %+v, %d samples", f, len(inv))
	}
	s, err := readSweepSpec(out)
	if err != nil || s.From != 100 || s.To != 10000 || s.Seconds != 1 || s.Rate != 44100 || s.LevelDB != -6 || s.FadeSec != 0.02 {
		t.Fatalf("read back %+v, %v", s, err)
	}
	// an output whose permission bits forbid writing it (for root too) is
	// refused before any work, and replaced with --force
	if err := os.Chmod(out, 0o444); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(out)
	code, _, msg = runOut("sweep", "-o", out, "--from", "200", "--to", "10000", "--seconds", "1")
	if after, _ := os.ReadFile(out); code != kit.ExitUsage || !strings.Contains(msg, "not writable") || !bytes.Equal(before, after) {
		t.Errorf("read-only output: exit %d: %s", code, msg)
	}
	if code, _, msg := runOut("sweep", "-o", out, "--from", "200", "--to", "10000", "--seconds", "1", "--force", "--quiet"); code != 0 {
		t.Errorf("--force: exit %d: %s", code, msg)
	}
	if s, err := readSweepSpec(out); err != nil || s.From != 200 {
		t.Errorf("after --force: %+v, %v", s, err)
	}
}

// TestSweepCLIBadInput: every bad flag is a "prism: sweep:" line and exit 2.
func TestSweepCLIBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.wav")
	for _, args := range [][]string{
		{"-o", out, "--from", "20", "--to", "20000"},        // no --seconds
		{"--from", "20", "--to", "20000", "--seconds", "1"}, // no -o
		{"-o", filepath.Join(filepath.Dir(out), "s.flac"), "--from", "20", "--to", "20000", "--seconds", "1"},
		{"-o", out, "--from", "2000", "--to", "20", "--seconds", "1"},   // downward
		{"-o", out, "--from", "20", "--to", "30000", "--seconds", "1"},  // above Nyquist
		{"-o", out, "--from", "0", "--to", "20000", "--seconds", "1"},   // 0 Hz
		{"-o", out, "--from", "20", "--to", "20000", "--seconds", "-1"}, // negative length
		{"-o", out, "--from", "20", "--to", "20000", "--seconds", "1", "--level", "3"},
		{"-o", out, "--from", "20", "--to", "20000", "--seconds", "1", "--fade", "600"},
		{"-o", out, "--from", "20", "--to", "20000", "--seconds", "1", "--rate", "10"},
		{"-o", out, "--from", "20", "--to", "20000", "--seconds", "NaN"},
		{"-o", out, "--from", "x", "--to", "20000", "--seconds", "1"},
		{"-o", out, "--from", "20", "--to", "20000", "--seconds", "1", "extra"},
	} {
		code, _, msg := runOut(append([]string{"sweep"}, args...)...)
		if code != kit.ExitUsage || !strings.HasPrefix(msg, "prism: sweep: ") || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused sweep was written")
	}
}
