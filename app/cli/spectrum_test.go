package cli

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// readSpectrumCSV returns the header and the columns of a spectrum CSV.
func readSpectrumCSV(t *testing.T, path string) (string, [][]float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var cols [][]float64
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if cols == nil {
			cols = make([][]float64, len(f))
		}
		for i, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			cols[i] = append(cols[i], v)
		}
	}
	return lines[0], cols
}

// meanDB is 10·log10 of the mean power of dB values.
func meanDB(db []float64) float64 {
	s := 0.0
	for _, v := range db {
		s += math.Pow(10, v/10)
	}
	return 10 * math.Log10(s/float64(len(db)))
}

// TestSpectrumCLINoiseDensity: white noise of RMS σ reads
// 10·log10(σ²/(fs/2)) dBFS/Hz for several windows and sizes (mean over the
// interior bins: ~190 000 bin-frames, spread ≈ √(ENBW/190000) ≈ 0.4 % =
// 0.02 dB; tolerance 0.1 dB), and the CSV has the contract's header.
func TestSpectrumCLINoiseDensity(t *testing.T) {
	const fs, sigma = 48000, 0.05
	r := rand.New(rand.NewPCG(2, 2))
	x := make([]float32, 4*fs)
	ms := 0.0
	for i := range x {
		x[i] = float32(sigma * r.NormFloat64())
		ms += float64(x[i]) * float64(x[i])
	}
	ms /= float64(len(x))
	dir := t.TempDir()
	in := filepath.Join(dir, "noise.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{x})
	want := 10 * math.Log10(ms/(fs/2))
	for _, c := range []struct{ window, fft string }{{"hann", "1024"}, {"flattop", "8192"}, {"rect", "4096"}, {"kaiser:12", "2048"}} {
		out := filepath.Join(dir, "n.csv")
		code, _, msg := runOut("spectrum", in, "-o", out, "--unit", "dbfs-hz", "--window", c.window, "--fft", c.fft, "--engine", "cpu", "--quiet")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, msg)
		}
		head, cols := readSpectrumCSV(t, out)
		if head != "freq_hz,level" {
			t.Fatalf("header %q", head)
		}
		n, _ := strconv.Atoi(c.fft)
		if len(cols[0]) != n/2+1 || cols[0][1] != fs/float64(n) {
			t.Fatalf("%d rows, bin 1 at %v Hz", len(cols[0]), cols[0][1])
		}
		if got := meanDB(cols[1][1 : n/2]); math.Abs(got-want) > 0.1 {
			t.Errorf("%v: noise density %.3f dBFS/Hz, want %.3f", c, got, want)
		}
	}
}

// TestSpectrumCLISineAndCalibration: a −20 dBFS sine at 1 kHz: the summary
// names its frequency, level and note; dbspl with --cal-dbspl 120 reads
// 100 dB SPL at the peak; a microphone file of +3 dB at 1 kHz lowers it to
// 97; a calibrator recording sets the offset; --channel all gives one column per channel; a spectrum used as its
// own reference gives zero difference; NPY and PNG outputs are written.
func TestSpectrumCLISineAndCalibration(t *testing.T) {
	const fs = 48000
	dir := t.TempDir()
	in := filepath.Join(dir, "sine.wav")
	tone := apptest.Tone(2*fs, fs, 1000, 0.1)
	apptest.WriteWAV(t, in, fs, [][]float32{tone, apptest.Tone(2*fs, fs, 500, 0.01)})
	out := filepath.Join(dir, "s.csv")
	code, stdout, msg := runOut("spectrum", in, "-o", out, "--channel", "0", "--fft", "8192", "--window", "flattop", "--engine", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if !strings.HasPrefix(stdout, "peak 1000.000 Hz -20.00 dBFS (B5 +21 cents)") {
		t.Errorf("summary %q", stdout)
	}
	_, cols := readSpectrumCSV(t, out)
	peak := func(c []float64) float64 {
		m := math.Inf(-1)
		for _, v := range c {
			m = max(m, v)
		}
		return m
	}
	if p := peak(cols[1]); math.Abs(p+20) > 0.02 { // flat-top: ≤ 0.01 dB scallop
		t.Errorf("peak bin %.3f dBFS, want -20", p)
	}
	// A calibrator recording: 1 kHz at −30 dBFS is 94 dB SPL, so the
	// −20 dBFS tone reads 104.
	calib := filepath.Join(dir, "calibrator.wav")
	apptest.WriteWAV(t, calib, fs, [][]float32{apptest.Tone(fs, fs, 1000, math.Pow(10, -1.5))})
	mic := filepath.Join(dir, "mic.txt")
	os.WriteFile(mic, []byte("\"Sens Factor =-1dB\"\n* Hz dB\n20 0\n1000 3\n20000 3\n"), 0o644)
	for _, c := range []struct {
		args []string
		want float64
	}{
		{[]string{"--unit", "dbspl", "--cal-dbspl", "120"}, 100},
		{[]string{"--unit", "dbspl", "--cal-dbspl", "120", "--cal", mic}, 97},
		{[]string{"--cal", mic}, -23},
		{[]string{"--unit", "dbspl", "--calibrator", calib}, 94 + 10},
		{[]string{"--unit", "dbspl", "--calibrator", calib, "--calibrator-dbspl", "114"}, 114 + 10},
	} {
		args := append([]string{"spectrum", in, "-o", out, "--channel", "0", "--window", "flattop", "--engine", "cpu", "--quiet"}, c.args...)
		if code, _, msg := runOut(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, msg)
		}
		_, cols := readSpectrumCSV(t, out)
		if p := peak(cols[1]); math.Abs(p-c.want) > 0.02 {
			t.Errorf("%v: peak %.3f, want %v", c.args, p, c.want)
		}
	}
	// --channel all, then the file as its own reference.
	all := filepath.Join(dir, "all.csv")
	if code, _, msg := runOut("spectrum", in, "-o", all, "--channel", "all", "--engine", "cpu", "--quiet"); code != 0 {
		t.Fatalf("all: exit %d: %s", code, msg)
	}
	head, cols := readSpectrumCSV(t, all)
	if head != "freq_hz,ch0,ch1" || math.Abs(peak(cols[2])+40) > 1.5 { // Hann: ≤ 1.42 dB scallop
		t.Errorf("all: header %q, ch1 peak %.2f", head, peak(cols[2]))
	}
	ref := filepath.Join(dir, "ref.csv")
	runOut("spectrum", in, "-o", ref, "--channel", "1", "--engine", "cpu", "--quiet")
	diff := filepath.Join(dir, "diff.csv")
	if code, _, msg := runOut("spectrum", in, "-o", diff, "--channel", "1", "--ref", ref, "--engine", "cpu", "--quiet"); code != 0 {
		t.Fatalf("ref: exit %d: %s", code, msg)
	}
	_, cols = readSpectrumCSV(t, diff)
	for k, v := range cols[1] {
		if math.Abs(v) > 1e-3 && !math.IsNaN(v) { // CSV keeps 4 decimals
			t.Fatalf("difference to itself at bin %d: %v", k, v)
		}
	}
	npy := filepath.Join(dir, "s.npy")
	if code, _, msg := runOut("spectrum", in, "-o", npy, "--fft", "1024", "--channel", "all", "--engine", "cpu", "--quiet"); code != 0 {
		t.Fatalf("npy: exit %d: %s", code, msg)
	}
	if rows, ncols, vals := apptest.ReadNPY(t, npy); rows != 513 || ncols != 3 || vals[3] != fs/1024.0 {
		t.Errorf("npy %d×%d, row 1 freq %v", rows, ncols, vals[3])
	}
	img := filepath.Join(dir, "s.png")
	if code, _, msg := runOut("spectrum", in, "-o", img, "--channel", "all", "--engine", "cpu", "--quiet"); code != 0 {
		t.Fatalf("png: exit %d: %s", code, msg)
	}
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p, err := png.Decode(f); err != nil || p.Bounds().Dx() < 1200 {
		t.Errorf("png: %v", err)
	}
}

func TestSpectrumCLIErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(9000, 8000, 500, 0.5)})
	out := filepath.Join(dir, "o.csv")
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("* mic\n20 0\n10 1\n"), 0o644)
	badRef := filepath.Join(dir, "bad.csv")
	os.WriteFile(badRef, []byte("hz,db\n1,2\n"), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{in}, "-o OUT.csv"},
		{[]string{in, "-o", filepath.Join(dir, "o.txt")}, "-o OUT.csv"},
		{[]string{in, "-o", out, "--unit", "dbspl"}, "needs --cal-dbspl"},
		{[]string{in, "-o", out, "--cal-dbspl", "94"}, "needs --unit dbspl"},
		{[]string{in, "-o", out, "--unit", "dbspl", "--cal-dbspl", "94", "--calibrator", in}, "give one level calibration"},
		{[]string{in, "-o", out, "--unit", "dbspl", "--calibrator", in}, "not a calibrator recording"},
		{[]string{in, "-o", out, "--unit", "dbspl", "--cal-dbspl", "300"}, "--cal-dbspl"},
		{[]string{in, "-o", out, "--unit", "db"}, "--unit"},
		{[]string{in, "-o", out, "--overlap", "100"}, "--overlap"},
		{[]string{in, "-o", out, "--fft", "1000"}, "--fft"},
		{[]string{in, "-o", out, "--window", "nope"}, "--window"},
		{[]string{in, "-o", out, "--channel", "x"}, "--channel"},
		{[]string{in, "-o", out, "--channel", "3", "--engine", "cpu"}, "no channel 3"},
		{[]string{in, "-o", out, "--cal", bad}, "bad.txt line 3"},
		{[]string{in, "-o", out, "--ref", badRef}, "header"},
		{[]string{in, "-o", out, "--fft", "16384", "--engine", "cpu"}, "fewer than one frame"},
		{[]string{filepath.Join(dir, "none.wav"), "-o", out, "--engine", "cpu"}, "no such file"},
	} {
		code, _, msg := runOut(append([]string{"spectrum"}, c.args...)...)
		if code != 2 || !strings.Contains(msg, c.msg) || !strings.HasPrefix(msg, "prism: ") {
			t.Errorf("%v: exit %d %q, want 2 %q", c.args, code, msg, c.msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run left its output")
	}
}

// TestSpectrumDensityReference: white noise's density in dbfs-hz, summed
// over the band, reads its mean square re 1 — 3.01 dB below its level in
// full-scale-sine dBFS (prism bands, Z weighting) — and the help says so
// beside the unit.
func TestSpectrumDensityReference(t *testing.T) {
	const fs = 8000
	r := rand.New(rand.NewPCG(3, 3))
	x := make([]float32, 8*fs)
	ms := 0.0
	for i := range x {
		v := 0.1 * r.NormFloat64()
		ms += v * v
		x[i] = float32(v)
	}
	ms /= float64(len(x))
	dir := t.TempDir()
	in, csv := filepath.Join(dir, "noise.wav"), filepath.Join(dir, "s.csv")
	apptest.WriteWAV(t, in, fs, [][]float32{x})
	if code, msg := runCLI("spectrum", in, "-o", csv, "--unit", "dbfs-hz", "--fft", "1024", "--engine", "cpu", "--quiet"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	raw, _ := os.ReadFile(csv)
	sum, binHz := 0.0, float64(fs)/1024
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		var hz, db float64
		fmt.Sscanf(line, "%g,%g", &hz, &db)
		sum += math.Pow(10, db/10) * binHz
	}
	if got, want := 10*math.Log10(sum), 10*math.Log10(ms); math.Abs(got-want) > 0.1 {
		t.Errorf("dbfs-hz summed: %.2f dB, want the mean square re 1: %.2f dB (full-scale-sine dBFS: %.2f)", got, want, want+3.0103)
	}
	var out, errb bytes.Buffer
	Run([]string{"spectrum", "-h"}, &out, &errb)
	if h := errb.String(); !strings.Contains(h, "mean square of 1") || !strings.Contains(h, "3.01 dB below prism bands") {
		t.Errorf("spectrum -h does not say the dbfs-hz reference:\n%s", h)
	}
}
