package gpufft

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"
)

// SpectralKernelConfig describes a spectral-kernel plan (Brown and
// Puckette's FFT-based constant-Q transform): Groups of frames, each group
// with its own FFT size, hop and kernel, all read from the same loaded
// blocks of samples. A group's frames are transformed (no window,
// unscaled) into their bins X[0…Size/2] and mapped by the group's sparse
// kernel to Rows = len(First) values; row r is
//
//	y_r = Σ_{j<Offset[r+1]−Offset[r]} Re X[First[r]+j]·Re[Offset[r]+j] + Im X[First[r]+j]·Im[Offset[r]+j]
//
// with complex weights Re and Im: the map is real-linear in the bins, so a
// row also reaches the negative frequencies (X[Size−j] = conj X[j]) through
// its weights, and any gain is folded into them.
type SpectralKernelConfig struct {
	Channels   int    // planar input channels, ≥ 1
	MaxSamples int    // most samples per channel in one Load
	Output     Output // DBFS: 10·log10|y|² floored at FloorDB, capped at CeilDB; Power: |y|²
	Groups     []SpectralGroup
}

// SpectralGroup is one FFT size's frames and kernel.
type SpectralGroup struct {
	Size      int // N: FFT size, a power of two, MinSize…MaxSize
	Hop       int // samples between frames, 1…Size
	MaxFrames int // most frames per channel in one Execute, ≥ 1
	First     []int32
	Offset    []int32 // Rows+1 values from 0, non-decreasing
	Re, Im    []complex64
}

// Rows is the number of kernel rows (outputs per frame and channel).
func (g SpectralGroup) Rows() int { return len(g.First) }

// samples is the span of frames frames: (frames−1)·Hop + Size.
func (g SpectralGroup) samples(frames int) int { return (frames-1)*g.Hop + g.Size }

// SpectralFrames selects one group's frames for an Execute call: Frames
// frames, the first starting at sample Start of each loaded block.
type SpectralFrames struct{ Start, Frames int }

// DstLen is the length Execute's dst needs for frames.
func (c SpectralKernelConfig) DstLen(frames []SpectralFrames) int {
	n := 0
	for g, f := range frames {
		n += c.Channels * f.Frames * c.Groups[g].Rows()
	}
	return n
}

func (c SpectralKernelConfig) check() error {
	switch {
	case c.Channels < 1 || c.Channels > 1024:
		return fmt.Errorf("%w: %d channels (want 1…1024)", ErrInvalid, c.Channels)
	case c.MaxSamples < 1 || int64(c.MaxSamples)*int64(c.Channels) > math.MaxInt32:
		return fmt.Errorf("%w: MaxSamples %d × %d channels", ErrInvalid, c.MaxSamples, c.Channels)
	case c.Output != DBFS && c.Output != Power:
		return fmt.Errorf("%w: spectral kernel output %v (want dBFS or power)", ErrInvalid, c.Output)
	case len(c.Groups) == 0:
		return fmt.Errorf("%w: spectral kernel without groups", ErrInvalid)
	}
	for i, g := range c.Groups {
		if err := g.check(c); err != nil {
			return fmt.Errorf("%w (group %d)", err, i)
		}
	}
	return nil
}

func (g SpectralGroup) check(c SpectralKernelConfig) error {
	if err := CheckSize(g.Size); err != nil {
		return err
	}
	rows, bins := len(g.First), g.Size/2+1
	switch {
	case g.Hop < 1 || g.Hop > g.Size:
		return fmt.Errorf("%w: hop %d (want 1…%d)", ErrInvalid, g.Hop, g.Size)
	case g.MaxFrames < 1 || g.samples(g.MaxFrames) > c.MaxSamples ||
		int64(g.MaxFrames)*int64(c.Channels)*int64(bins)*2 > math.MaxInt32:
		return fmt.Errorf("%w: %d frames of %d × %d channels per call (MaxSamples %d)", ErrInvalid, g.MaxFrames, g.Size, c.Channels, c.MaxSamples)
	case rows < 1 || len(g.Offset) != rows+1 || g.Offset[0] != 0:
		return fmt.Errorf("%w: spectral kernel of %d rows needs %d offsets from 0 (have %d)", ErrInvalid, rows, rows+1, len(g.Offset))
	case len(g.Re) != int(g.Offset[rows]) || len(g.Im) != len(g.Re):
		return fmt.Errorf("%w: spectral kernel has %d and %d weights, its offsets %d", ErrInvalid, len(g.Re), len(g.Im), g.Offset[rows])
	}
	for r, f := range g.First {
		if n := g.Offset[r+1] - g.Offset[r]; n < 0 || f < 0 || int(f)+int(n) > bins {
			return fmt.Errorf("%w: spectral kernel row %d reads bins %d…%d of %d", ErrInvalid, r, f, int(f)+int(n)-1, bins)
		}
	}
	return nil
}

// packed returns the weights as one complex value each, Re[i] + i·Im[i]
// for real Re and imaginary Im weights (a row y = Σ a·Re X + i·b·Im X,
// the form of every kernel of a window symmetric about the frame's
// centre), or nil when the weights are not of that form. The engines then
// read half the weights and do half the multiplications.
func (g *SpectralGroup) packed() []complex64 {
	for i := range g.Re {
		if imag(g.Re[i]) != 0 || real(g.Im[i]) != 0 {
			return nil
		}
	}
	p := make([]complex64, len(g.Re))
	for i := range p {
		p[i] = complex(real(g.Re[i]), imag(g.Im[i]))
	}
	return p
}

func (c SpectralKernelConfig) clone() SpectralKernelConfig {
	c.Groups = slices.Clone(c.Groups)
	for i := range c.Groups {
		g := &c.Groups[i]
		g.First, g.Offset = slices.Clone(g.First), slices.Clone(g.Offset)
		g.Re, g.Im = slices.Clone(g.Re), slices.Clone(g.Im)
	}
	return c
}

// spectrogram is the complex spectrogram group g's kernel is applied to,
// on frames copied out of the loaded blocks.
func (c SpectralKernelConfig) spectrogram(g SpectralGroup) SpectrogramConfig {
	return SpectrogramConfig{Size: g.Size, Hop: g.Hop, Channels: c.Channels, MaxSamples: g.samples(g.MaxFrames), Output: Complex}
}

// SpectralKernelPlan runs a SpectralKernelConfig. Load takes src as
// Channels planar blocks of L = len(src)/Channels ≤ MaxSamples samples
// (the OpenCL engine copies them to the device; the CPU engine reads src
// itself, which must stay unchanged until the last Execute on it). Execute
// then transforms, for each group g, frames[g].Frames frames covering
// samples [Start+j·Hop, Start+j·Hop+Size) of each loaded block and writes
// row r of channel c and frame j at dst[base_g+(c·Frames+j)·Rows+r], the
// groups one after another (base_0 = 0, each group taking
// Channels·Frames·Rows values; DstLen). A group with 0 frames is skipped.
// Neither allocates; they panic if len(src) is not a multiple of Channels
// or exceeds MaxSamples per channel, len(frames) is not len(Groups), a
// group's frames exceed its MaxFrames or the loaded blocks, or dst is
// shorter than DstLen(frames). Only one goroutine may use a plan at a
// time.
type SpectralKernelPlan interface {
	Config() SpectralKernelConfig
	Load(src []float32) error
	Execute(dst []float32, frames []SpectralFrames) error
	Close() error
}

// loadCall validates a Load call and returns L.
func (c *SpectralKernelConfig) loadCall(src []float32) int {
	samples := len(src) / c.Channels
	if samples*c.Channels != len(src) || samples > c.MaxSamples || samples == 0 {
		panic(fmt.Sprintf("gpufft: spectral kernel: len(src) %d is not %d channels of 1…%d samples", len(src), c.Channels, c.MaxSamples))
	}
	return samples
}

// executeCall validates an Execute call on blocks of samples samples.
func (c *SpectralKernelConfig) executeCall(dst []float32, frames []SpectralFrames, samples int) {
	if len(frames) != len(c.Groups) {
		panic(fmt.Sprintf("gpufft: spectral kernel: %d frame selections for %d groups", len(frames), len(c.Groups)))
	}
	for i, f := range frames {
		g := &c.Groups[i]
		if f.Frames < 0 || f.Frames > g.MaxFrames || f.Start < 0 || (f.Frames > 0 && f.Start+g.samples(f.Frames) > samples) {
			panic(fmt.Sprintf("gpufft: spectral kernel: group %d: %d frames of %d from %d do not fit %d samples (at most %d frames)",
				i, f.Frames, g.Size, f.Start, samples, g.MaxFrames))
		}
	}
	if need := c.DstLen(frames); len(dst) < need {
		panic(fmt.Sprintf("gpufft: spectral kernel: len(dst) %d < %d", len(dst), need))
	}
}

// ---- CPU

type cpuSpectralKernel struct {
	cfg     SpectralKernelConfig
	sps     []*cpuSpectrogram
	bins    [][]complex64 // per worker: one frame's bins
	packed  [][]complex64 // per group: packed weights, or nil
	src     []float32     // the loaded blocks
	samples int
	g       int // the group being run
	dst     []float32
	wg      sync.WaitGroup
	closed  bool
}

// NewSpectralKernel makes a spectral-kernel plan on the CPU engine: each
// worker transforms a frame with the group's spectrogram FFT and applies
// the kernel to it.
func (e *CPU) NewSpectralKernel(cfg SpectralKernelConfig) (SpectralKernelPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	p := &cpuSpectralKernel{cfg: cfg.clone()}
	maxBins := 0
	for _, g := range cfg.Groups {
		sp, err := e.NewSpectrogram(cfg.spectrogram(g))
		if err != nil {
			return nil, err
		}
		p.sps = append(p.sps, sp.(*cpuSpectrogram))
		p.packed = append(p.packed, g.packed())
		maxBins = max(maxBins, g.Size/2+1)
	}
	for range e.workers {
		p.bins = append(p.bins, make([]complex64, maxBins))
	}
	return p, nil
}

func (p *cpuSpectralKernel) Config() SpectralKernelConfig { return p.cfg }

func (p *cpuSpectralKernel) Load(src []float32) error {
	p.samples = p.cfg.loadCall(src)
	if p.closed {
		return ErrClosed
	}
	p.src = src
	return nil
}

func (p *cpuSpectralKernel) Execute(dst []float32, frames []SpectralFrames) error {
	p.cfg.executeCall(dst, frames, p.samples)
	if p.closed {
		return ErrClosed
	}
	base := 0
	for g, f := range frames {
		if f.Frames == 0 {
			continue
		}
		n := p.cfg.Channels * f.Frames * p.cfg.Groups[g].Rows()
		sp := p.sps[g]
		sp.src, sp.samples, sp.frames = p.src[f.Start:], p.samples, f.Frames
		p.g, p.dst = g, dst[base:base+n]
		err := sp.e.parallel(p, f.Frames*p.cfg.Channels, &p.wg)
		sp.src, p.dst = nil, nil
		if err != nil {
			return err
		}
		base += n
	}
	return nil
}

// run does sequences [lo, hi) of group p.g (channel s/frames, frame
// s%frames) with worker w's scratch.
func (p *cpuSpectralKernel) run(w, lo, hi int) {
	g := &p.cfg.Groups[p.g]
	x := p.bins[w][:g.Size/2+1]
	xf := unsafe.Slice((*float32)(unsafe.Pointer(&x[0])), 2*len(x))
	rows := g.Rows()
	for s := lo; s < hi; s++ {
		p.sps[p.g].sequence(w, s, xf, overwrite)
		applySpectralKernel(p.dst[s*rows:(s+1)*rows], x, g, p.packed[p.g], p.cfg.Output)
	}
}

// applySpectralKernel writes every row of g's kernel (its packed weights
// when not nil) applied to the bins x into out, as output asks.
func applySpectralKernel(out []float32, x []complex64, g *SpectralGroup, packed []complex64, output Output) {
	for r, f := range g.First {
		o0, o1 := g.Offset[r], g.Offset[r+1]
		xs := x[f : int(f)+int(o1-o0)]
		var yr, yi float32
		if packed != nil {
			for j, w := range packed[o0:o1] {
				yr += real(xs[j]) * real(w)
				yi += imag(xs[j]) * imag(w)
			}
		} else {
			re, im := g.Re[o0:o1], g.Im[o0:o1]
			for j, v := range xs {
				a, b := real(v), imag(v)
				yr += a*real(re[j]) + b*real(im[j])
				yi += a*imag(re[j]) + b*imag(im[j])
			}
		}
		pw := yr*yr + yi*yi
		if output == Power {
			out[r] = pw
		} else {
			out[r] = PowerDB(pw)
		}
	}
}

func (p *cpuSpectralKernel) Close() error {
	p.closed = true
	for _, sp := range p.sps {
		sp.Close()
	}
	return nil
}
