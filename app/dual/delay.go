package dual

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// DelayFinder finds the delay between a reference and a measurement from
// their averaged cross-spectrum Gxy (N/2+1 bins of an N-point transform):
// the impulse response is the inverse transform of Gxy, or with PHAT of
// Gxy/|Gxy| (GCC-PHAT: every bin weighs the same, so the peak is as
// narrow as the band allows whatever the stimulus' spectrum); the delay
// is its largest |value|, placed between samples by band-limited
// interpolation (the inverse DFT evaluated at fractional lags, its
// maximum found by Newton steps: the exact sinc interpolation of the
// transform, not a parabola's bias), and its sign is the polarity. Lags
// run from −N/2 to N/2−1 samples; positive lags mean the measurement
// comes later.
//
// A response without a clear peak reports Found false, never a number:
// the peak must stand MinPeakRatio times above the response's RMS. For
// an uncorrelated pair the largest of N Gaussian values stands about
// √(2·ln N) ≈ 4.6 RMS above (N = 32768), so 10 leaves a margin of over
// 20 RMS-dB-worth of chance (P < 1e-17 per transform); a real delay with
// PHAT stands √N-ish above (181 at N = 32768).
//
// A DelayFinder is reused: its transforms and their buffers are made by
// the first Find (and the first ETC), and later calls do not allocate; a
// finder used only to Refine holds the weighted spectrum alone. The IR
// and ETC slices it returns belong to it and change with the next call.
type DelayFinder struct {
	n      int
	fft    *fourier.FFT
	cfft   *fourier.CmplxFFT
	w      []complex128 // the weighted spectrum (bins)
	ir     []float64    // N samples, lag 0 first, negative lags at the end
	full   []complex128 // N: the analytic signal's spectrum, then the signal
	etc    []float64
	lagIR  []float64 // N: the impulse response in lag order, −N/2 first
	lagETC []float64
}

// MinPeakRatio is the least peak-over-RMS of an impulse response whose
// peak counts as a delay (see DelayFinder).
const MinPeakRatio = 10

// Delay is what DelayFinder.Find reports.
type Delay struct {
	Found     bool    // false: no clear peak; the other fields but PeakRatio are zero
	Samples   float64 // the delay in samples (fractional), positive: the measurement lags
	Polarity  int     // +1, or −1 when the measurement is inverted
	PeakRatio float64 // |peak| / RMS of the impulse response
}

// Seconds is the delay in seconds at sampleRate (Hz).
func (d Delay) Seconds(sampleRate float64) float64 { return d.Samples / sampleRate }

// Metres is the distance sound travels in the delay at speedOfSound (m/s).
func (d Delay) Metres(sampleRate, speedOfSound float64) float64 {
	return d.Seconds(sampleRate) * speedOfSound
}

// SpeedOfSound is the speed of sound in dry air at 20 °C, m/s.
const SpeedOfSound = 343.0

// NewDelayFinder makes a finder for spectra of bins = N/2+1 bins (N even,
// ≥ 4).
func NewDelayFinder(bins int) *DelayFinder {
	n := 2 * (bins - 1)
	if n < 4 {
		panic("dual: NewDelayFinder needs 3 bins or more")
	}
	return &DelayFinder{n: n, w: make([]complex128, bins)}
}

// Find computes the impulse response of gxy (Bins values), weighted by
// PHAT when phat is set, and its delay. It does not allocate, and panics
// if gxy has the wrong length.
func (d *DelayFinder) Find(gxy []complex128, phat bool) Delay {
	d.weigh(gxy, phat)
	if d.fft == nil {
		d.fft, d.ir, d.lagIR = fourier.NewFFT(d.n), make([]float64, d.n), make([]float64, d.n)
	}
	d.fft.Sequence(d.ir, d.w)
	inv := 1 / float64(d.n)
	ss, peak, at := 0.0, 0.0, 0
	for i, v := range d.ir {
		v *= inv
		d.ir[i] = v
		ss += v * v
		if math.Abs(v) > peak {
			peak, at = math.Abs(v), i
		}
	}
	half := d.n / 2
	copy(d.lagIR, d.ir[half:])
	copy(d.lagIR[half:], d.ir[:half])
	return d.place(at, d.ir[at], math.Sqrt(ss/float64(d.n)))
}

// Refine is Find for a caller that has the impulse response's peak
// already (an engine's: gpufft.TransferPlan.Peaks): the response's
// largest |value|, value, at index at (0…N−1, lag at − N from N/2 on),
// and its RMS. It applies the same test of a clear peak and places the
// peak between samples from gxy as Find does, without the inverse
// transform; IR is not valid after it (ETC is). It does not allocate, and
// panics if gxy has the wrong length or at is out of range.
func (d *DelayFinder) Refine(gxy []complex128, phat bool, at int, value, rms float64) Delay {
	if at < 0 || at >= d.n {
		panic("dual: DelayFinder.Refine: peak index out of range")
	}
	d.weigh(gxy, phat)
	return d.place(at, value, rms)
}

// weigh sets the spectrum whose inverse transform is the response: gxy,
// or with phat gxy/|gxy| (0 where gxy is 0).
func (d *DelayFinder) weigh(gxy []complex128, phat bool) {
	if len(gxy) != len(d.w) {
		panic("dual: DelayFinder: wrong number of bins")
	}
	if !phat {
		copy(d.w, gxy)
		return
	}
	// g/|g| by one reciprocal square root's worth of work: no complex
	// division, no Hypot (Gxy comes from float32 values, far from
	// overflowing a square)
	for k, g := range gxy {
		re, im := real(g), imag(g)
		if a2 := re*re + im*im; a2 > 0 {
			inv := 1 / math.Sqrt(a2)
			g = complex(re*inv, im*inv)
		} else {
			g = 0
		}
		d.w[k] = g
	}
}

// place decides on the peak at index at of value value in a response of
// RMS rms: no clear peak, or the delay placed between samples.
func (d *DelayFinder) place(at int, value, rms float64) Delay {
	peak := math.Abs(value)
	if !(rms > 0) || peak < MinPeakRatio*rms {
		r := 0.0
		if rms > 0 {
			r = peak / rms
		}
		return Delay{PeakRatio: r}
	}
	sign := 1.0
	if value < 0 {
		sign = -1
	}
	t := d.refine(float64(at), sign)
	if t >= float64(d.n/2) {
		t -= float64(d.n)
	}
	return Delay{Found: true, Samples: t, Polarity: int(sign), PeakRatio: peak / rms}
}

// refine moves the integer peak at t0 to the maximum of sign·ir(t), the
// band-limited interpolant, by Newton steps on its derivative (at most
// half a sample from t0: the integer peak is the largest sample).
func (d *DelayFinder) refine(t0, sign float64) float64 {
	t := t0
	for range 8 {
		_, d1, d2 := d.eval(t)
		d1, d2 = sign*d1, sign*d2
		if !(d2 < 0) {
			break
		}
		step := -d1 / d2
		step = max(-0.25, min(0.25, step))
		t += step
		t = max(t0-0.5, min(t0+0.5, t))
		if math.Abs(step) < 1e-6 {
			break
		}
	}
	return t
}

// eval returns the band-limited impulse response at lag t (samples) and
// its first two derivatives: (1/N)·Σ over the full spectrum of
// W_k·e^(i2πkt/N), the Nyquist bin taken as cos(πt)·Re W.
func (d *DelayFinder) eval(t float64) (v, d1, d2 float64) {
	n, m := float64(d.n), len(d.w)-1
	step := 2 * math.Pi * t / n
	s, c := math.Sincos(step)
	rot, e := complex(c, s), complex(1, 0)
	v = real(d.w[0])
	for k := 1; k < m; k++ {
		e *= rot
		if k&1023 == 0 { // keep the rotation's rounding from building up
			s, c := math.Sincos(step * float64(k))
			e = complex(c, s)
		}
		z := d.w[k] * e
		om := 2 * math.Pi * float64(k) / n
		v += 2 * real(z)
		d1 -= 2 * om * imag(z)
		d2 -= 2 * om * om * real(z)
	}
	sn, cn := math.Sincos(math.Pi * t)
	wn := real(d.w[m])
	v += wn * cn
	d1 -= wn * math.Pi * sn
	d2 -= wn * math.Pi * math.Pi * cn
	return v / n, d1 / n, d2 / n
}

// IR returns the last impulse response in lag order: N samples, lag −N/2
// first (index i is lag i − N/2); nil before the first Find. Valid until
// the next Find (Refine leaves it as it was).
func (d *DelayFinder) IR() []float64 { return d.lagIR }

// ETC returns the energy–time curve of the last impulse response in lag
// order (as IR): 20·log10 of the envelope, the magnitude of the analytic
// signal (the response plus i times its Hilbert transform), relative to
// the envelope's largest value (0 dB), floored at FloorDB. After its
// first call it does not allocate. Valid until the next Find, Refine or
// ETC.
func (d *DelayFinder) ETC() []float64 {
	// the analytic signal's spectrum: 2·W_k for 0 < k < N/2, W_0 and
	// W_{N/2} once, nothing at negative frequencies
	m := len(d.w) - 1
	if d.cfft == nil {
		d.cfft, d.full = fourier.NewCmplxFFT(d.n), make([]complex128, d.n)
		d.etc, d.lagETC = make([]float64, d.n), make([]float64, d.n)
	}
	for k := range d.full {
		switch {
		case k == 0 || k == m:
			d.full[k] = d.w[k]
		case k < m:
			d.full[k] = 2 * d.w[k]
		default:
			d.full[k] = 0
		}
	}
	d.cfft.Sequence(d.full, d.full)
	top := 0.0
	for i, z := range d.full {
		a := real(z)*real(z) + imag(z)*imag(z)
		d.etc[i] = a
		top = max(top, a)
	}
	half := d.n / 2
	for i := range d.n {
		a := d.etc[(i+half)%d.n]
		if top > 0 {
			a /= top
		}
		d.lagETC[i] = PowerRatioDB(a)
	}
	return d.lagETC
}
