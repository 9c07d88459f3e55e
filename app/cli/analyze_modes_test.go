package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestAnalyzeModes: --mode multires and reassigned (of one size, and on
// the multi-resolution grid with --sizes) write an NPY with its
// sidecar (freq_hz a centre per column, hop_s) and a CSV whose header
// holds the same centres; --mode stft is today's analysis byte for byte.
func TestAnalyzeModes(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(16000, 8000, 440, 0.5)})
	for _, mode := range [][]string{{"--mode", "multires", "--sizes", "2048,1024,512", "--hop", "256"}, {"--mode", "reassigned", "--fft", "512", "--squeeze"},
		{"--mode", "reassigned", "--sizes", "2048,1024,512", "--hop", "256"}} {
		npy := filepath.Join(dir, mode[1]+mode[3]+".npy")
		if code, msg := runCLI(append([]string{"analyze", in, "-o", npy, "--engine", "cpu", "--quiet"}, mode...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", mode, code, msg)
		}
		rows, cols, _ := apptest.ReadNPY(t, npy)
		var sc struct {
			FreqHz []float64 `json:"freq_hz"`
			HopS   float64   `json:"hop_s"`
			Mode   string    `json:"mode"`
		}
		b, err := os.ReadFile(npy + ".json")
		if err != nil || json.Unmarshal(b, &sc) != nil || len(sc.FreqHz) != cols || sc.Mode != mode[1] || rows < 10 {
			t.Fatalf("%v: %d×%d NPY, sidecar %v %.200s", mode, rows, cols, err, b)
		}
		csv := filepath.Join(dir, mode[1]+mode[3]+".csv")
		if code, msg := runCLI(append([]string{"analyze", in, "-o", csv, "--engine", "cpu", "--quiet"}, mode...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", mode, code, msg)
		}
		c, _ := os.ReadFile(csv)
		head, _, _ := strings.Cut(string(c), "\n")
		if fs := strings.Split(head, ","); len(fs) != cols+1 || fs[0] != "time_s" || fs[cols] != apptest.FormatFloat(sc.FreqHz[cols-1]) {
			t.Errorf("%v: CSV header %.100s… (%d fields, want %d)", mode, head, len(fs), cols+1)
		}
	}
	plain, stft := filepath.Join(dir, "plain.npy"), filepath.Join(dir, "stft.npy")
	runCLI("analyze", in, "-o", plain, "--engine", "cpu", "--quiet")
	runCLI("analyze", in, "-o", stft, "--engine", "cpu", "--quiet", "--mode", "stft")
	a, _ := os.ReadFile(plain)
	b, _ := os.ReadFile(stft)
	if len(a) < 1000 || !bytes.Equal(a, b) {
		t.Errorf("--mode stft: %d bytes, today's %d, equal %v", len(b), len(a), bytes.Equal(a, b))
	}
}

func TestAnalyzeModeErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(4000, 8000, 440, 0.5)})
	out := filepath.Join(dir, "o.npy")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--mode", "wavelet"}, "--mode: unknown mode"},
		{[]string{"--mode", "multires", "--bins-per-octave", "24"}, "--bins-per-octave applies to --mode vqt only"},
		{[]string{"--mode", "vqt", "--sizes", "1024,512"}, "--sizes applies to --mode multires or reassigned only"},
		{[]string{"--mode", "multires", "--squeeze"}, "--squeeze applies to --mode reassigned only"},
		{[]string{"--fmin", "30"}, "--fmin applies to --mode vqt only"},
		{[]string{"--mode", "vqt", "--bins-per-octave", "8"}, "--bins-per-octave 8: want 12…96"},
		{[]string{"--mode", "vqt", "--fmin", "-1"}, "want fmin > 0"},
		{[]string{"--mode", "reassigned", "--threshold", "0"}, "--threshold 0"},
		{[]string{"--mode", "multires", "--sizes", "2048,x"}, "--sizes \"2048,x\""},
		{[]string{"--mode", "multires", "--sizes", "1024,2048"}, "smaller than the one before"},
		{[]string{"--mode", "multires", "--sizes", "8192,1024"}, "fewer than one frame"},
	} {
		code, msg := runCLI(append([]string{"analyze", in, "-o", out, "--engine", "cpu", "--quiet"}, c.args...)...)
		if code != 2 || !strings.Contains(msg, c.msg) || !strings.HasPrefix(msg, "prism: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, msg, c.msg)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}
