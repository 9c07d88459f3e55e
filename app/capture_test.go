//go:build cgo

package app

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// requireAudio skips without a sound server and input device (or fails,
// under PRISM_REQUIRE_AUDIO=1 as in CI, where make test starts a
// PulseAudio null sink whose monitor is the default input).
func requireAudio(t *testing.T) {
	t.Helper()
	devs, err := audio.Devices()
	ok := false
	for _, d := range devs {
		ok = ok || (d.DefaultInput && d.MaxInputChannels > 0)
	}
	_, perr := exec.LookPath("paplay")
	_, serr := exec.LookPath("sox")
	if !ok || perr != nil || serr != nil {
		if os.Getenv("PRISM_REQUIRE_AUDIO") == "1" {
			t.Fatalf("audio required (PRISM_REQUIRE_AUDIO=1): input %v (%v), paplay %v, sox %v", ok, err, perr, serr)
		}
		t.Skipf("no audio input or player: %v %v %v", err, perr, serr)
	}
}

// playTones plays a stereo tone (left hz[0], right hz[1]) at amplitude amp
// into the default sink for the test's duration.
func playTones(t *testing.T, seconds float64, amp float64, hz ...float64) {
	t.Helper()
	args := []string{"-q", "-n", "-r", "48000", "-c", "2", "-b", "16", "-t", "wav", "-", "synth", formatFloat(seconds)}
	for _, f := range hz {
		args = append(args, "sine", formatFloat(f))
	}
	args = append(args, "vol", formatFloat(amp))
	sox := exec.Command("sox", args...)
	play := exec.Command("paplay")
	pipe, err := sox.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	play.Stdin = pipe
	if err := play.Start(); err != nil {
		t.Fatal(err)
	}
	if err := sox.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sox.Process.Kill()
		play.Process.Kill()
		sox.Wait()
		play.Wait()
	})
	time.Sleep(300 * time.Millisecond) // the stream reaches the sink
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestCaptureTones: tones played into the null sink are captured through
// PortAudio and analyzed live at the right frequencies (within one bin)
// and levels (within 0.5 dB).
func TestCaptureTones(t *testing.T) {
	requireAudio(t)
	playTones(t, 5, 0.5, 1000, 3000)
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.OpenCapture(audio.CaptureConfig{}) }, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	s := DefaultLiveSettings()
	s.Window = gpufft.Window{Kind: gpufft.FlatTop}
	l, err := NewLive(rec, Engines{Preferred: cpu, CPU: cpu}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runLive(l, 2*time.Second)
	var sp Spectrum
	for c, hz := range []float64{1000, 3000} {
		l.Latest(c, &sp)
		k := int(math.Round(hz / sp.BinHz))
		pk, lv := peakIn(sp.Current, 1, len(sp.Current))
		// amplitude 0.5 in 16-bit: −6.02 dBFS
		if abs(pk-k) > 1 || math.Abs(float64(lv)+6.02) > 0.5 {
			t.Errorf("channel %d: peak at bin %d (%.0f Hz) %.2f dBFS; want %.0f Hz at −6.02 ± 0.5", c, pk, float64(pk)*sp.BinHz, lv, hz)
		}
	}
	st := l.Stats()
	if st.Frames < 40 || st.Stalls != 0 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("captured %d frames at %d Hz from %s; latency p50 %.2f ms p99 %.2f ms", st.Frames, st.SampleRate, st.Source, st.LatencyP50Ms, st.LatencyP99Ms)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestCaptureCommand: prism capture end to end from the null sink.
func TestCaptureCommand(t *testing.T) {
	requireAudio(t)
	playTones(t, 5, 0.5, 2000, 2000)
	out := filepath.Join(t.TempDir(), "cap.npy")
	code, msg := runCLI("capture", "-o", out, "--seconds", "2", "--engine", "cpu", "--window", "flattop", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	rows, cols, vals := readNPY(t, out)
	rate := captureRate(t)
	if want := int((2*rate-4096)/1024) + 1; rows != want || cols != 2049 {
		t.Fatalf("shape (%d, %d), want (%d, 2049)", rows, cols, want)
	}
	k := int(math.Round(2000 * 4096 / float64(rate)))
	for f := rows / 2; f < rows; f++ {
		pk, lv := peakIn(vals[f*cols:(f+1)*cols], 1, cols)
		if abs(pk-k) > 1 || math.Abs(float64(lv)+6.02) > 0.5 {
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
	code, msg := runCLI("capture", "-o", out, "--seconds", "1", "--generator", "sweep:100:10000:-12:1", "--engine", "cpu", "--quiet", "--width", "200", "--height", "100", "--stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
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
	if code, msg := runCLI("capture", "-o", out, "--device", "no-such-device-xyz", "--seconds", "1"); code != 1 || !strings.Contains(msg, "no input device") {
		t.Errorf("missing device: exit %d %q", code, msg)
	}
}
