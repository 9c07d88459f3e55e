package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestCaptureTransferGenerator: prism capture --transfer on the generator
// (periodic pink noise, the same period on every channel, a rectangular
// window of one period: the exact transfer function between any two
// channels is 1) writes prism transfer's CSV with its exact header,
// 0 dB, 0° and γ² 1 at every bin with power, and --stats prints the
// statistics with the delay summary (0 samples, polarity 1, mean
// coherence 1); with two measurement channels the names get _chC.
func TestCaptureTransferGenerator(t *testing.T) {
	for _, c := range []struct {
		channels, header string
	}{
		{"1", "freq_hz,magnitude_db,phase_deg,coherence"},
		{"1,2", "freq_hz,magnitude_db_ch1,phase_deg_ch1,coherence_ch1,magnitude_db_ch2,phase_deg_ch2,coherence_ch2"},
	} {
		out := filepath.Join(t.TempDir(), "h.csv")
		var stdout, stderr bytes.Buffer
		code := Run([]string{"capture", "--transfer", "--ref-channel", "0", "--channels", c.channels, "-o", out,
			"--generator", "pinkperiodic:4096:-20", "--fft", "4096", "--hop", "1024", "--window", "rect", "--frames", "8",
			"--seconds", "0.5", "--engine", "cpu", "--quiet", "--stats"}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("--channels %s: exit %d: %s", c.channels, code, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if lines[0] != c.header || len(lines) != 1+2049 {
			t.Fatalf("--channels %s: header %q, %d lines", c.channels, lines[0], len(lines))
		}
		for k, line := range lines[2 : len(lines)-1] { // bins 1…N/2−1: DC and Nyquist hold no power
			f := strings.Split(line, ",")
			hz, _ := strconv.ParseFloat(f[0], 64)
			if want := float64(k+1) * 48000 / 4096; math.Abs(hz-want) > 1e-9 {
				t.Fatalf("bin %d at %v Hz, want %v", k+1, hz, want)
			}
			for i := 1; i+2 < len(f); i += 3 {
				m, _ := strconv.ParseFloat(f[i], 64)
				p, _ := strconv.ParseFloat(f[i+1], 64)
				g, _ := strconv.ParseFloat(f[i+2], 64)
				if math.Abs(m) > 0.01 || math.Abs(p) > 0.1 || g < 0.999 {
					t.Fatalf("--channels %s: line %q: want 0 dB, 0°, γ² 1", c.channels, line)
				}
			}
		}
		var st map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
			t.Fatalf("--stats: %v: %s", err, stdout.String())
		}
		if st["dropped_input_frames"] == nil || st["frames"] == nil {
			t.Errorf("--stats without the capture's statistics: %v", st)
		}
		if c.channels == "1" {
			if st["delay_samples"] != 0.0 || st["delay_ms"] != 0.0 || st["polarity"] != 1.0 || math.Abs(st["mean_coherence"].(float64)-1) > 1e-4 {
				t.Errorf("--stats delay summary: %v", st)
			}
		} else if d, ok := st["delay_samples"].([]any); !ok || len(d) != 2 || d[0] != 0.0 || d[1] != 0.0 {
			t.Errorf("--stats delay summary for two channels: %v", st)
		}
	}
}

// TestCaptureTransferNPYAndPNG: the NPY holds prism transfer's columns
// (bins × [freq_hz, then magnitude_db, phase_deg, coherence per channel])
// with the same values, and the PNG is written.
func TestCaptureTransferNPYAndPNG(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"h.npy", "h.png"} {
		out := filepath.Join(dir, name)
		code, msg := runCLI("capture", "--transfer", "--channels", "1", "-o", out, "--generator", "pinkperiodic:4096:-20",
			"--fft", "4096", "--hop", "2048", "--window", "rect", "--frames", "4", "--seconds", "0.5", "--engine", "cpu", "--quiet")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, msg)
		}
	}
	rows, cols, vals := apptest.ReadNPY(t, filepath.Join(dir, "h.npy"))
	if rows != 2049 || cols != 4 {
		t.Fatalf("NPY %d×%d, want 2049×4", rows, cols)
	}
	for k := 1; k < rows-1; k++ {
		r := vals[k*cols : (k+1)*cols]
		if math.Abs(float64(r[0])-float64(k)*48000/4096) > 1e-3 || math.Abs(float64(r[1])) > 0.01 || math.Abs(float64(r[2])) > 0.1 || r[3] < 0.999 {
			t.Fatalf("NPY row %d: %v", k, r)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "h.png")); err != nil || len(b) < 8 || string(b[1:4]) != "PNG" {
		t.Errorf("PNG: %d bytes, %v", len(b), err)
	}
}

// TestCaptureTransferFlags: bad --transfer arguments are usage errors
// (exit 2), and --channels without --transfer is still a count.
func TestCaptureTransferFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.csv")
	for _, args := range [][]string{
		{"--channels", "0"},
		{"--channels", "x"},
		{"--ref-channel", "-1"},
		{"--average", "median"},
		{"--frames", "0"},
		{"--frames", "257"},
		{"--average-time", "-1"},
		{"--average-time", "NaN"},
		{"--average-time", "1", "--frames", "16"},
	} {
		a := append([]string{"capture", "--transfer", "-o", out, "--generator", "white:-20", "--seconds", "0.2", "--engine", "cpu"}, args...)
		if code, msg := runCLI(a...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, msg)
		}
	}
	if code, msg := runCLI("capture", "-o", out, "--channels", "1,2", "--generator", "white:-20", "--seconds", "0.2"); code != 2 || !strings.Contains(msg, "--channels") {
		t.Errorf("--channels 1,2 without --transfer: exit %d (%s), want 2", code, msg)
	}
}

// TestCaptureTransferAverageTime: --average-time τ selects the
// exponential average with the weight per frame 1 − e^(−hop/(rate·τ))
// (computed here), the FIFO otherwise; the delay is re-found after every
// batch either way.
func TestCaptureTransferAverageTime(t *testing.T) {
	for _, c := range []struct {
		args      []string
		frames    int
		hop, rate int
		alpha     float64
	}{
		{[]string{"--transfer"}, 32, 1024, 48000, 0},
		{[]string{"--transfer", "--frames", "64"}, 64, 128, 192000, 0},
		{[]string{"--transfer", "--average-time", "0.5"}, 0, 1024, 48000, 1 - math.Exp(-1024.0/24000)},
		{[]string{"--transfer", "--average-time", "2"}, 0, 128, 192000, 1 - math.Exp(-128.0/384000)},
	} {
		fs := flag.NewFlagSet("capture", flag.ContinueOnError)
		var tf captureTransferFlags
		tf.register(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := tf.check(encode.FormatCSV); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		s := tf.settings(analysis.AnalyzeOptions{FFT: 4096, Hop: c.hop}, nil, c.rate)
		if s.Frames != c.frames || math.Abs(s.ExpAlpha-c.alpha) > 1e-12*c.alpha || !s.Track || s.TrackEvery != 1 {
			t.Errorf("%v: Frames %d, ExpAlpha %v, Track %v every %d; want %d, %v, every batch", c.args, s.Frames, s.ExpAlpha, s.Track, s.TrackEvery, c.frames, c.alpha)
		}
	}
}
