// Programme loudness per ITU-R BS.1770-4 and EBU R128 (Tech 3341/3342):
// K-weighting, momentary and short-term loudness, gated integrated loudness
// and loudness range.

package meter

import (
	"fmt"
	"math"
)

// biquad is one second-order section, a0 = 1.
type biquad struct{ b0, b1, b2, a1, a2 float64 }

// kWeighting derives BS.1770's two K-weighting sections for any sample
// rate from their analogue prototypes by the bilinear transform with
// pre-warping (the method libebur128 uses), so that at 48 kHz they equal
// the coefficients tabulated in BS.1770-4 Annex 1. The constants are the
// prototypes' fitted parameters: a high shelf of +4 dB around 1.68 kHz
// (the head's acoustic effect) and a second-order high-pass at 38 Hz
// (RLB weighting).
func kWeighting(sampleRate float64) [2]biquad {
	const (
		shelfHz   = 1681.974450955533
		shelfDB   = 3.999843853973347
		shelfQ    = 0.7071752369554196
		highHz    = 38.13547087602444
		highQ     = 0.5003270373238773
		shelfBExp = 0.4996667741545416 // Vb = Vh^this: the shelf's mid-band gain
	)
	k := math.Tan(math.Pi * shelfHz / sampleRate)
	vh := math.Pow(10, shelfDB/20)
	vb := math.Pow(vh, shelfBExp)
	a0 := 1 + k/shelfQ + k*k
	shelf := biquad{
		b0: (vh + vb*k/shelfQ + k*k) / a0,
		b1: 2 * (k*k - vh) / a0,
		b2: (vh - vb*k/shelfQ + k*k) / a0,
		a1: 2 * (k*k - 1) / a0,
		a2: (1 - k/shelfQ + k*k) / a0,
	}
	k = math.Tan(math.Pi * highHz / sampleRate)
	a0 = 1 + k/highQ + k*k
	high := biquad{b0: 1, b1: -2, b2: 1, a1: 2 * (k*k - 1) / a0, a2: (1 - k/highQ + k*k) / a0}
	return [2]biquad{shelf, high}
}

// kFilter is one channel's K-weighting state (transposed direct form II).
type kFilter struct{ s [2][2]float64 }

func (f *kFilter) step(q *[2]biquad, x float64) float64 {
	for i := range q {
		c, s := &q[i], &f.s[i]
		y := c.b0*x + s[0]
		s[0] = c.b1*x - c.a1*y + s[1]
		s[1] = c.b2*x - c.a2*y
		x = y
	}
	return x
}

// DefaultChannelWeights are BS.1770-4's channel weights G_i for n channels
// in the usual order: 1 for each channel up to 4; for 5 channels
// L R C Ls Rs and 6 channels L R C LFE Ls Rs the surrounds weigh 1.41 and
// the LFE 0.
func DefaultChannelWeights(n int) []float64 {
	g := make([]float64, n)
	for i := range g {
		g[i] = 1
	}
	switch n {
	case 5:
		g[3], g[4] = 1.41, 1.41
	case 6:
		g[3], g[4], g[5] = 0, 1.41, 1.41
	}
	return g
}

const (
	absoluteGateLUFS = -70.0
	integratedGateLU = -10.0 // BS.1770-4 relative gate
	rangeGateLU      = -20.0 // Tech 3342 relative gate
	histLowLUFS      = absoluteGateLUFS
	histStepLU       = 0.01
	histBins         = 10000 // −70 … +30 LUFS
)

// loudnessHist collects block powers above the absolute gate in 0.01 LU
// bins, keeping each bin's exact power sum: gating and percentiles then
// cost nothing per block and need no storage growing with the programme.
type loudnessHist struct {
	count [histBins]int
	sum   [histBins]float64
	n     int
	total float64
}

// lufs converts a channel-weighted mean square into LUFS.
func lufs(power float64) float64 { return -0.691 + 10*math.Log10(power) }

func (h *loudnessHist) add(power float64) {
	l := lufs(power)
	if !(l > absoluteGateLUFS) {
		return
	}
	i := min(int((l-histLowLUFS)/histStepLU), histBins-1)
	h.count[i]++
	h.sum[i] += power
	h.n++
	h.total += power
}

func (h *loudnessHist) reset() { *h = loudnessHist{} }

// gate returns the first bin at or above the relative gate gateLU below
// the mean power of every block (blocks in a bin whose centre is above the
// gate count; the gate is resolved to 0.01 LU).
func (h *loudnessHist) gate(gateLU float64) int {
	g := lufs(h.total/float64(h.n)) + gateLU
	return max(0, int(math.Floor((g-histLowLUFS)/histStepLU+0.5)))
}

// Loudness measures a programme's loudness as it streams in: momentary
// (400 ms) and short-term (3 s) loudness every 100 ms, integrated loudness
// (absolute gate −70 LUFS, relative gate −10 LU) and loudness range (EBU
// Tech 3342: short-term values every 100 ms, −70 LUFS and −20 LU gates,
// 95th minus 10th percentile). Samples are floats with full scale ±1.
// Only whole 100 ms steps are measured: a shorter tail is not.
// Writes do not allocate. One goroutine at a time may use a Loudness.
type Loudness struct {
	channels int
	weights  []float64
	filters  []kFilter
	coef     [2]biquad
	stepLen  int // samples in 100 ms
	pos      int // samples of the current step so far
	acc      float64
	steps    [30]float64 // channel-weighted Σy² of the last 30 steps, ring
	nsteps   int
	mom, st  float64 // latest mean powers (0 until the window is full)
	momMax   float64
	stMax    float64
	blocks   loudnessHist // momentary (gating) blocks
	short    loudnessHist // short-term values
}

// NewLoudness makes a meter for channels channels at sampleRate Hz, with
// BS.1770 channel weights (nil: DefaultChannelWeights).
func NewLoudness(sampleRate float64, channels int, weights []float64) (*Loudness, error) {
	if !(sampleRate >= 8000) || sampleRate > 1e6 {
		return nil, fmt.Errorf("dsp: loudness: sample rate %v Hz (want 8000 … 1e6)", sampleRate)
	}
	if channels < 1 {
		return nil, fmt.Errorf("dsp: loudness: %d channels", channels)
	}
	if weights == nil {
		weights = DefaultChannelWeights(channels)
	}
	if len(weights) != channels {
		return nil, fmt.Errorf("dsp: loudness: %d weights for %d channels", len(weights), channels)
	}
	for _, g := range weights {
		if !(g >= 0) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("dsp: loudness: channel weight %v (want ≥ 0)", g)
		}
	}
	return &Loudness{
		channels: channels,
		weights:  append([]float64(nil), weights...),
		filters:  make([]kFilter, channels),
		coef:     kWeighting(sampleRate),
		stepLen:  int(math.Round(sampleRate / 10)),
	}, nil
}

// Reset forgets everything measured.
func (l *Loudness) Reset() {
	clear(l.filters)
	l.pos, l.acc, l.nsteps = 0, 0, 0
	l.steps = [30]float64{}
	l.mom, l.st, l.momMax, l.stMax = 0, 0, 0, 0
	l.blocks.reset()
	l.short.reset()
}

// WriteInterleaved measures frames of interleaved samples. It panics if
// len(samples) is not a multiple of the channel count.
func (l *Loudness) WriteInterleaved(samples []float32) {
	if len(samples)%l.channels != 0 {
		panic(fmt.Sprintf("dsp: Loudness.WriteInterleaved: %d samples for %d channels", len(samples), l.channels))
	}
	for i := 0; i < len(samples); i += l.channels {
		sum := 0.0
		for c, x := range samples[i : i+l.channels] {
			y := l.filters[c].step(&l.coef, float64(x))
			sum += l.weights[c] * y * y
		}
		l.addFrame(sum)
	}
}

// WritePlanar measures one block per channel, all of the same length. It
// panics if len(block) differs from the channel count or the lengths differ.
func (l *Loudness) WritePlanar(block [][]float32) {
	if len(block) != l.channels {
		panic(fmt.Sprintf("dsp: Loudness.WritePlanar: %d channels, want %d", len(block), l.channels))
	}
	n := len(block[0])
	for _, b := range block {
		if len(b) != n {
			panic("dsp: Loudness.WritePlanar: channel blocks differ in length")
		}
	}
	for i := range n {
		sum := 0.0
		for c, b := range block {
			y := l.filters[c].step(&l.coef, float64(b[i]))
			sum += l.weights[c] * y * y
		}
		l.addFrame(sum)
	}
}

func (l *Loudness) addFrame(weightedSq float64) {
	l.acc += weightedSq
	l.pos++
	if l.pos < l.stepLen {
		return
	}
	l.steps[l.nsteps%len(l.steps)] = l.acc
	l.nsteps++
	l.acc, l.pos = 0, 0
	if l.nsteps >= 4 {
		l.mom = l.window(4)
		l.momMax = max(l.momMax, l.mom)
		l.blocks.add(l.mom)
	}
	if l.nsteps >= 30 {
		l.st = l.window(30)
		l.stMax = max(l.stMax, l.st)
		l.short.add(l.st)
	}
}

// window is the mean weighted power of the last k steps.
func (l *Loudness) window(k int) float64 {
	s := 0.0
	for i := 1; i <= k; i++ {
		s += l.steps[(l.nsteps-i)%len(l.steps)]
	}
	return s / float64(k*l.stepLen)
}

// Momentary is the latest momentary loudness (LUFS, last 400 ms), −Inf
// before 400 ms have been measured or in silence.
func (l *Loudness) Momentary() float64 { return lufs(l.mom) }

// ShortTerm is the latest short-term loudness (LUFS, last 3 s), −Inf
// before 3 s have been measured.
func (l *Loudness) ShortTerm() float64 { return lufs(l.st) }

// MomentaryMax is the largest momentary loudness so far (LUFS; −Inf if none).
func (l *Loudness) MomentaryMax() float64 { return lufs(l.momMax) }

// ShortTermMax is the largest short-term loudness so far (LUFS; −Inf if none).
func (l *Loudness) ShortTermMax() float64 { return lufs(l.stMax) }

// Integrated is the gated integrated loudness (LUFS) of everything
// written: the mean power of the 400 ms blocks (75 % overlap) above
// −70 LUFS and above the mean of those minus 10 LU. −Inf if no block
// passes the absolute gate.
func (l *Loudness) Integrated() float64 {
	h := &l.blocks
	if h.n == 0 {
		return math.Inf(-1)
	}
	sum, n := 0.0, 0
	for i := h.gate(integratedGateLU); i < histBins; i++ {
		sum += h.sum[i]
		n += h.count[i]
	}
	return lufs(sum / float64(n))
}

// Range is the loudness range (LU, EBU Tech 3342): of the short-term
// values above −70 LUFS and above their power mean minus 20 LU, the 95th
// percentile minus the 10th (nearest rank, 0.01 LU resolution). 0 if no
// short-term value passes the gates.
func (l *Loudness) Range() float64 {
	h := &l.short
	if h.n == 0 {
		return 0
	}
	g := h.gate(rangeGateLU)
	n := 0
	for i := g; i < histBins; i++ {
		n += h.count[i]
	}
	lo := h.percentileBin(g, n, 0.10)
	hi := h.percentileBin(g, n, 0.95)
	return float64(hi-lo) * histStepLU
}

// percentileBin is the bin of the value of rank round((n−1)·p) (0-based)
// among the n values from bin g up.
func (h *loudnessHist) percentileBin(g, n int, p float64) int {
	rank := int(math.Round(float64(n-1) * p))
	for i := g; i < histBins; i++ {
		if rank < h.count[i] {
			return i
		}
		rank -= h.count[i]
	}
	return histBins - 1
}
