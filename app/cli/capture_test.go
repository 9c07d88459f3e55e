//go:build cgo

package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
)

// TestCaptureCommand: prism capture end to end from the null sink.
func TestCaptureCommand(t *testing.T) {
	apptest.RequireAudio(t)
	apptest.PlayTones(t, 5, 0.5, 2000, 2000)
	out := filepath.Join(t.TempDir(), "cap.npy")
	code, msg := runCLI("capture", "-o", out, "--seconds", "2", "--engine", "cpu", "--window", "flattop", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	rows, cols, vals := apptest.ReadNPY(t, out)
	rate := captureRate(t)
	if want := int((2*rate-4096)/1024) + 1; rows != want || cols != 2049 {
		t.Fatalf("shape (%d, %d), want (%d, 2049)", rows, cols, want)
	}
	k := int(math.Round(2000 * 4096 / float64(rate)))
	for f := rows / 2; f < rows; f++ {
		pk, lv := apptest.PeakIn(vals[f*cols:(f+1)*cols], 1, cols)
		if max(pk-k, k-pk) > 1 || math.Abs(float64(lv)+6.02) > 0.5 {
			t.Errorf("frame %d: peak bin %d at %.2f dBFS, want bin %d at −6.02", f, pk, lv, k)
		}
	}
}

func captureRate(t *testing.T) int {
	c, err := audio.OpenCapture(audio.CaptureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.SampleRate()
}

func TestCaptureCommandGenerator(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gen.png")
	prof := filepath.Join(t.TempDir(), "cap.pprof")
	code, msg := runCLI("capture", "-o", out, "--seconds", "1", "--generator", "sweep:100:10000:-12:1", "--engine", "cpu", "--quiet", "--width", "200", "--height", "100", "--stats",
		"--cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	// the profile is written and complete: a gzip stream (pprof's format)
	if b, err := os.ReadFile(prof); err != nil || len(b) < 20 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("--cpuprofile: %d bytes, %v", len(b), err)
	}
	if code, _ := runCLI("capture", "-o", out, "--seconds", "1", "--generator", "sine:1000:-6", "--quiet", "--cpuprofile", filepath.Join(t.TempDir(), "no", "dir", "p")); code != 1 {
		t.Errorf("an unwritable profile: exit %d, want 1", code)
	}
	for _, bad := range [][]string{
		{"capture", "-o", out, "--seconds", "0"},
		{"capture", "-o", "x.txt"},
		{"capture", "-o", out, "--generator", "saw:1"},
		{"capture", "-o", out, "--generator", "sine:1000", "--channel", "5"},
	} {
		if code, _ := runCLI(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad[1:], code)
		}
	}
	if code, msg := runCLI("capture", "-o", out, "--device", "no-such-device-xyz", "--seconds", "1"); code != 2 || !strings.Contains(msg, "no input device") {
		t.Errorf("missing device: exit %d %q", code, msg)
	}
}
