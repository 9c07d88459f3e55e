//go:build cgo && linux

package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestCaptureTransferPulse: for real, through a sound server: the test's
// own PulseAudio null sink plays pink noise on channel 0 and its copy at
// half the amplitude, 2.5 ms (120 samples) later, on channel 1 (sox:
// remix 1 1v0.5, delay 0 0.0025), and `prism capture --transfer` of its
// monitor finds the delay to a sample with normal polarity, and reads
// −6.02 dB and 0° (the delay taken out) at the coherent bins (γ² ≥ 0.95)
// from 100 Hz to 10 kHz: on average within 0.05 dB and 0.3°, each bin
// within its random error's bound.
func TestCaptureTransferPulse(t *testing.T) {
	pa := apptest.StartPulse(t)
	pa.Play("60", "pinknoise", "vol", "0.5", "remix", "1", "1v0.5", "delay", "0", "0.0025")
	out := filepath.Join(t.TempDir(), "h.csv")
	var stdout, stderr bytes.Buffer
	code := Run([]string{"capture", "--transfer", "--ref-channel", "0", "--channels", "1", "-o", out, "--rate", "48000",
		"--fft", "8192", "--hop", "2048", "--frames", "32", "--seconds", "4", "--engine", "cpu", "--quiet", "--stats"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var st map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		t.Fatalf("--stats: %v: %s", err, stdout.String())
	}
	if d, ok := st["delay_samples"].(float64); !ok || math.Abs(d-120) > 1 || st["polarity"] != 1.0 {
		t.Fatalf("delay %v samples, polarity %v; want 120, 1 (%v)", st["delay_samples"], st["polarity"], st)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "freq_hz,magnitude_db,phase_deg,coherence" {
		t.Fatalf("header %q", lines[0])
	}
	// Bendat & Piersol's normalized random error of an H1 estimate from nd
	// averages, ε = √(1−γ²)/(|γ|·√(2·nd)), is the spread a bin's magnitude
	// (relative) and phase (radians) have around the truth: sox's dither,
	// independent on each channel, leaves γ² near 0.99 where pink noise is
	// weak, so a bin may stray past 0.1 dB by chance. Each bin is held to
	// 6ε (a chance of about 10⁻⁶ over the bins checked), and the accuracy
	// to the mean of the bins: −6.02 dB within 0.05 dB, 0° within 0.3°.
	const nd = 32
	checked := 0
	var sumDB, sumDeg float64
	for _, line := range lines[1:] {
		var v [4]float64
		for i, f := range strings.Split(line, ",") {
			v[i], _ = strconv.ParseFloat(f, 64)
		}
		if v[0] < 100 || v[0] > 10000 || v[3] < 0.95 {
			continue
		}
		checked++
		sumDB, sumDeg = sumDB+v[1]-20*math.Log10(0.5), sumDeg+v[2]
		eps := math.Sqrt(1-v[3]) / (math.Sqrt(v[3]) * math.Sqrt(2*nd))
		if math.Abs(v[1]-20*math.Log10(0.5)) > 20*math.Log10(1+6*eps)+0.02 || math.Abs(v[2]) > 6*eps*180/math.Pi+0.1 {
			t.Errorf("%s: want −6.02 dB, 0° within 6ε (ε %.4f)", line, eps)
		}
	}
	if checked > 0 {
		if m, p := sumDB/float64(checked), sumDeg/float64(checked); math.Abs(m) > 0.05 || math.Abs(p) > 0.3 {
			t.Errorf("mean over %d bins: %+.3f dB, %+.3f° from −6.02 dB, 0°; want within 0.05 dB, 0.3°", checked, m, p)
		}
	}
	t.Logf("delay %v samples, mean coherence %v, %d coherent bins checked, %v input frames dropped", st["delay_samples"], st["mean_coherence"], checked, st["dropped_input_frames"])
	if checked < 1500 { // of the ~1690 bins from 100 Hz to 10 kHz
		t.Errorf("%d coherent bins from 100 Hz to 10 kHz", checked)
	}
}
