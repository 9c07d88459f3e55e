package pitch

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// DefaultThreshold is YIN's absolute threshold on the cumulative mean
// normalized difference: the paper's 0.1…0.15 (0.15 keeps breathy and
// lightly noisy voices voiced; white noise stays near 1).
const DefaultThreshold = 0.15

// Config is what a Detector estimates.
type Config struct {
	SampleRate   int     // Hz
	MinHz, MaxHz float64 // the f0 search range: lags sampleRate/MaxHz … sampleRate/MinHz
	Threshold    float64 // the absolute threshold, 0 < Threshold < 1; 0 is DefaultThreshold
}

// Estimate is one frame's result: F0Hz is NaN where the frame is
// unvoiced; Confidence is 1 − the normalized difference at the best lag
// (in 0…1; 1 is exactly periodic), given for unvoiced frames too.
type Estimate struct {
	F0Hz, Confidence float64
}

// Detector is YIN over frames of FrameLen samples. Its buffers and FFT
// are its own: one goroutine uses it at a time.
type Detector struct {
	cfg              Config
	window, minLag   int // W, τmin
	maxLag           int // τmax; d is computed up to τmax+1 for the interpolation
	fft              *fourier.FFT
	x, a, prefix, r  []float64
	spec, specA      []complex128
	diff, normalized []float64
}

// NewDetector checks cfg and sizes the buffers: the integration window W
// is the longest period searched (ceil(SampleRate/MinHz) samples), a
// frame is W + 2(τmax + 1) samples.
func NewDetector(cfg Config) (*Detector, error) {
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultThreshold
	}
	switch {
	case cfg.SampleRate <= 0:
		return nil, fmt.Errorf("pitch: sample rate %d Hz", cfg.SampleRate)
	case !(cfg.MinHz > 0) || !(cfg.MaxHz > cfg.MinHz):
		return nil, fmt.Errorf("pitch: range %g…%g Hz: want 0 < min < max", cfg.MinHz, cfg.MaxHz)
	case cfg.MaxHz > float64(cfg.SampleRate)/4:
		return nil, fmt.Errorf("pitch: max %g Hz above a quarter of the sample rate (%g Hz)", cfg.MaxHz, float64(cfg.SampleRate)/4)
	case !(cfg.Threshold > 0 && cfg.Threshold < 1):
		return nil, fmt.Errorf("pitch: threshold %g: want 0 < threshold < 1", cfg.Threshold)
	}
	maxLag := int(math.Ceil(float64(cfg.SampleRate) / cfg.MinHz))
	if maxLag > 1<<16 {
		return nil, fmt.Errorf("pitch: min %g Hz: a period of %d samples is too long", cfg.MinHz, maxLag)
	}
	d := &Detector{cfg: cfg, window: maxLag, maxLag: maxLag,
		minLag: max(2, int(math.Floor(float64(cfg.SampleRate)/cfg.MaxHz)))}
	n := 1
	for n < d.FrameLen() {
		n *= 2
	}
	d.fft = fourier.NewFFT(n)
	d.x, d.a, d.r = make([]float64, n), make([]float64, n), make([]float64, n)
	d.prefix = make([]float64, d.FrameLen()+1)
	d.spec, d.specA = make([]complex128, n/2+1), make([]complex128, n/2+1)
	d.diff, d.normalized = make([]float64, maxLag+2), make([]float64, maxLag+2)
	return d, nil
}

// Config is the detector's configuration, Threshold filled in.
func (d *Detector) Config() Config { return d.cfg }

// FrameLen is the number of samples Estimate takes: the window W with
// τmax + 1 samples on either side. An estimate belongs to the frame's
// centre.
func (d *Detector) FrameLen() int { return d.window + 2*d.margin() }

// Estimate is YIN on frame (FrameLen samples). It panics on another
// length; it does not allocate.
func (d *Detector) Estimate(frame []float32) Estimate {
	if len(frame) != d.FrameLen() {
		panic(fmt.Sprintf("pitch: frame of %d samples, want %d", len(frame), d.FrameLen()))
	}
	d.difference(frame)
	d.normalize()
	lag, ok := d.pick()
	if !ok {
		return Estimate{F0Hz: math.NaN(), Confidence: confidence(d.normalized[lag])}
	}
	return Estimate{F0Hz: float64(d.cfg.SampleRate) / d.interpolate(lag), Confidence: confidence(d.normalized[lag])}
}

// difference writes d(τ) for τ = 0…τmax+1 into d.diff (YIN step 2, the
// centred form: the mean of the window's squared differences from the
// samples τ after and τ before it).
func (d *Detector) difference(frame []float32) {
	clear(d.x)
	clear(d.a)
	d.prefix[0] = 0
	for i, v := range frame {
		x := float64(v)
		d.x[i] = x
		d.prefix[i+1] = d.prefix[i] + x*x
	}
	m, w := d.margin(), d.window
	copy(d.a[m:m+w], d.x[m:m+w])
	d.fft.Coefficients(d.spec, d.x)
	d.fft.Coefficients(d.specA, d.a)
	for i, b := range d.spec {
		d.spec[i] = cmplx.Conj(d.specA[i]) * b
	}
	d.fft.Sequence(d.r, d.spec) // r[k] = Σ a[i]·x[(i+k) mod N]·N, no wrap-around for |k| ≤ m
	n := len(d.r)
	scale := 1 / float64(n)
	energy := func(from int) float64 { return d.prefix[from+w] - d.prefix[from] }
	e0 := energy(m)
	for lag := range d.diff {
		after, before := d.r[lag]*scale, d.r[(n-lag)%n]*scale
		d.diff[lag] = max(0, e0+0.5*(energy(m+lag)+energy(m-lag))-after-before)
	}
}

// margin is the samples on either side of the window: τmax + 1.
func (d *Detector) margin() int { return d.maxLag + 1 }

// normalize writes the cumulative mean normalized difference d′ (YIN
// step 3) into d.normalized; d′ is 1 where the running sum is zero.
func (d *Detector) normalize() {
	d.normalized[0] = 1
	sum := 0.0
	for lag := 1; lag < len(d.diff); lag++ {
		sum += d.diff[lag]
		if sum > 0 {
			d.normalized[lag] = d.diff[lag] * float64(lag) / sum
		} else {
			d.normalized[lag] = 1
		}
	}
}

// pick is YIN step 4: the first lag in τmin…τmax whose d′ is below the
// threshold, followed down to its local minimum (ok); without one, the
// lag of the smallest d′ (not ok: unvoiced).
func (d *Detector) pick() (lag int, ok bool) {
	best := d.minLag
	for lag := d.minLag; lag <= d.maxLag; lag++ {
		v := d.normalized[lag]
		if v < d.cfg.Threshold {
			for lag < d.maxLag && d.normalized[lag+1] < d.normalized[lag] {
				lag++
			}
			return lag, true
		}
		if v < d.normalized[best] {
			best = lag
		}
	}
	return best, false
}

// interpolate is YIN step 5: the vertex of the parabola through d at
// lag−1, lag, lag+1 (lag itself where they are not convex), at most one
// sample away.
func (d *Detector) interpolate(lag int) float64 {
	l, c, r := d.diff[lag-1], d.diff[lag], d.diff[lag+1]
	den := l - 2*c + r
	if den <= 0 {
		return float64(lag)
	}
	return float64(lag) + max(-1, min(1, 0.5*(l-r)/den))
}

func confidence(normalized float64) float64 { return max(0, min(1, 1-normalized)) }
