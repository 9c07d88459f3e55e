package dual

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
	"gonum.org/v1/gonum/dsp/fourier"
)

func add(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

// hannPeriodic is scipy's get_window('hann', n) (sym=False).
func hannPeriodic(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
	}
	return w
}

// spectraOf runs frames of n samples, hop apart, windowed, through the
// averager (x reference, y measurement) and returns the frame count.
func spectraOf(t *testing.T, a *CrossAverager, x, y []float64, n, hop int) int {
	t.Helper()
	fft := fourier.NewFFT(n)
	w := hannPeriodic(n)
	fx, fy := make([]float64, n), make([]float64, n)
	X, Y := make([]complex128, n/2+1), make([]complex128, n/2+1)
	frames := 0
	for s := 0; s+n <= len(x); s += hop {
		for i := range n {
			fx[i], fy[i] = x[s+i]*w[i], y[s+i]*w[i]
		}
		fft.Coefficients(X, fx)
		fft.Coefficients(Y, fy)
		a.Add(X, Y)
		frames++
	}
	return frames
}

// knownSystem is white noise x through a +6 dB Q 2 peaking EQ at 1 kHz
// and a 2nd-order (Q 0.707) high-pass at 80 Hz, delayed by delay samples,
// with uncorrelated noise 40 dB down added in every band (an independent
// white noise through the same filters, its RMS 1/100 of the signal's):
// the measurement y and the system's response at f, from the biquads'
// and the delay's own coefficients (apptest.DelayResponse).
func knownSystem(n int, fs, delay float64, seed uint64) (x, y []float64, h func(f float64) complex128) {
	peq, hp := apptest.PeakingEQ(1000, 6, 2, fs), apptest.HighPass(80, math.Sqrt(0.5), fs)
	x = apptest.WhiteNoise(n, seed, 0.1)
	f := apptest.Delayed(hp.Filter(peq.Filter(x)), delay)
	noise := hp.Filter(peq.Filter(apptest.WhiteNoise(n, seed+1, 0.001)))
	y = add(f, noise)
	h = func(fr float64) complex128 {
		return peq.Response(fr, fs) * hp.Response(fr, fs) * apptest.DelayResponse(delay, fr, fs)
	}
	return x, y, h
}

// alignedReference is x delayed by the whole samples of delay: frames of
// it line up with the measurement's, as the transfer pipeline aligns
// them (a frame pair misaligned by D samples shares only part of its
// signal: γ² ≈ 1 − (2π²/3)(D/N)² with a Hann window, 0.997 for 120 of
// 8192, which caps the estimate's precision whatever the noise).
func alignedReference(x []float64, delay float64) []float64 {
	return apptest.Delayed(x, math.Round(delay))
}

// The delay of a known system is found (±0.1 sample); with the reference
// aligned by its whole samples, the H1 estimate (complex average) is
// within ±0.1 dB and ±1° of the analytic response wherever γ² ≥ 0.95
// from 50 Hz up (16 kHz, N = 16384). Below 50 Hz the frame's resolution
// (a Hann main lobe of ±2 bins) blurs the high-pass's f² slope: γ² falls
// to 0.99 near 25 Hz, where the H1 estimate's random error
// √((1−γ²)/(2γ²n)) (Bendat & Piersol) is 0.15 dB with n = 16 frames.
// The polar average's magnitude, which
// reads the uncorrelated noise as level (bias 10·log10(1/γ²)), is held to
// ±0.1 dB where γ² ≥ 0.995 (bias ≤ 0.022 dB), its phase to ±1°.
func TestTransferKnownSystem(t *testing.T) {
	const fs, n, hop = 16000.0, 16384, 8192
	frames := 40
	if testing.Short() {
		frames = 28
	}
	for _, delay := range []float64{40, 40.37} { // 2.5 ms, and a fractional one
		x, y, h := knownSystem(n+hop*(frames-1), fs, delay, 7)
		a, err := NewCrossAverager(n/2+1, MaxTransferFrames, 0)
		if err != nil {
			t.Fatal(err)
		}
		spectraOf(t, a, x, y, n, hop)
		d := NewDelayFinder(n/2+1).Find(a.Spectra().Gxy, true)
		if !d.Found || math.Abs(d.Samples-delay) > 0.1 || d.Polarity != 1 {
			t.Errorf("delay %v: found %+v", delay, d)
		}
		a.Reset()
		spectraOf(t, a, alignedReference(x, delay), y, n, hop)
		s := a.Spectra()
		coh := make([]float64, s.Bins())
		s.Coherence(coh)
		for _, avg := range []TransferAverage{AverageComplex, AveragePolar} {
			resp := make([]complex128, s.Bins())
			s.Response(resp, avg)
			magLimit := 0.95
			if avg == AveragePolar {
				magLimit = 0.995
			}
			checked, worstDB, worstDeg := 0, 0.0, 0.0
			for k := 1; k < s.Bins()-1; k++ {
				f := float64(k) * fs / n
				if coh[k] < 0.95 || f < 50 {
					continue
				}
				want := h(f) * apptest.DelayResponse(-math.Round(delay), f, fs)
				dDeg := PhaseDeg(resp[k] / want)
				if coh[k] >= magLimit {
					worstDB = max(worstDB, math.Abs(MagnitudeDB(resp[k])-MagnitudeDB(want)))
				}
				worstDeg = max(worstDeg, math.Abs(dDeg))
				checked++
			}
			if checked < s.Bins()*8/10 || worstDB > 0.1 || worstDeg > 1 {
				t.Errorf("delay %v, %v: %d of %d bins with γ² ≥ 0.95, worst %.3f dB, %.3f°", delay, avg, checked, s.Bins(), worstDB, worstDeg)
			}
			t.Logf("delay %v, %v: %d bins, worst %.4f dB, %.4f°", delay, avg, checked, worstDB, worstDeg)
		}
	}
}

// Coherence matches scipy.signal.coherence's estimate (bins 2 and up:
// scipy removes each segment's mean, which changes bins 0 and 1 only)
// within ±0.01, and, with a known SNR, SNR/(1+SNR) on average over the
// bins within ±0.01 (the estimate's bias, (1−γ²)²/frames, is 3e-4 here).
func TestTransferCoherence(t *testing.T) {
	const n = 1024
	frames := 256
	x := apptest.WhiteNoise(n/2*(frames+1), 3, 1)
	const snr = 3.0
	y := add(apptest.Delayed(x, 3), apptest.WhiteNoise(len(x), 4, 1/math.Sqrt(snr)))
	a, err := NewCrossAverager(n/2+1, MaxTransferFrames, 0)
	if err != nil {
		t.Fatal(err)
	}
	spectraOf(t, a, x, y, n, n/2)
	coh := make([]float64, n/2+1)
	a.Spectra().Coherence(coh)
	ref := apptest.ScipyCoherence(x, y, n)
	worst, mean := 0.0, 0.0
	for k := 2; k <= n/2; k++ {
		worst = max(worst, math.Abs(coh[k]-ref[k]))
	}
	for k := 1; k < n/2; k++ {
		mean += coh[k]
	}
	mean /= n/2 - 1
	if worst > 0.01 {
		t.Errorf("coherence differs from scipy's by up to %.4f", worst)
	}
	if want := snr / (1 + snr); math.Abs(mean-want) > 0.01 {
		t.Errorf("mean coherence %.4f, want SNR/(1+SNR) = %.4f", mean, want)
	}
	t.Logf("worst |γ² − scipy| %.2g, mean γ² %.4f", worst, mean)
}

// The FIFO keeps the mean of the last K frames; the exponential average
// starts at the first frame and weighs each new one by α: both against
// sums written out here.
func TestTransferAverager(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const bins, K, alpha = 5, 3, 0.25
	fifo, _ := NewCrossAverager(bins, K, 0)
	exp, _ := NewCrossAverager(bins, 0, alpha)
	var xs, ys [][]complex128
	var ex []complex128
	for f := range 7 {
		x, y := make([]complex128, bins), make([]complex128, bins)
		for k := range bins {
			x[k], y[k] = complex(r.NormFloat64(), r.NormFloat64()), complex(r.NormFloat64(), r.NormFloat64())
		}
		xs, ys = append(xs, x), append(ys, y)
		fifo.Add(x, y)
		exp.Add(x, y)
		lo := max(0, f+1-K)
		for k := range bins {
			var gxy complex128
			var gyy float64
			for j := lo; j <= f; j++ {
				gxy += cmplx.Conj(xs[j][k]) * ys[j][k]
				gyy += cmplx.Abs(ys[j][k]) * cmplx.Abs(ys[j][k])
			}
			n := float64(f + 1 - lo)
			if s := fifo.Spectra(); cmplx.Abs(s.Gxy[k]-gxy/complex(n, 0)) > 1e-12 || math.Abs(s.Gyy[k]-gyy/n) > 1e-12 {
				t.Fatalf("frame %d bin %d: FIFO %v %v, want %v %v", f, k, s.Gxy[k], s.Gyy[k], gxy/complex(n, 0), gyy/n)
			}
			v := cmplx.Conj(x[k]) * y[k]
			if f == 0 {
				ex = append(ex, v)
			} else {
				ex[k] = (1-alpha)*ex[k] + alpha*v
			}
			if s := exp.Spectra(); cmplx.Abs(s.Gxy[k]-ex[k]) > 1e-12 {
				t.Fatalf("frame %d bin %d: exponential %v, want %v", f, k, s.Gxy[k], ex[k])
			}
		}
	}
	if n := testing.AllocsPerRun(20, func() { fifo.Add(xs[0], ys[0]); exp.Add(xs[0], ys[0]) }); n != 0 {
		t.Errorf("Add: %v allocs per call, want 0", n)
	}
	for _, c := range []struct {
		frames int
		alpha  float64
	}{{-1, 0}, {MaxTransferFrames + 1, 0}, {0, 0}, {0, 1.5}} {
		if _, err := NewCrossAverager(4, c.frames, c.alpha); err == nil {
			t.Errorf("NewCrossAverager(4, %d, %v): no error", c.frames, c.alpha)
		}
	}
}

// A pure delay τ unwraps to a straight line of slope −360·τ degrees per
// Hz, its group delay reads τ everywhere, and RemoveDelay flattens it.
func TestTransferPhaseUnwrapGroupDelay(t *testing.T) {
	const bins, binHz, tau = 513, 46.875, 0.0025
	h := make([]complex128, bins)
	wrapped, unwrapped, gd := make([]float64, bins), make([]float64, bins), make([]float64, bins)
	for k := range h {
		h[k] = cmplx.Exp(complex(0, -2*math.Pi*float64(k)*binHz*tau))
		wrapped[k] = PhaseDeg(h[k])
		if wrapped[k] <= -180 || wrapped[k] > 180 {
			t.Fatalf("bin %d: wrapped phase %v", k, wrapped[k])
		}
	}
	UnwrapDeg(unwrapped, wrapped)
	GroupDelay(gd, unwrapped, binHz)
	for k := range h {
		if want := -360 * float64(k) * binHz * tau; math.Abs(unwrapped[k]-want) > 1e-9 {
			t.Fatalf("bin %d: unwrapped %v, want %v", k, unwrapped[k], want)
		}
		if math.Abs(gd[k]-tau) > 1e-12 {
			t.Fatalf("bin %d: group delay %v, want %v", k, gd[k], tau)
		}
	}
	// in place (dst may be src), the same
	inPlace := append([]float64(nil), wrapped...)
	UnwrapDeg(inPlace, inPlace)
	for k := range inPlace {
		if inPlace[k] != unwrapped[k] {
			t.Fatalf("bin %d: unwrapped in place %v, want %v", k, inPlace[k], unwrapped[k])
		}
	}
	RemoveDelay(h, h, binHz, tau)
	for k, v := range h {
		if math.Abs(PhaseDeg(v)) > 1e-9 {
			t.Fatalf("bin %d: %v° after RemoveDelay", k, PhaseDeg(v))
		}
	}
}

func TestParseTransferAverage(t *testing.T) {
	for s, want := range map[string]TransferAverage{"polar": AveragePolar, "Complex": AverageComplex} {
		if got, err := ParseTransferAverage(s); err != nil || got != want || got.String() != s && s != "Complex" {
			t.Errorf("%q: %v, %v", s, got, err)
		}
	}
	if _, err := ParseTransferAverage("vector"); err == nil {
		t.Error("vector: no error")
	}
}

// The spatial average of two channels, against sums written out: the
// plain mean of the powers, and weights γ²/(1−γ²) (1 and 9 for γ² 0.5
// and 0.9); a bin without coherence anywhere takes the plain mean; γ² = 1
// weighs as 0.9999 does.
func TestTransferSpatialAverage(t *testing.T) {
	powers := [][]float64{{1, 1, 2}, {4, 3, 8}}
	coh := [][]float64{{0.5, 0, 1}, {0.9, 0, 0.5}}
	plain, weighted := make([]float64, 3), make([]float64, 3)
	SpatialAverage(plain, powers, coh, false)
	SpatialAverage(weighted, powers, coh, true)
	w := 0.9999 / (1 - 0.9999)
	for k, want := range []float64{2.5, 2, 5} {
		if math.Abs(plain[k]-want) > 1e-12 {
			t.Errorf("bin %d: plain %v, want %v", k, plain[k], want)
		}
	}
	for k, want := range []float64{(1 + 9*4) / 10.0, 2, (w*2 + 8) / (w + 1)} {
		if math.Abs(weighted[k]-want) > 1e-9 {
			t.Errorf("bin %d: weighted %v, want %v", k, weighted[k], want)
		}
	}
	if a := testing.AllocsPerRun(10, func() { SpatialAverage(weighted, powers, coh, true) }); a != 0 {
		t.Errorf("%v allocs per call", a)
	}
}
