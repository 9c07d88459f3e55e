package tfr

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/prismaudio/prism/gpufft"
)

// vqtBin is one variable-Q bin: its centre frequency in Hz and its Hann
// window, whose support is the samples t = −half…half around the frame's
// centre (|t| < length/2).
type vqtBin struct {
	freqHz float64
	length float64 // N_k = Rate/(α·f_k + γ), samples
	half   int     // ⌈N_k/2⌉ − 1
}

// hannAt is the bin's window at offset t from the centre.
func (b vqtBin) hannAt(t int) float64 { return 0.5 + 0.5*math.Cos(2*math.Pi*float64(t)/b.length) }

// windowSums are Σw and Σw² over the support.
func (b vqtBin) windowSums() (sum, sum2 float64) {
	for t := -b.half; t <= b.half; t++ {
		w := b.hannAt(t)
		sum += w
		sum2 += w * w
	}
	return sum, sum2
}

// fftSize is the smallest power of two holding the support (2·half+1
// samples) with the centre at index N/2.
func (b vqtBin) fftSize() int { return 1 << bits.Len(uint(2*b.half+1)) }

// vqtBins lays out the bins cfg asks for, ascending.
func vqtBins(cfg Config) ([]vqtBin, error) {
	bpo := cfg.BinsPerOctave
	if bpo < 12 || bpo > 96 {
		return nil, fmt.Errorf("tfr: vqt: %d bins per octave (want 12…96): %w", bpo, gpufft.ErrInvalid)
	}
	if !(cfg.FMin > 0) || !(cfg.Gamma >= 0) || math.IsInf(cfg.Gamma, 0) || !(cfg.FMax >= 0) {
		return nil, fmt.Errorf("tfr: vqt: fmin %g Hz, fmax %g Hz, gamma %g Hz (want > 0, ≥ 0, ≥ 0): %w", cfg.FMin, cfg.FMax, cfg.Gamma, gpufft.ErrInvalid)
	}
	alpha := math.Exp2(1/float64(bpo)) - 1 // 1/Q
	nyq := cfg.Rate / 2
	var out []vqtBin
	for k := 0; ; k++ {
		f := cfg.FMin * math.Exp2(float64(k)/float64(bpo))
		bw := alpha*f + cfg.Gamma
		// the highest bin keeps the mirror of a sine at its centre (at
		// −f_k, 2·(Rate/2 − f_k) away) 8 bandwidths off, where Hann's
		// sidelobes are below −64 dB: the level rule holds to 0.01 dB
		if f+4*bw > nyq || (cfg.FMax > 0 && f > cfg.FMax*(1+1e-9)) {
			break
		}
		b := vqtBin{freqHz: f, length: cfg.Rate / bw}
		b.half = int(math.Ceil(b.length/2)) - 1
		if b.length < 16 {
			return nil, fmt.Errorf("tfr: vqt: bin at %.4g Hz would be %.3g samples long (gamma %g Hz too large; want ≥ 16): %w", f, b.length, cfg.Gamma, gpufft.ErrInvalid)
		}
		out = append(out, b)
	}
	switch {
	case len(out) == 0:
		return nil, fmt.Errorf("tfr: vqt: no bin between %g Hz and %g Hz at %g Hz: %w", cfg.FMin, cfg.FMax, cfg.Rate, gpufft.ErrInvalid)
	case out[0].fftSize() > gpufft.MaxSize:
		return nil, fmt.Errorf("tfr: vqt: the %g Hz bin is %.0f samples long, more than the engines' %d (raise fmin or gamma): %w",
			cfg.FMin, out[0].length, gpufft.MaxSize, gpufft.ErrInvalid)
	}
	return out, nil
}

// kernelThreshold is where a bin's spectral kernel is cut: every weight
// left out is below this fraction of the row's largest. Hann's spectrum
// falls as 1/(π·x³) x bins from the centre, so 1e-8 keeps ±317 of the
// bin's own DFT bins (±317…634 of the FFT's). The cut must be that deep
// because the frame's own (rectangular) leakage falls only as 1/x: what
// the cut weights leave out of a −6 dBFS sine's leakage summed to about
// −140 dBFS at 1e-6 (0.03 dB at a −100 dBFS bin, in float64), −180 dBFS
// at 1e-8, below the float32 engines' own error (TestVQTMatchesDirect).
const kernelThreshold = 1e-8

// kernelHalfWidth is the half width in FFT bins (of size n) beyond which
// bin b's weights are below kernelThreshold: x·n/N_k with x(x²−1) =
// 1/(π·threshold), plus two bins for the sampled window's edges.
func kernelHalfWidth(b vqtBin, n int) int {
	x := math.Cbrt(1 / (math.Pi * kernelThreshold))
	for range 3 { // Newton on x³ − x − c
		c := 1 / (math.Pi * kernelThreshold)
		x -= (x*x*x - x - c) / (3*x*x - 1)
	}
	return int(math.Ceil(x*float64(n)/b.length)) + 2
}

// dirichlet is Σ_{t=−half}^{half} e^{iφt} = sin((2·half+1)φ/2)/sin(φ/2).
func dirichlet(phi float64, half int) float64 {
	s := math.Sin(phi / 2)
	if math.Abs(s) < 1e-12 {
		// at φ = 2πm the sum is (2·half+1)·(−1)^{m·2·half} = 2·half+1
		return float64(2*half + 1)
	}
	return math.Sin(float64(2*half+1)*phi/2) / s
}

// kernelRow returns bin b's spectral kernel for FFT frames of n samples
// centred on the frame's centre (index n/2), as a gpufft spectral kernel
// row: the first bin and the weights of Re X and Im X. The bin's value is
//
//	y = (2/Σw)·Σ_t w(t)·x[n/2+t]·e^{−iωt}, ω = 2π·f/Rate,
//
// which is (1/n)·Σ_{j<n} X_j·K_j with K_j = Σ_t a(t)·e^{2πij(t+n/2)/n}:
// in closed form, Hann being three complex exponentials, K_j =
// (−1)^j·(2/Σw)·[½D(φ) + ¼D(φ+2π/N_k) + ¼D(φ−2π/N_k)], φ = 2πj/n − ω, D
// the Dirichlet sum over the support. The real input's X_{n−j} =
// conj X_j folds j > n/2 onto the half spectrum: Re X_h weighs K_h +
// K_{n−h}, Im X_h weighs i·(K_h − K_{n−h}).
func kernelRow(b vqtBin, rate float64, n int, gain float64) (first int, re, im []complex64) {
	omega := 2 * math.Pi * b.freqHz / rate
	dw := 2 * math.Pi / b.length
	k := func(j int) complex128 {
		phi := 2*math.Pi*float64(j)/float64(n) - omega
		v := 0.5*dirichlet(phi, b.half) + 0.25*dirichlet(phi+dw, b.half) + 0.25*dirichlet(phi-dw, b.half)
		if j%2 != 0 {
			v = -v
		}
		return complex(v*gain/float64(n), 0)
	}
	centre := int(math.Round(b.freqHz / rate * float64(n)))
	w := kernelHalfWidth(b, n)
	first, last := max(0, centre-w), min(n/2, centre+w)
	for h := first; h <= last; h++ {
		kp, km := k(h), complex128(0)
		if h > 0 && h < n/2 {
			km = k(-h) // K_{n−h}: K is n-periodic
		}
		re = append(re, complex64(kp+km))
		im = append(im, complex64(1i*(kp-km)))
	}
	return first, re, im
}
