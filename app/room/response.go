package room

import (
	"math"
	"math/cmplx"

	"github.com/prismaudio/prism/app/dual"
	"gonum.org/v1/gonum/dsp/fourier"
)

// Response is an impulse response's frequency response over N/2+1 bins
// of its length padded to a power of two N.
type Response struct {
	FreqHz      []float64
	MagnitudeDB []float64 // 20·log10|H|, −Inf where H is 0
	PhaseDeg    []float64 // arg H wrapped to (−180, 180]
	// GroupDelayMs is −dφ/dω, from Re{DFT(n·h)/DFT(h)}: exact for the
	// sampled response, with no unwrapping.
	GroupDelayMs []float64
}

// FrequencyResponse transforms ir (at rate Hz); smoothing, 1/N octave
// with N in 3…48 (0: none), smooths the response as complex values (the
// phase, without wrapping steps), the magnitude as power, and the group
// delay weighted by power.
func FrequencyResponse(ir []float64, rate, smoothing int) (Response, error) {
	n := 1
	for n < len(ir) {
		n <<= 1
	}
	fft := fourier.NewFFT(n)
	buf := make([]float64, n)
	copy(buf, ir)
	h := fft.Coefficients(nil, buf)
	for i, v := range ir {
		buf[i] = float64(i) * v
	}
	g := fft.Coefficients(nil, buf) // DFT(n·h)
	bins := len(h)
	pow := make([]float64, bins)
	for k, v := range h {
		pow[k] = real(v)*real(v) + imag(v)*imag(v)
		g[k] *= cmplx.Conj(v) // Re(g·h̄)/|h|² is the group delay in samples
	}
	if smoothing != 0 {
		sm, err := dual.NewSmoother(bins, smoothing)
		if err != nil {
			return Response{}, err
		}
		hs := make([]complex128, bins)
		sm.Complex(hs, h)
		sm.Power(pow, pow)
		sm.Complex(g, g)
		// the magnitude is the power's; the phase the complex mean's
		for k := range h {
			h[k] = cmplx.Rect(math.Sqrt(pow[k]), cmplx.Phase(hs[k]))
		}
	}
	r := Response{FreqHz: make([]float64, bins), MagnitudeDB: make([]float64, bins), PhaseDeg: make([]float64, bins), GroupDelayMs: make([]float64, bins)}
	for k, v := range h {
		r.FreqHz[k] = float64(k) * float64(rate) / float64(n)
		r.MagnitudeDB[k] = dual.MagnitudeDB(v)
		r.PhaseDeg[k] = dual.PhaseDeg(v)
		r.GroupDelayMs[k] = math.NaN()
		if pow[k] > 0 {
			r.GroupDelayMs[k] = real(g[k]) / pow[k] / float64(rate) * 1000
		}
	}
	return r, nil
}

// ETC is the energy–time curve of ir: 10·log10(ir²) re its peak, dB
// (−Inf where ir is 0).
func ETC(ir []float64) []float64 {
	peak := 0.0
	for _, v := range ir {
		peak = max(peak, v*v)
	}
	out := make([]float64, len(ir))
	for i, v := range ir {
		out[i] = 10 * math.Log10(v*v/peak)
	}
	return out
}
