// Package uitest holds test signals that the window's and the views' tests
// share, computed in float64 independently of the engines.
package uitest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
	"gonum.org/v1/gonum/dsp/fourier"
)

// DistortedSpectrum is what the engine hands the window for a1·sin(2πf0t)
// plus harmonics amps[n]·sin(2πn·f0·t + φn) and white noise of RMS sigma
// at rate Hz: the power spectrum of `frames` windowed N-point frames,
// averaged in power, scaled to sine-level dBFS (a sine of amplitude A on
// a bin reads 20·log10 A) and rounded to float32 dB. It is computed here
// in float64 with gonum's FFT, independently of the engines.
func DistortedSpectrum(t testing.TB, winName string, n, rate int, a1, f0 float64, amps map[int]float64, sigma float64, frames int) []float32 {
	t.Helper()
	win, err := window.Parse(winName)
	if err != nil {
		t.Fatal(err)
	}
	w := win.Values(n)
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	rng := rand.New(rand.NewPCG(1, 1))
	phase := map[int]float64{}
	for h := range amps {
		phase[h] = rng.Float64() * 2 * math.Pi
	}
	fft := fourier.NewFFT(n)
	x := make([]float64, n)
	coef := make([]complex128, n/2+1)
	acc := make([]float64, n/2+1)
	for f := range frames {
		for i := range x {
			tt := float64(f*n+i) / float64(rate)
			s := a1 * math.Sin(2*math.Pi*f0*tt)
			for h, a := range amps {
				s += a * math.Sin(2*math.Pi*float64(h)*f0*tt+phase[h])
			}
			x[i] = (s + sigma*rng.NormFloat64()) * w[i]
		}
		fft.Coefficients(coef, x)
		for k, c := range coef {
			acc[k] += (real(c)*real(c) + imag(c)*imag(c)) * 4 / (sum * sum) / float64(frames)
		}
	}
	db := make([]float32, len(acc))
	for k, p := range acc {
		db[k] = float32(10 * math.Log10(p))
	}
	return db
}
