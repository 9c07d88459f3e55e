package gpufft

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"
)

// SpectralKernelConfig describes a spectral-kernel plan: frames of Size
// samples, Hop apart, each transformed (no window, unscaled) into its bins
// X[0…Size/2], then mapped by a sparse kernel to Rows = len(First) values
// (Brown and Puckette's FFT-based constant-Q transform). Row r is
//
//	y_r = Σ_{j<Offset[r+1]−Offset[r]} Re X[First[r]+j]·Re[Offset[r]+j] + Im X[First[r]+j]·Im[Offset[r]+j]
//
// with complex weights Re and Im: the map is real-linear in the bins, so a
// row also reaches the negative frequencies (X[Size−j] = conj X[j]) through
// its weights, and any gain is folded into them.
type SpectralKernelConfig struct {
	Size      int    // N: FFT size, a power of two, MinSize…MaxSize
	Hop       int    // samples between frames, 1…Size
	Channels  int    // planar input channels, ≥ 1
	MaxFrames int    // most frames per channel in one Execute, ≥ 1
	Output    Output // DBFS: 10·log10|y|² floored at FloorDB, capped at CeilDB; Power: |y|²
	First     []int32
	Offset    []int32 // Rows+1 values from 0, non-decreasing
	Re, Im    []complex64
}

// Rows is the number of kernel rows (outputs per frame and channel).
func (c SpectralKernelConfig) Rows() int { return len(c.First) }

// samples is the span of frames frames: (frames−1)·Hop + Size.
func (c SpectralKernelConfig) samples(frames int) int { return (frames-1)*c.Hop + c.Size }

func (c SpectralKernelConfig) check() error {
	if err := CheckSize(c.Size); err != nil {
		return err
	}
	rows, bins := len(c.First), c.Size/2+1
	switch {
	case c.Hop < 1 || c.Hop > c.Size:
		return fmt.Errorf("%w: hop %d (want 1…%d)", ErrInvalid, c.Hop, c.Size)
	case c.Channels < 1 || c.Channels > 1024:
		return fmt.Errorf("%w: %d channels (want 1…1024)", ErrInvalid, c.Channels)
	case c.MaxFrames < 1 || int64(c.samples(c.MaxFrames))*int64(c.Channels) > math.MaxInt32 ||
		int64(c.MaxFrames)*int64(c.Channels)*int64(bins)*2 > math.MaxInt32:
		return fmt.Errorf("%w: %d frames of %d × %d channels per call", ErrInvalid, c.MaxFrames, c.Size, c.Channels)
	case c.Output != DBFS && c.Output != Power:
		return fmt.Errorf("%w: spectral kernel output %v (want dBFS or power)", ErrInvalid, c.Output)
	case rows < 1 || len(c.Offset) != rows+1 || c.Offset[0] != 0:
		return fmt.Errorf("%w: spectral kernel of %d rows needs %d offsets from 0 (have %d)", ErrInvalid, rows, rows+1, len(c.Offset))
	case len(c.Re) != int(c.Offset[rows]) || len(c.Im) != len(c.Re):
		return fmt.Errorf("%w: spectral kernel has %d and %d weights, its offsets %d", ErrInvalid, len(c.Re), len(c.Im), c.Offset[rows])
	}
	for r, f := range c.First {
		if n := c.Offset[r+1] - c.Offset[r]; n < 0 || f < 0 || int(f)+int(n) > bins {
			return fmt.Errorf("%w: spectral kernel row %d reads bins %d…%d of %d", ErrInvalid, r, f, int(f)+int(n)-1, bins)
		}
	}
	return nil
}

func (c SpectralKernelConfig) clone() SpectralKernelConfig {
	c.First, c.Offset = slices.Clone(c.First), slices.Clone(c.Offset)
	c.Re, c.Im = slices.Clone(c.Re), slices.Clone(c.Im)
	return c
}

// spectrogram is the complex spectrogram the kernel is applied to.
func (c SpectralKernelConfig) spectrogram() SpectrogramConfig {
	return SpectrogramConfig{Size: c.Size, Hop: c.Hop, Channels: c.Channels, MaxSamples: c.samples(c.MaxFrames), Output: Complex}
}

// SpectralKernelPlan runs a SpectralKernelConfig. Execute reads src as
// Channels planar blocks of L = len(src)/Channels samples and transforms
// frames j = 0…frames−1 covering samples [start+j·Hop, start+j·Hop+Size)
// of each block, writing row r of channel c and frame j at
// dst[(c·frames+j)·Rows+r]. frames = 0 does nothing. It does not
// allocate, and panics if len(src) is not a multiple of Channels, frames
// exceeds MaxFrames, the frames do not lie inside the blocks or dst is
// shorter than Channels·frames·Rows. Only one goroutine may use a plan
// at a time.
type SpectralKernelPlan interface {
	Config() SpectralKernelConfig
	Execute(dst, src []float32, start, frames int) error
	Close() error
}

// kernelCall validates an Execute call and returns L.
func (c *SpectralKernelConfig) kernelCall(dst, src []float32, start, frames int) int {
	samples := len(src) / c.Channels
	if samples*c.Channels != len(src) || frames < 0 || frames > c.MaxFrames || start < 0 ||
		(frames > 0 && start+c.samples(frames) > samples) {
		panic(fmt.Sprintf("gpufft: spectral kernel: %d frames of %d from %d do not fit %d channels of %d samples (at most %d frames)",
			frames, c.Size, start, c.Channels, samples, c.MaxFrames))
	}
	if need := c.Channels * frames * len(c.First); len(dst) < need {
		panic(fmt.Sprintf("gpufft: spectral kernel: len(dst) %d < %d", len(dst), need))
	}
	return samples
}

// ---- CPU

type cpuSpectralKernel struct {
	cfg   SpectralKernelConfig
	sp    *cpuSpectrogram
	bins  [][]complex64 // per worker: one frame's bins
	dst   []float32
	wg    sync.WaitGroup
	close bool
}

// NewSpectralKernel makes a spectral-kernel plan on the CPU engine: each
// worker transforms a frame with the spectrogram's FFT and applies the
// kernel to it.
func (e *CPU) NewSpectralKernel(cfg SpectralKernelConfig) (SpectralKernelPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	sp, err := e.NewSpectrogram(cfg.spectrogram())
	if err != nil {
		return nil, err
	}
	p := &cpuSpectralKernel{cfg: cfg.clone(), sp: sp.(*cpuSpectrogram)}
	for range p.sp.work {
		p.bins = append(p.bins, make([]complex64, cfg.Size/2+1))
	}
	return p, nil
}

func (p *cpuSpectralKernel) Config() SpectralKernelConfig { return p.cfg }

func (p *cpuSpectralKernel) Execute(dst, src []float32, start, frames int) error {
	samples := p.cfg.kernelCall(dst, src, start, frames)
	if p.close {
		return ErrClosed
	}
	if frames == 0 {
		return nil
	}
	sp := p.sp
	sp.src, sp.samples, sp.frames, p.dst = src[start:], samples, frames, dst
	err := sp.e.parallel(p, frames*p.cfg.Channels, &p.wg)
	sp.src, p.dst = nil, nil
	return err
}

// run does sequences [lo, hi) (channel s/frames, frame s%frames) with
// worker w's scratch.
func (p *cpuSpectralKernel) run(w, lo, hi int) {
	x := p.bins[w]
	xf := unsafe.Slice((*float32)(unsafe.Pointer(&x[0])), 2*len(x))
	rows := len(p.cfg.First)
	for s := lo; s < hi; s++ {
		p.sp.sequence(w, s, xf, false)
		applySpectralKernel(p.dst[s*rows:(s+1)*rows], x, &p.cfg)
	}
}

// applySpectralKernel writes every row of c's kernel applied to the bins x
// into out, as c.Output asks.
func applySpectralKernel(out []float32, x []complex64, c *SpectralKernelConfig) {
	for r, f := range c.First {
		o0, o1 := c.Offset[r], c.Offset[r+1]
		xs := x[f : int(f)+int(o1-o0)]
		re, im := c.Re[o0:o1], c.Im[o0:o1]
		var yr, yi float32
		for j, v := range xs {
			a, b := real(v), imag(v)
			yr += a*real(re[j]) + b*real(im[j])
			yi += a*imag(re[j]) + b*imag(im[j])
		}
		pw := yr*yr + yi*yi
		if c.Output == Power {
			out[r] = pw
		} else {
			out[r] = PowerDB(pw)
		}
	}
}

func (p *cpuSpectralKernel) Close() error {
	p.close = true
	return p.sp.Close()
}
