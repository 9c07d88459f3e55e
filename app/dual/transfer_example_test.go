package dual_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prismaudio/prism/app/dual"
	"gonum.org/v1/gonum/dsp/fourier"
)

// A measurement that is the reference inverted, 2.5 ms late (120 samples
// at 48 kHz) and 6 dB down: frames of both averaged into cross-spectra;
// the delay finder reads the delay and polarity, then frames aligned by
// it give the level, phase and coherence.
func ExampleDelayFinder() {
	const n, lag = 4096, 120
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 20*n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	y := func(i int) float64 { return -0.5 * x[i-lag] }
	fft := fourier.NewFFT(n)
	// measure averages Hann-windowed frames of x and of y advanced by
	// shift samples
	measure := func(shift int) dual.CrossSpectra {
		avg, _ := dual.NewCrossAverager(n/2+1, dual.MaxTransferFrames, 0)
		fx, fy := make([]float64, n), make([]float64, n)
		for start := lag; start+shift+n <= len(x); start += n / 2 {
			for i := range n {
				w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/n)
				fx[i], fy[i] = x[start+i]*w, y(start+shift+i)*w
			}
			avg.Add(fft.Coefficients(nil, fx), fft.Coefficients(nil, fy))
		}
		return avg.Spectra()
	}
	s := measure(0)
	d := dual.NewDelayFinder(s.Bins()).Find(s.Gxy, true)
	fmt.Printf("found %v: %.2f samples (%.3f ms), polarity %d\n", d.Found, d.Samples, d.Seconds(48000)*1000, d.Polarity)

	s = measure(int(math.Round(d.Samples)))
	h, coh := make([]complex128, s.Bins()), make([]float64, s.Bins())
	s.Response(h, dual.AverageComplex)
	s.Coherence(coh)
	fmt.Printf("bin 100: %.2f dB, %.1f°, γ² %.3f\n", dual.MagnitudeDB(h[100]), dual.PhaseDeg(h[100]), coh[100])
	// Output:
	// found true: 120.00 samples (2.500 ms), polarity -1
	// bin 100: -6.02 dB, 180.0°, γ² 1.000
}
