package apptest

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
)

// The float64 model of a measured system that the dual-channel tests
// compare against: RBJ cookbook biquads, seeded white noise, a
// (fractional) delay with its exact response, and scipy's coherence.

// Biquad is an RBJ cookbook filter, coefficients normalised by a0.
type Biquad struct{ B0, B1, B2, A1, A2 float64 }

// PeakingEQ is the cookbook's peaking EQ: gainDB at f0 Hz, quality q, at
// fs Hz.
func PeakingEQ(f0, gainDB, q, fs float64) Biquad {
	A := math.Pow(10, gainDB/40)
	w := 2 * math.Pi * f0 / fs
	alpha := math.Sin(w) / (2 * q)
	a0 := 1 + alpha/A
	return Biquad{(1 + alpha*A) / a0, -2 * math.Cos(w) / a0, (1 - alpha*A) / a0, -2 * math.Cos(w) / a0, (1 - alpha/A) / a0}
}

// HighPass is the cookbook's 2nd-order high-pass at f0 Hz, quality q.
func HighPass(f0, q, fs float64) Biquad {
	w := 2 * math.Pi * f0 / fs
	alpha, c := math.Sin(w)/(2*q), math.Cos(w)
	a0 := 1 + alpha
	return Biquad{(1 + c) / 2 / a0, -(1 + c) / a0, (1 + c) / 2 / a0, -2 * c / a0, (1 - alpha) / a0}
}

// Response is H(e^{iω}) at f Hz.
func (b Biquad) Response(f, fs float64) complex128 {
	z1 := cmplx.Exp(complex(0, -2*math.Pi*f/fs))
	z2 := z1 * z1
	return (complex(b.B0, 0) + complex(b.B1, 0)*z1 + complex(b.B2, 0)*z2) /
		(1 + complex(b.A1, 0)*z1 + complex(b.A2, 0)*z2)
}

// Filter runs x through b (direct form I).
func (b Biquad) Filter(x []float64) []float64 {
	y := make([]float64, len(x))
	var x1, x2, y1, y2 float64
	for i, v := range x {
		o := b.B0*v + b.B1*x1 + b.B2*x2 - b.A1*y1 - b.A2*y2
		x2, x1, y2, y1 = x1, v, y1, o
		y[i] = o
	}
	return y
}

// WhiteNoise is n samples of Gaussian noise of the given RMS, seeded.
func WhiteNoise(n int, seed uint64, rms float64) []float64 {
	r := rand.New(rand.NewPCG(seed, seed))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64() * rms
	}
	return x
}

// delayHalf is half the fractional delay's taps less one.
const delayHalf = 127

// delayTaps is a Blackman-windowed sinc delaying by fr ∈ (0, 1) samples:
// tap j (0…2·delayHalf) weighs x[i − ⌊d⌋ − (j − delayHalf)].
func delayTaps(fr float64) []float64 {
	h := make([]float64, 2*delayHalf+1)
	for j := -delayHalf; j <= delayHalf; j++ {
		t := float64(j) - fr
		w := 0.42 + 0.5*math.Cos(math.Pi*t/(delayHalf+1)) + 0.08*math.Cos(2*math.Pi*t/(delayHalf+1))
		s := 1.0
		if t != 0 {
			s = math.Sin(math.Pi*t) / (math.Pi * t)
		}
		h[j+delayHalf] = s * w
	}
	return h
}

// Delayed returns y[i] = x[i − d] for a delay d in samples (fractional
// by a 255-tap Blackman-windowed sinc): len(x) values, zero where x[i−d]
// falls outside.
func Delayed(x []float64, d float64) []float64 {
	y := make([]float64, len(x))
	di := math.Floor(d)
	fr := d - di
	if fr == 0 {
		for i := range y {
			if j := i - int(di); j >= 0 && j < len(x) {
				y[i] = x[j]
			}
		}
		return y
	}
	h := delayTaps(fr)
	for i := range y {
		s := 0.0
		for j := -delayHalf; j <= delayHalf; j++ {
			if k := i - int(di) - j; k >= 0 && k < len(x) {
				s += h[j+delayHalf] * x[k]
			}
		}
		y[i] = s
	}
	return y
}

// DelayResponse is the frequency response of Delayed's filter at f Hz:
// the taps' DTFT (e^(−iωd) for a whole d).
func DelayResponse(d, f, fs float64) complex128 {
	w := 2 * math.Pi * f / fs
	di := math.Floor(d)
	fr := d - di
	if fr == 0 {
		return cmplx.Exp(complex(0, -w*d))
	}
	var sum complex128
	for j, v := range delayTaps(fr) {
		sum += complex(v, 0) * cmplx.Exp(complex(0, -w*(di+float64(j-delayHalf))))
	}
	return sum
}

// ScipyCoherence is scipy.signal.coherence(x, y, window='hann',
// nperseg=n, noverlap=n/2) (detrend='constant', one-sided) in float64:
// |Pxy|²/(Pxx·Pyy) of Welch averages of mean-removed, Hann-windowed
// segments, by FFT64.
func ScipyCoherence(x, y []float64, n int) []float64 {
	bins := n/2 + 1
	pxy := make([]complex128, bins)
	pxx, pyy := make([]float64, bins), make([]float64, bins)
	for s := 0; s+n <= len(x); s += n / 2 {
		mx, my := 0.0, 0.0
		for i := range n {
			mx, my = mx+x[s+i], my+y[s+i]
		}
		mx, my = mx/float64(n), my/float64(n)
		fx, fy := make([]complex128, n), make([]complex128, n)
		for i := range n {
			w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
			fx[i], fy[i] = complex((x[s+i]-mx)*w, 0), complex((y[s+i]-my)*w, 0)
		}
		X, Y := FFT64(fx), FFT64(fy)
		for k := range bins {
			pxy[k] += cmplx.Conj(X[k]) * Y[k]
			pxx[k] += real(X[k] * cmplx.Conj(X[k]))
			pyy[k] += real(Y[k] * cmplx.Conj(Y[k]))
		}
	}
	c := make([]float64, bins)
	for k := range c {
		a := cmplx.Abs(pxy[k])
		c[k] = a * a / (pxx[k] * pyy[k])
	}
	return c
}
