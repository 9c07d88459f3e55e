package cli

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
	"gonum.org/v1/gonum/dsp/fourier"
)

// TestSpectrumBandwidth: `prism spectrum` prints the bandwidth verdict:
// noise made band-limited to 15 kHz in the frequency domain (random
// phases below, nothing above: an ideal low-pass, inverse FFT in
// float64) reads 15 kHz within 250 Hz, a lossy-looking cliff.
func TestSpectrumBandwidth(t *testing.T) {
	const fs, n, fc = 44100, 1 << 17, 15000
	r := rand.New(rand.NewPCG(7, 8))
	c := make([]complex128, n/2+1)
	for k := 1; float64(k)*fs/n < fc; k++ {
		ph := 2 * math.Pi * r.Float64()
		c[k] = complex(math.Cos(ph), math.Sin(ph))
	}
	y := fourier.NewFFT(n).Sequence(nil, c)
	x := make([]float32, n)
	for i, v := range y {
		x[i] = float32(v / 400)
	}
	in := filepath.Join(t.TempDir(), "band.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{x})
	code, out, msg := runOut("spectrum", in, "-o", filepath.Join(t.TempDir(), "s.csv"), "--engine", "cpu")
	m := regexp.MustCompile(`(?m)^bandwidth: content up to ([0-9.]+) kHz .*lossy encoder's low-pass`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d: %s\n%s", code, msg, out)
	}
	if khz, _ := strconv.ParseFloat(m[1], 64); math.Abs(khz*1000-fc) > 250 {
		t.Errorf("bandwidth %v kHz, want %v ± 0.25", khz, fc/1000.0)
	}
}
