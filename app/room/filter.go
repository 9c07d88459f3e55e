package room

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// bandFilter filters responses of a fixed length zero-phase in the
// frequency domain, padded so that the filter's two-sided response does
// not wrap onto the decay: by filterGuard seconds (the narrowest band's
// filter, a third octave at 50 Hz, rings down by 100 dB in about 0.6 s),
// or the response's own length if shorter.
type bandFilter struct {
	fft   *fourier.FFT
	buf   []float64
	coeff []complex128
	spec  []complex128 // the response's transform, computed once
	done  bool
}

// filterGuard is the padding's length, seconds.
const filterGuard = 0.7

func newBandFilter(n, rate int) *bandFilter {
	m := 1
	for m < n+min(n, int(math.Ceil(filterGuard*float64(rate)))) {
		m <<= 1
	}
	return &bandFilter{fft: fourier.NewFFT(m), buf: make([]float64, m), coeff: make([]complex128, m/2+1), spec: make([]complex128, m/2+1)}
}

// BandGain is the magnitude of the third-order Butterworth band-pass (IEC
// 61260-1 class 1 with third order) on
// edges f1 < f2 at f Hz: 1/√(1 + Q^6), Q = (f² − f1·f2)/(f·(f2 − f1)),
// 1/√2 at each edge.
func BandGain(f, f1, f2 float64) float64 {
	if f <= 0 {
		return 0
	}
	q := (f*f - f1*f2) / (f * (f2 - f1))
	q2 := q * q
	return 1 / math.Sqrt(1+q2*q2*q2) // Q^(2·butterworthOrder)
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
