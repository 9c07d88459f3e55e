package room

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// bandFilter filters responses of a fixed length zero-phase in the
// frequency domain, padded to twice the length so the filter's two-sided
// response does not wrap onto the decay.
type bandFilter struct {
	fft   *fourier.FFT
	buf   []float64
	coeff []complex128
	spec  []complex128 // the response's transform, computed once
	done  bool
}

func newBandFilter(n int) *bandFilter {
	m := 1
	for m < 2*n {
		m <<= 1
	}
	return &bandFilter{fft: fourier.NewFFT(m), buf: make([]float64, m), coeff: make([]complex128, m/2+1), spec: make([]complex128, m/2+1)}
}

// butterworthOrder is the band-pass prototype's order (IEC 61260-1 class
// 1 with third order).
const butterworthOrder = 3

// BandGain is the magnitude of the third-order Butterworth band-pass on
// edges f1 < f2 at f Hz: 1/√(1 + Q^6), Q = (f² − f1·f2)/(f·(f2 − f1)),
// 1/√2 at each edge.
func BandGain(f, f1, f2 float64) float64 {
	if f <= 0 {
		return 0
	}
	q := (f*f - f1*f2) / (f * (f2 - f1))
	return 1 / math.Sqrt(1+math.Pow(q*q, butterworthOrder))
}

// apply writes x filtered by the band f1…f2 into dst (len(x) values);
// every call must pass the same x.
func (b *bandFilter) apply(dst, x []float64, rate int, f1, f2 float64) {
	m := len(b.buf)
	if !b.done {
		clear(b.buf)
		copy(b.buf, x)
		b.fft.Coefficients(b.spec, b.buf)
		b.done = true
	}
	binHz := float64(rate) / float64(m)
	for k, v := range b.spec {
		b.coeff[k] = v * complex(BandGain(float64(k)*binHz, f1, f2)/float64(m), 0)
	}
	b.fft.Sequence(b.buf, b.coeff)
	copy(dst, b.buf[:len(x)])
}
