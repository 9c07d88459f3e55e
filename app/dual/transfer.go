package dual

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"strings"

	"github.com/prismaudio/prism/app/dsp"
)

// Dual-channel measurement: a reference x (what goes into the system) and
// a measurement y (what comes out). Per bin k of each frame's spectra X, Y
// the cross- and auto-spectra are
//
//	Gxy = conj(X)·Y,  Gxx = |X|²,  Gyy = |Y|²
//
// averaged over frames (CrossAverager, or a gpufft transfer plan); from
// the averages, the H1 estimate of the transfer function H = Gxy/Gxx, its
// phase arg(Gxy) and the coherence γ² = |Gxy|²/(Gxx·Gyy). A measurement
// that lags the reference by D samples has Gxy ∝ e^(−iωD): its impulse
// response (DelayFinder) peaks at +D.

// TransferAverage says how frames are averaged into a transfer function,
// as Smaart names the two.
type TransferAverage int

const (
	// AveragePolar averages magnitude and phase separately: the
	// magnitude is averaged as power, |H|² = mean(Gyy)/mean(Gxx) (each
	// channel's power averaged on its own), the phase is that of the
	// vector mean of Gxy. It keeps its level where the phase of frames
	// wanders (wind, moving air) and a vector mean would cancel, and like
	// any power average it reads uncorrelated noise on the measurement as
	// level (where the coherence is low). Per-frame ratios |Y|²/|X|² are
	// not averaged: with a noise stimulus their mean has no bound (bins
	// where |X| comes near 0).
	AveragePolar TransferAverage = iota
	// AverageComplex averages Gxy vectorially: H = mean(Gxy)/mean(Gxx),
	// the H1 estimator. Uncorrelated noise on the measurement averages
	// out of it.
	AverageComplex
)

// String is "polar" or "complex".
func (a TransferAverage) String() string {
	switch a {
	case AveragePolar:
		return "polar"
	case AverageComplex:
		return "complex"
	}
	return fmt.Sprintf("average(%d)", int(a))
}

// ParseTransferAverage reads "polar" or "complex".
func ParseTransferAverage(s string) (TransferAverage, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "polar":
		return AveragePolar, nil
	case "complex":
		return AverageComplex, nil
	}
	return 0, fmt.Errorf("dual: average %q (want polar or complex)", s)
}

// ExpAlpha is the weight per frame of an exponential average whose time
// constant is tau seconds, frames coming hop samples apart at sampleRate
// (Hz): 1 − e^(−hop/(sampleRate·tau)), so a frame's weight falls to 1/e
// after tau seconds of frames. It is at least the smallest positive
// float32 (a tau far longer than a frame still averages).
func ExpAlpha(tau float64, hop, sampleRate int) float64 {
	a := -math.Expm1(-float64(hop) / (float64(sampleRate) * tau))
	return max(a, math.SmallestNonzeroFloat32)
}

// CrossSpectra are one measurement channel's averaged spectra, one value
// per bin each (all slices the same length).
type CrossSpectra struct {
	Gxy      []complex128 // mean of conj(X)·Y
	Gxx, Gyy []float64    // means of |X|², |Y|²
}

// NewCrossSpectra allocates spectra of bins values each.
func NewCrossSpectra(bins int) CrossSpectra {
	return CrossSpectra{Gxy: make([]complex128, bins), Gxx: make([]float64, bins),
		Gyy: make([]float64, bins)}
}

// Bins is the number of bins.
func (s CrossSpectra) Bins() int { return len(s.Gxy) }

// Response writes the complex transfer function into dst (Bins values):
// mean(Gxy)/mean(Gxx) for AverageComplex; for AveragePolar the magnitude
// √(mean(Gyy)/mean(Gxx)) with the phase of mean(Gxy). A bin without reference power
// (Gxx = 0) reads 0. It does not allocate, and panics if dst is short.
func (s CrossSpectra) Response(dst []complex128, avg TransferAverage) {
	dst = dst[:len(s.Gxy)]
	for k, g := range s.Gxy {
		switch {
		case !(s.Gxx[k] > 0):
			dst[k] = 0
		case avg == AveragePolar:
			m := math.Sqrt(s.Gyy[k] / s.Gxx[k])
			if a := cmplx.Abs(g); a == 0 {
				dst[k] = complex(m, 0)
			} else {
				dst[k] = g * complex(m/a, 0)
			}
		default:
			dst[k] = g / complex(s.Gxx[k], 0)
		}
	}
}

// Coherence writes γ² = |Gxy|²/(Gxx·Gyy) per bin into dst, clamped to
// [0, 1] (rounding can exceed 1 by an ulp); a bin without power on either
// channel reads 0. It does not allocate.
func (s CrossSpectra) Coherence(dst []float64) {
	dst = dst[:len(s.Gxy)]
	for k, g := range s.Gxy {
		dst[k] = Coherence(g, s.Gxx[k], s.Gyy[k])
	}
}

// Coherence is γ² = |gxy|²/(gxx·gyy) in [0, 1], 0 when gxx·gyy is 0.
func Coherence(gxy complex128, gxx, gyy float64) float64 {
	d := gxx * gyy
	if !(d > 0) {
		return 0
	}
	re, im := real(gxy), imag(gxy)
	return min(1, (re*re+im*im)/d)
}

// MagnitudeDB is 20·log10|h|, floored at dsp.FloorDB (and dsp.FloorDB for 0).
func MagnitudeDB(h complex128) float64 {
	p := real(h)*real(h) + imag(h)*imag(h)
	return PowerRatioDB(p)
}

// PowerRatioDB is 10·log10(p) floored at dsp.FloorDB.
func PowerRatioDB(p float64) float64 {
	if !(p > 0) {
		return dsp.FloorDB
	}
	return max(dsp.FloorDB, 10*math.Log10(p))
}

// PhaseDeg is arg(h) in degrees, wrapped to (−180, 180].
func PhaseDeg(h complex128) float64 {
	d := math.Atan2(imag(h), real(h)) * 180 / math.Pi
	if d <= -180 {
		d += 360
	}
	return d
}

// RemoveDelay writes h[k]·e^(+i·2π·f_k·delay) into dst, f_k = k·binHz: the
// response with a pure delay of delay seconds taken out, so a system that
// only delays reads 0° at every bin. dst may be h. It does not allocate.
func RemoveDelay(dst, h []complex128, binHz, delay float64) {
	dst = dst[:len(h)]
	for k, v := range h {
		s, c := math.Sincos(2 * math.Pi * float64(k) * binHz * delay)
		dst[k] = v * complex(c, s)
	}
}

// UnwrapDeg writes the unwrapped sequence of the wrapped phases src
// (degrees) into dst: each step between neighbours is brought into
// (−180, 180] by whole turns. dst may be src.
func UnwrapDeg(dst, src []float64) {
	dst = dst[:len(src)]
	off, prev := 0.0, 0.0
	for k, p := range src {
		if k > 0 {
			off -= 360 * math.Round((p-prev)/360)
		}
		prev = p // src[k] before dst[k] (which may be it) is written
		dst[k] = p + off
	}
}

// GroupDelay writes τ_k = −dφ/dω (seconds) from the unwrapped phase
// (degrees) per bin of binHz into dst, by central differences (one-sided
// at the ends). dst must not be phaseDeg. Panics with fewer than 2 bins.
func GroupDelay(dst, phaseDeg []float64, binHz float64) {
	n := len(phaseDeg)
	dst = dst[:n]
	if n < 2 {
		panic("dual: GroupDelay needs 2 bins or more")
	}
	// dφ/df in degrees per Hz → seconds: −(dφ/360)/df
	scale := -1 / (360 * binHz)
	dst[0] = (phaseDeg[1] - phaseDeg[0]) * scale
	dst[n-1] = (phaseDeg[n-1] - phaseDeg[n-2]) * scale
	for k := 1; k < n-1; k++ {
		dst[k] = (phaseDeg[k+1] - phaseDeg[k-1]) * scale / 2
	}
}

// Frame averaging of cross spectra.

// MaxTransferFrames is the most frames a FIFO average holds.
const MaxTransferFrames = 256

// ErrTransferAverage is a FIFO length or exponential weight out of range.
var ErrTransferAverage = errors.New("dual: invalid transfer average")

// CrossAverager averages one measurement channel's frames into
// CrossSpectra, in float64: a FIFO of the last Frames frames (their
// products kept in a ring, each average summed afresh from it, so no
// rounding drifts) or, with Frames 0, an exponential average of weight
// Alpha starting at the first frame. Add does not allocate.
type CrossAverager struct {
	bins, frames int
	alpha        float64
	ring         []float64 // frames×bins×4: Gxy re, im, Gxx, Gyy
	next, count  int
	avg          CrossSpectra
	started      bool
}

// NewCrossAverager makes an averager of bins bins: frames in
// 1…MaxTransferFrames for a FIFO, or 0 and 0 < alpha ≤ 1 for the
// exponential average.
func NewCrossAverager(bins, frames int, alpha float64) (*CrossAverager, error) {
	switch {
	case bins < 1:
		return nil, fmt.Errorf("%w: %d bins", ErrTransferAverage, bins)
	case frames < 0 || frames > MaxTransferFrames:
		return nil, fmt.Errorf("%w: %d frames (want 1…%d, or 0 for exponential)", ErrTransferAverage, frames, MaxTransferFrames)
	case frames == 0 && !(alpha > 0 && alpha <= 1):
		return nil, fmt.Errorf("%w: exponential weight %v (want 0 < α ≤ 1)", ErrTransferAverage, alpha)
	}
	return &CrossAverager{bins: bins, frames: frames, alpha: alpha,
		ring: make([]float64, frames*bins*4), avg: NewCrossSpectra(bins)}, nil
}

// Reset forgets every frame.
func (a *CrossAverager) Reset() {
	a.next, a.count, a.started = 0, 0, false
}

// Frames is the number of frames in the current average (the exponential
// average counts every frame added).
func (a *CrossAverager) Frames() int { return a.count }

// Add averages in one frame's reference spectrum x and measurement
// spectrum y (Bins values each). It does not allocate, and panics if
// either is short.
func (a *CrossAverager) Add(x, y []complex128) {
	x, y = x[:a.bins], y[:a.bins]
	if a.frames == 0 {
		a.addExp(x, y)
		return
	}
	r := a.ring[a.next*a.bins*4 : (a.next+1)*a.bins*4]
	for k := range x {
		gxy, gxx, gyy := products(x[k], y[k])
		r[4*k], r[4*k+1], r[4*k+2], r[4*k+3] = real(gxy), imag(gxy), gxx, gyy
	}
	a.next = (a.next + 1) % a.frames
	a.count = min(a.count+1, a.frames)
	n := float64(a.count)
	for k := range x {
		var s [4]float64
		for f := range a.count {
			v := a.ring[(f*a.bins+k)*4:]
			s[0], s[1], s[2], s[3] = s[0]+v[0], s[1]+v[1], s[2]+v[2], s[3]+v[3]
		}
		a.avg.Gxy[k] = complex(s[0]/n, s[1]/n)
		a.avg.Gxx[k], a.avg.Gyy[k] = s[2]/n, s[3]/n
	}
}

func (a *CrossAverager) addExp(x, y []complex128) {
	al := a.alpha
	if !a.started {
		al, a.started = 1, true
	}
	s := a.avg
	for k := range x {
		gxy, gxx, gyy := products(x[k], y[k])
		s.Gxy[k] += complex(al, 0) * (gxy - s.Gxy[k])
		s.Gxx[k] += al * (gxx - s.Gxx[k])
		s.Gyy[k] += al * (gyy - s.Gyy[k])
	}
	a.count++
}

// products are one frame's Gxy, Gxx and Gyy of one bin.
func products(x, y complex128) (gxy complex128, gxx, gyy float64) {
	gxy = cmplx.Conj(x) * y
	gxx = real(x)*real(x) + imag(x)*imag(x)
	gyy = real(y)*real(y) + imag(y)*imag(y)
	return
}

// Spectra returns the current averages. The slices are the averager's and
// change with the next Add.
func (a *CrossAverager) Spectra() CrossSpectra { return a.avg }

// SpatialAverage writes into dst the spatial average of several
// measurement channels' transfer functions, per bin, as power (|H|²):
// powers[c] and coherences[c] are channel c's |H|² and γ² (Bins values
// each). Plain: the mean of the powers. Coherence-weighted: each power
// weighs γ²/(1−γ²), the channel's signal-to-noise estimate (the H1
// magnitude's variance goes as (1−γ²)/γ², so this is an inverse-variance
// weight), γ² clamped to 0.9999 so that one near-perfect channel does not
// take the whole average; a bin where every weight is 0 takes the plain
// mean. It does not allocate, and panics if the slices' lengths differ.
func SpatialAverage(dst []float64, powers, coherences [][]float64, weighted bool) {
	if len(powers) == 0 || (weighted && len(coherences) != len(powers)) {
		panic("dual: SpatialAverage: no channels, or coherences that do not match them")
	}
	dst = dst[:len(powers[0])]
	for k := range dst {
		sum, wsum, wpow := 0.0, 0.0, 0.0
		for c, p := range powers {
			v := p[k]
			sum += v
			if weighted {
				g := min(max(coherences[c][k], 0), 0.9999)
				w := g / (1 - g)
				wsum += w
				wpow += w * v
			}
		}
		if weighted && wsum > 0 {
			dst[k] = wpow / wsum
		} else {
			dst[k] = sum / float64(len(powers))
		}
	}
}
