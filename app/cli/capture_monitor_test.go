//go:build cgo && linux

package cli

import (
	"bytes"
	"encoding/binary"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestCaptureMonitor: `prism capture --device monitor` records what the
// default output plays (the test's own PulseAudio null sink, the
// daemon's only output): a 1500-Hz sine played at −6.02 dBFS (16384/32768, by pacat) reads
// −6.02 dBFS ± 0.1 dB in every frame of the second half (a flat-top
// window, the tone on bin 128 of 4096 at 48 kHz); and `prism devices`
// lists the monitor by the output's name ("Null Output", the null
// sink's description).
func TestCaptureMonitor(t *testing.T) {
	apptest.StartPulse(t)
	// 20 s of the tone, s16 stereo, through a player with half a second
	// of buffer: a loaded machine must not starve the sink (apptest's
	// Play keeps 20 ms, for latency tests)
	const rate = 48000
	pcm := make([]byte, 20*rate*4)
	for i := range 20 * rate {
		v := uint16(int16(math.Round(16384 * math.Sin(2*math.Pi*1500*float64(i)/rate))))
		binary.LittleEndian.PutUint16(pcm[4*i:], v)
		binary.LittleEndian.PutUint16(pcm[4*i+2:], v)
	}
	play := exec.Command("pacat", "--playback", "--device="+apptest.PulseSink, "--latency-msec=500", "--raw",
		"--rate=48000", "--channels=2", "--format=s16le")
	play.Stdin = bytes.NewReader(pcm)
	if err := play.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { play.Process.Kill(); play.Wait() }()
	out := filepath.Join(t.TempDir(), "cap.npy")
	code, msg := runCLI("capture", "--device", "monitor", "-o", out, "--seconds", "2", "--rate", "48000", "--fft", "4096", "--hop", "1024",
		"--engine", "cpu", "--window", "flattop", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	rows, cols, vals := apptest.ReadNPY(t, out)
	if cols != 2049 || rows < 60 {
		t.Fatalf("shape (%d, %d)", rows, cols)
	}
	worst := 0.0
	for f := rows / 2; f < rows; f++ {
		pk, lv := apptest.PeakIn(vals[f*cols:(f+1)*cols], 1, cols)
		worst = max(worst, math.Abs(float64(lv)+6.0206))
		if pk != 128 || math.Abs(float64(lv)+6.0206) > 0.1 {
			t.Errorf("frame %d: peak bin %d at %.3f dBFS, want bin 128 at −6.02 ± 0.1", f, pk, lv)
		}
	}
	t.Logf("%d frames; the tone within %.3f dB of −6.02 dBFS in the second half", rows, worst)
	code, stdout, msg := runOut("devices")
	if code != 0 || !strings.Contains(stdout, "Monitor of Null Output") || !strings.Contains(stdout, "--device monitor") {
		t.Errorf("prism devices: exit %d, %s\n%s", code, msg, stdout)
	}
}
