package pitchcmd

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/internal/message"
)

func run(args ...string) (int, string) {
	var out, errb bytes.Buffer
	code := Run(args, &out, message.NewSafeWriter(&errb, append([]string{"pitch"}, args...)))
	return code, errb.String()
}

// rows reads the CSV: its header and its rows as numbers.
func rows(t *testing.T, path string) (string, [][3]float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var r [][3]float64
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 3 {
			t.Fatalf("row %q", l)
		}
		var v [3]float64
		for i := range f {
			if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				t.Fatalf("row %q: %v", l, err)
			}
		}
		r = append(r, v)
	}
	return lines[0], r
}

// A 2-channel file, 0.5 s of a 220 Hz sine then 0.5 s of silence on
// channel 0 and a 330 Hz sine throughout on channel 1: the header is the
// contract's; rows 10 ms apart with time_s the frame centre; channel 0's
// rows read 220 Hz (0.1 %) in the tone and NaN (text "NaN") in the
// silence; --channel 1 reads 330 Hz everywhere.
func TestPitchCSV(t *testing.T) {
	const fs = 48000
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.csv")
	a := apptest.Tone(fs, fs, 220, 0.5)
	clear(a[fs/2:])
	apptest.WriteWAV(t, in, fs, [][]float32{a, apptest.Tone(fs, fs, 330, 0.5)})
	if code, msg := run(in, "-o", out, "--channel", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	header, r := rows(t, out)
	if header != "time_s,f0_hz,confidence" {
		t.Fatalf("header %q", header)
	}
	frame := 2*(fs/50+1) + fs/50 // W + 2(τmax+1) at --fmin 50
	if want := (fs-frame)/480 + 1; len(r) != want {
		t.Fatalf("%d rows, want %d", len(r), want)
	}
	if math.Abs(r[0][0]-float64(frame)/2/fs) > 1e-6 || math.Abs(r[1][0]-r[0][0]-0.01) > 1e-6 {
		t.Errorf("times %v, %v: want the first frame's centre and 10 ms steps", r[0][0], r[1][0])
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), ",NaN,") {
		t.Errorf("no NaN f0 in the silence")
	}
	half := float64(frame) / 2 / fs
	for _, v := range r {
		switch {
		case v[0]+half < 0.5 && (math.Abs(v[1]/220-1) > 0.001 || v[2] < 0.9):
			t.Errorf("tone at %.3f s: %v Hz, confidence %v", v[0], v[1], v[2])
		case v[0]-half > 0.5 && !math.IsNaN(v[1]):
			t.Errorf("silence at %.3f s: %v Hz", v[0], v[1])
		}
	}
	if code, msg := run(in, "-o", out, "--channel", "1", "--hop", "20ms", "--fmin", "100", "--fmax", "1000"); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	_, r = rows(t, out)
	for _, v := range r {
		if math.Abs(v[1]/330-1) > 0.001 {
			t.Fatalf("channel 1 at %.3f s: %v Hz, want 330", v[0], v[1])
		}
	}
}

// Usage errors exit 2 with a prism: message and write nothing.
func TestPitchErrors(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.csv")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(8000, 8000, 200, 0.5)})
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{in}, "-o OUT.csv is required"},
		{[]string{in, "-o", filepath.Join(dir, "out.txt")}, "-o OUT.csv is required"},
		{[]string{"-o", out}, "want one input file"},
		{[]string{in, "-o", out, "--fmax", "2500"}, "quarter of the sample rate"},
		{[]string{in, "-o", out, "--fmin", "300", "--fmax", "200"}, "want 0 < min < max"},
		{[]string{in, "-o", out, "--hop", "0s"}, "--hop 0s"},
		{[]string{in, "-o", out, "--channel", "3"}, "no channel 3"},
		{[]string{in, "-o", out, "--channel", "left"}, "--channel"},
		{[]string{filepath.Join(dir, "missing.wav"), "-o", out}, "missing.wav"},
	} {
		code, msg := run(c.args...)
		if code != kit.ExitUsage || !strings.HasPrefix(msg, "prism: ") || !strings.Contains(msg, c.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, msg, kit.ExitUsage, c.msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: wrote %s", c.args, out)
		}
	}
}
