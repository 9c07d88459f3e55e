// Harmonic distortion and noise of a sine: THD, THD+N, SNR and SINAD from a
// power-averaged spectrum.

package dsp

import (
	"errors"
	"fmt"
	"math"

	"github.com/prismaudio/prism/internal/kaiser"
	"gonum.org/v1/gonum/dsp/fourier"
)

// Harmonic is one harmonic of the fundamental.
type Harmonic struct {
	N       int     // 2 … 10
	FreqHz  float64 // N × the fundamental
	LevelDB float64 // dBFS (a full-scale sine reads 0); −Inf if below the noise
}

// Distortion is the analysis of a sine with its harmonics and noise. All
// ratios are of powers integrated over the analysed band (from just above
// DC to Nyquist, no weighting).
type Distortion struct {
	FundamentalHz   float64
	FundamentalDBFS float64
	THDPercent      float64 // 100·√(ΣH/F): harmonics 2…10 below Nyquist
	THDDB           float64 // 10·log10(ΣH/F)
	THDNDB          float64 // 10·log10((ΣH + N)/F), relative to the fundamental
	SNRDB           float64 // 10·log10(F/N), harmonics excluded from N
	SINADDB         float64 // 10·log10((F + ΣH + N)/(ΣH + N))
	Harmonics       []Harmonic
}

// ErrNoFundamental is returned when the spectrum holds no usable fundamental.
var ErrNoFundamental = errors.New("dsp: distortion: no fundamental found")

// AnalyzeDistortion measures the sine at fundamentalHz (0: the strongest
// component) in power, a one-sided power-averaged spectrum in linear DBFS
// units (Welch.Power with DBFS) taken with kernel's window, at binHz Hz
// per bin.
//
// Method: each component's power is the sum of its bins over the window's
// main lobe (±L bins, L the kernel's first minimum: 1 for rect, 2 for
// Hann, 4 for Blackman-Harris), which holds all of a sine's power but its
// side lobes; divided by the ENBW it reads amplitude². The fundamental
// frequency is RefineBin's estimate, harmonic n sits at n times it.
// Noise is every other bin from L+1 to Nyquist; its mean per bin, the
// noise density, is subtracted from each lobe and stands in for the noise
// under the lobes, so N is the noise of the whole band. Use a window whose
// side lobes lie below the noise (DistortionMeter uses Kaiser β=20).
func AnalyzeDistortion(power []float64, kernel *WindowKernel, binHz, fundamentalHz float64) (Distortion, error) {
	if len(power) < 16 {
		return Distortion{}, fmt.Errorf("dsp: distortion: spectrum of %d bins (want ≥ 16)", len(power))
	}
	lobe := kernel.mainLobe()
	f0, err := findFundamental(power, kernel, lobe, binHz, fundamentalHz)
	if err != nil {
		return Distortion{}, err
	}
	comp, nmax, noise := lobePowers(power, SumsOf(kernel.w).ENBW(), f0, lobe)
	fund := comp[1]
	if !(fund > 0) {
		return Distortion{}, ErrNoFundamental
	}
	d := Distortion{FundamentalHz: f0 * binHz, FundamentalDBFS: 10 * math.Log10(fund)}
	harm := 0.0
	for n := 2; n <= nmax; n++ {
		harm += comp[n]
		d.Harmonics = append(d.Harmonics, Harmonic{N: n, FreqHz: float64(n) * d.FundamentalHz, LevelDB: 10 * math.Log10(comp[n])})
	}
	d.THDPercent = 100 * math.Sqrt(harm/fund)
	d.THDDB = 10 * math.Log10(harm/fund)
	d.THDNDB = 10 * math.Log10((harm+noise)/fund)
	d.SNRDB = 10 * math.Log10(fund/noise)
	d.SINADDB = 10 * math.Log10((fund+harm+noise)/(harm+noise))
	return d, nil
}

// findFundamental is the fundamental's fractional bin: RefineBin at the
// largest bin above the DC lobe (within a lobe of fundamentalHz if that is
// given).
func findFundamental(power []float64, kernel *WindowKernel, lobe, binHz, fundamentalHz float64) (float64, error) {
	half := int(math.Ceil(lobe))
	last := len(power) - 1
	lo, hi := half+1, last
	if fundamentalHz > 0 {
		c := int(math.Round(fundamentalHz / binHz))
		lo, hi = max(lo, c-half), min(hi, c+half+1)
	}
	if lo >= hi || lo >= last {
		return 0, fmt.Errorf("%w: %v Hz is outside %v … %v Hz at this resolution", ErrNoFundamental, fundamentalHz, float64(half+1)*binHz, float64(last)*binHz)
	}
	b := maxBin(power, lo, hi)
	if b < 1 || b >= last || !(power[b] > 0) {
		return 0, ErrNoFundamental
	}
	f0 := kernel.RefineBin(power, b, binHz).Bin
	if f0 < 2*lobe+1 {
		return 0, fmt.Errorf("dsp: distortion: fundamental %.4g Hz is within %d bins of DC, where harmonic lobes overlap; use a longer transform", f0*binHz, 2*half+1)
	}
	return f0, nil
}

// lobePowers sums power (÷ ENBW: amplitude² per bin) over the main lobes
// (±lobe bins) of the fundamental at bin f0 (comp[1]) and its harmonics
// 2…nmax below Nyquist (comp[n]; a lobe that reaches past Nyquist is
// summed up to it), less the noise density under each, and
// returns the noise of the whole band from the DC lobe to Nyquist (the
// density times every bin, lobes included).
func lobePowers(power []float64, enbw, f0, lobe float64) (comp [11]float64, nmax int, noise float64) {
	// owner: 0 noise, 1 fundamental, n harmonic n, −1 DC (ignored).
	owner := make([]int, len(power))
	for k := 0; k <= int(math.Ceil(lobe)); k++ {
		owner[k] = -1
	}
	// A component below Nyquist whose lobe reaches past it is counted
	// whole: the one-sided spectrum folds the part beyond Nyquist back
	// onto the bins below it, inside the same lobe.
	last := len(power) - 1
	nmax = 1
	for n := 1; n <= 10 && float64(n)*f0 < float64(last); n++ {
		nmax = n
		c := float64(n) * f0
		for k := int(math.Ceil(c - lobe)); k <= min(int(math.Floor(c+lobe)), last); k++ {
			owner[k] = n
		}
	}
	var bins [11]int
	noiseBins := 0
	for k, p := range power {
		e := p / enbw
		switch o := owner[k]; {
		case o == 0:
			noise += e
			noiseBins++
		case o > 0:
			comp[o] += e
			bins[o]++
		}
	}
	density := noise / float64(max(noiseBins, 1))
	for n := 1; n <= nmax; n++ {
		comp[n] = max(comp[n]-density*float64(bins[n]), 0)
		noiseBins += bins[n]
	}
	return comp, nmax, density * float64(noiseBins)
}

// mainLobe is the half-width in bins of the window's main lobe: the first
// local minimum of K(ν) for ν > 0, found on a 0.01-bin grid (the minimum
// of a window's kernel in its first null: 1 for rect, 2 for Hann).
func (k *WindowKernel) mainLobe() float64 {
	prev := k.Power(0.5)
	for nu := 0.51; nu < float64(len(k.w))/4; nu += 0.01 {
		p := k.Power(nu)
		if p > prev {
			return nu - 0.01
		}
		prev = p
	}
	return float64(len(k.w)) / 4
}

// distortionBeta is the Kaiser β of DistortionOfSamples' window: side
// lobes near −190 dB, under any float64 noise floor, main lobe ±6.4 bins.
const distortionBeta = 20

// DistortionFFT is the transform size DistortionMeter uses for a record
// of samples samples: 65536, or the largest power of two that fits, at
// least 4096 (0 if the record is shorter).
func DistortionFFT(samples int64) int {
	n := int64(1 << 16)
	for n > samples && n > 4096 {
		n /= 2
	}
	if samples < n {
		return 0
	}
	return int(n)
}

// DistortionMeter streams one channel into a Welch average for
// AnalyzeDistortion: Kaiser-windowed (β=20) frames of a fixed size, 50 %
// overlap, float64 FFT. Writes do not allocate. One goroutine at a time
// may use it.
type DistortionMeter struct {
	win    []float64
	kernel *WindowKernel
	welch  *Welch
	fft    *fourier.FFT
	buf    []float64 // the current frame's samples so far
	fill   int
	frame  []float64
	coef   []complex128
	pow    []float64
}

// NewDistortionMeter makes a meter of fftSize-sample frames (a power of
// two, 4096 … 65536; see DistortionFFT) at sampleRate Hz.
func NewDistortionMeter(sampleRate float64, fftSize int) (*DistortionMeter, error) {
	if fftSize < 4096 || fftSize > 1<<16 || fftSize&(fftSize-1) != 0 {
		return nil, fmt.Errorf("dsp: distortion: FFT size %d (want a power of two, 4096 … 65536)", fftSize)
	}
	win := kaiserWindow(fftSize, distortionBeta)
	w, err := NewWelch(win, sampleRate)
	if err != nil {
		return nil, err
	}
	kernel, err := NewWindowKernel(win)
	if err != nil {
		return nil, err
	}
	return &DistortionMeter{
		win: win, kernel: kernel, welch: w, fft: fourier.NewFFT(fftSize),
		buf: make([]float64, fftSize), frame: make([]float64, fftSize),
		coef: make([]complex128, fftSize/2+1), pow: make([]float64, fftSize/2+1),
	}, nil
}

// Write adds samples (one channel, full scale ±1).
func (m *DistortionMeter) Write(x []float32) {
	n := len(m.buf)
	for len(x) > 0 {
		k := min(len(x), n-m.fill)
		for i, v := range x[:k] {
			m.buf[m.fill+i] = float64(v)
		}
		m.fill += k
		x = x[k:]
		if m.fill < n {
			return
		}
		for i, v := range m.buf {
			m.frame[i] = v * m.win[i]
		}
		m.fft.Coefficients(m.coef, m.frame)
		for k, c := range m.coef {
			m.pow[k] = real(c)*real(c) + imag(c)*imag(c)
		}
		m.welch.Add64(m.pow)
		copy(m.buf, m.buf[n/2:]) // 50 % overlap
		m.fill = n / 2
	}
}

// Frames is the number of frames averaged so far.
func (m *DistortionMeter) Frames() int { return m.welch.Frames() }

// Result analyses what was written (AnalyzeDistortion) around
// fundamentalHz (0: the strongest component). It fails if no whole frame
// was written.
func (m *DistortionMeter) Result(fundamentalHz float64) (Distortion, error) {
	if m.welch.Frames() == 0 {
		return Distortion{}, fmt.Errorf("dsp: distortion: fewer than %d samples", len(m.buf))
	}
	p := make([]float64, m.welch.Bins())
	m.welch.Power(p, DBFS)
	return AnalyzeDistortion(p, m.kernel, m.welch.BinHz(), fundamentalHz)
}

// DistortionOfSamples measures x (one channel, full scale ±1) at
// sampleRate Hz with a DistortionMeter of DistortionFFT(len(x)) points.
func DistortionOfSamples(x []float32, sampleRate, fundamentalHz float64) (Distortion, error) {
	n := DistortionFFT(int64(len(x)))
	if n == 0 {
		return Distortion{}, fmt.Errorf("dsp: distortion: %d samples (want ≥ 4096)", len(x))
	}
	m, err := NewDistortionMeter(sampleRate, n)
	if err != nil {
		return Distortion{}, err
	}
	m.Write(x)
	return m.Result(fundamentalHz)
}

// kaiserWindow is the periodic Kaiser window of n samples (scipy's
// get_window(("kaiser", β), n, fftbins=True)).
func kaiserWindow(n int, beta float64) []float64 {
	w := make([]float64, n)
	kaiser.Window(w, beta)
	return w
}
