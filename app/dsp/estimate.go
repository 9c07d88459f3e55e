// Tone estimation: the frequency and level of a sine between bins, to a
// few thousandths of a bin and dB, for any window.

package dsp

import (
	"fmt"
	"math"
)

// Tone is the estimate of one sine's frequency and level.
type Tone struct {
	Bin       float64 // fractional bin, FreqHz/binHz
	FreqHz    float64
	Amplitude float64 // peak amplitude, 1 = full scale
	LevelDB   float64 // 20·log10(Amplitude): dBFS, a full-scale sine reads 0
}

func newTone(bin, amp2, binHz float64) Tone {
	a := math.Sqrt(max(amp2, 0))
	return Tone{Bin: bin, FreqHz: bin * binHz, Amplitude: a, LevelDB: 20 * math.Log10(a)}
}

// WindowKernel evaluates a window's power response K(ν) = |W(ν)|²/(Σw)²
// at fractional bin offsets ν, where W is the DTFT of the window samples
// (K(0) = 1), and holds the table that turns a peak's neighbour ratio into
// its offset and level (see RefineBin). It keeps its own copy of the
// window. Its methods only read it, so after NewWindowKernel returns it
// may be shared.
type WindowKernel struct {
	w     []float64
	sum   float64
	table peakTable
}

// NewWindowKernel copies window (N samples, Σw > 0) and builds its peak
// table (O(N), once). It fails if the window's main lobe is too narrow for
// the neighbour ratio to rise over the half bin.
func NewWindowKernel(window []float64) (*WindowKernel, error) {
	s := SumsOf(window)
	if !(s.Sum > 0) {
		return nil, fmt.Errorf("dsp: window kernel: Σw = %v (want > 0)", s.Sum)
	}
	k := &WindowKernel{w: append([]float64(nil), window...), sum: s.Sum}
	if err := k.table.build(window); err != nil {
		return nil, err
	}
	return k, nil
}

// N is the window's length.
func (k *WindowKernel) N() int { return len(k.w) }

// Power is K(ν), O(N), exact (the DTFT summed directly). It does not allocate.
func (k *WindowKernel) Power(nu float64) float64 {
	re, im := dtft(k.w, nil, nu)
	return (re*re + im*im) / (k.sum * k.sum)
}

// dtft returns Σ w[n]·x[n]·e^{-j2πνn/N} (x = nil means x ≡ 1), by a
// rotation recurrence (no trigonometry per sample; drift ~N·1e-16).
func dtft(w, x []float64, nu float64) (re, im float64) {
	sr, cr := math.Sincos(-2 * math.Pi * nu / float64(len(w)))
	c, s := 1.0, 0.0
	for n, wn := range w {
		if x != nil {
			wn *= x[n]
		}
		re += wn * c
		im += wn * s
		c, s = c*cr-s*sr, s*cr+c*sr
	}
	return re, im
}

// RefineBin estimates the sine around the local maximum bin b of power, a
// one-sided power spectrum in linear DBFS units (Welch.Power: a sine of
// amplitude A at a bin centre reads A²), taken with this kernel's window.
//
// Method: for one complex exponential at bin b+δ every bin reads
// A²·K(k−b−δ), so the amplitude ratio of the larger neighbour b+s to b,
// α = √(K(1−|δ|)/K(|δ|)), rises with |δ| on [0, ½] for every window whose
// main lobe reaches ±1 bin. NewWindowKernel tabulates its inverse |δ|(α)
// and the level correction 1/K(δ) on a uniform grid of α, solved on the
// exact kernel (peakTable); RefineBin reads them by linear interpolation,
// O(1), and A² = P_b/K(δ). The table adds under 1e-6 bin and 1e-6 dB; the
// only error left is what other components add to the three bins: the
// sine's own mirror image at −f (whose side lobes matter only for the
// rectangular window within a few tens of bins of DC or Nyquist), noise
// and neighbouring tones. Tests bound it at ≤ 0.02 bin and ≤ 0.02 dB for
// every window between 20 bins and Nyquist − 20 bins; use RefineFrame
// where the frame's samples are at hand. It does not allocate.
// It panics if b is not an interior bin.
func (k *WindowKernel) RefineBin(power []float64, b int, binHz float64) Tone {
	if b < 1 || b >= len(power)-1 {
		panic(fmt.Sprintf("dsp: RefineBin: bin %d of %d is not interior", b, len(power)))
	}
	return k.refine(power[b-1], power[b], power[b+1], b, binHz)
}

// refine is RefineBin on the powers of bins b−1, b and b+1: the one rule
// every peak readout uses.
func (k *WindowKernel) refine(below, p0, above float64, b int, binHz float64) Tone {
	s, side := 1.0, above
	if below > above {
		s, side = -1, below
	}
	if !(p0 > 0) {
		return newTone(float64(b), p0, binHz)
	}
	d, gain := k.table.lookup(math.Sqrt(side / p0))
	return newTone(float64(b)+s*d, p0*gain, binHz)
}

// FindToneDB is FindTone on a dBFS spectrum (bins 0…N/2, as the engines'
// DBFS output and the window's live spectrum hold it: a bin-centred sine
// of amplitude A reads 20·log10(A)), for the live peak readout: the
// maximum of bins 1…N/2−1, refined as RefineBin refines it. It does not
// allocate. It panics if db has fewer than 3 bins.
func (k *WindowKernel) FindToneDB(db []float32, binHz float64) Tone {
	if len(db) < 3 {
		panic(fmt.Sprintf("dsp: FindToneDB: %d bins", len(db)))
	}
	b := 1
	for i := 2; i < len(db)-1; i++ {
		if db[i] > db[b] {
			b = i
		}
	}
	p := func(i int) float64 { return math.Pow(10, float64(db[i])/10) }
	return k.refine(p(b-1), p(b), p(b+1), b, binHz)
}

// FindTone estimates the strongest sine in power (as for RefineBin),
// searching the bins from 1 to len(power)−2.
// It panics if power has fewer than 3 bins.
func (k *WindowKernel) FindTone(power []float64, binHz float64) Tone {
	return k.RefineBin(power, maxBin(power, 1, len(power)-1), binHz)
}

// maxBin is the index of the largest of power[lo:hi].
func maxBin(power []float64, lo, hi int) int {
	if lo < 0 || hi > len(power) || hi <= lo {
		panic(fmt.Sprintf("dsp: no bins in [%d, %d) of %d", lo, hi, len(power)))
	}
	b := lo
	for i := lo; i < hi; i++ {
		if power[i] > power[b] {
			b = i
		}
	}
	return b
}

// RefineFrame estimates the sine nearest startBin in one frame of samples
// (N = len(frame) = len(window)), to be used where the samples are at hand.
//
// Method: the weighted least-squares fit of a real sine a·cos + b·sin at
// frequency f to the frame, with weights w[n]² (the fit to the windowed
// frame, so far components are suppressed as by the window, and negative
// flat-top coefficients do no harm). The fit models the sine's mirror
// image exactly, so a lone sine in the frame gives its frequency and
// amplitude to rounding at any frequency, also next to DC and Nyquist. The
// explained energy J(f) = cᵀG⁻¹c (c = Σw²x[cos, sin], G their Gram
// matrix, both O(N) per f) is maximised by golden-section search over
// startBin ± 0.55 bins, to 1e-7 bins; startBin should be within half a bin
// of the peak (the maximum bin, or RefineBin's result). It does not
// allocate. It panics if len(frame) != len(window).
func RefineFrame(frame, window []float64, startBin, binHz float64) Tone {
	if len(frame) != len(window) || len(frame) < 2 {
		panic(fmt.Sprintf("dsp: RefineFrame: frame of %d, window of %d", len(frame), len(window)))
	}
	n := float64(len(frame))
	lo := max(startBin-0.55, 1e-6)
	hi := min(startBin+0.55, n/2-1e-6)
	const g = 0.6180339887498949
	a, b := hi-g*(hi-lo), lo+g*(hi-lo)
	fa, _ := sineFit(frame, window, a)
	fb, _ := sineFit(frame, window, b)
	for hi-lo > 1e-7 {
		if fa > fb {
			hi, b, fb = b, a, fa
			a = hi - g*(hi-lo)
			fa, _ = sineFit(frame, window, a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + g*(hi-lo)
			fb, _ = sineFit(frame, window, b)
		}
	}
	f := (lo + hi) / 2
	_, amp2 := sineFit(frame, window, f)
	return newTone(f, amp2, binHz)
}

// sineFit fits a·cos(2πfn/N) + b·sin(2πfn/N) to x with weights w² and
// returns the explained energy and a²+b².
func sineFit(x, w []float64, f float64) (energy, amp2 float64) {
	sr, cr := math.Sincos(2 * math.Pi * f / float64(len(x)))
	c, s := 1.0, 0.0
	var xc, xs, cc, ss, cs float64
	for i, wi := range w {
		ww := wi * wi
		wx := ww * x[i]
		xc += wx * c
		xs += wx * s
		cc += ww * c * c
		ss += ww * s * s
		cs += ww * c * s
		c, s = c*cr-s*sr, s*cr+c*sr
	}
	det := cc*ss - cs*cs
	if det <= 1e-12*(cc+ss)*(cc+ss) { // f at DC or Nyquist: the sine term vanishes
		if !(cc > 0) {
			return 0, 0
		}
		a := xc / cc
		return a * xc, a * a
	}
	a := (ss*xc - cs*xs) / det
	b := (cc*xs - cs*xc) / det
	return a*xc + b*xs, a*a + b*b
}
