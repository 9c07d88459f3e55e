package tfr

import (
	"fmt"
	"math"

	"github.com/prismaudio/prism/gpufft"
)

func init() { builders[MultiRes] = newMultiRes }

// JoinBin is the multi-resolution band rule: below the smallest size,
// each size j+1 takes over from size j at the frequency where its own
// bin JoinBin lies, K·rate/N_{j+1}. So each size is used over bins
// JoinBin … JoinBin·N_j/N_{j+1} − 1 of its own grid (the largest from bin
// 0, the smallest up to N/2): a relative resolution between 1/JoinBin and
// 1/(JoinBin·N_j/N_{j+1}) everywhere above the largest size's band
// (1/64…1/128 with sizes a factor 2 apart: a bin 1/44…1/89 octave wide).
const JoinBin = 64

// DefaultSizes are MultiRes's sizes for rate when Config.Sizes is nil:
// five sizes a factor 2 apart, the largest the power of two nearest
// rate/3 (about 340 ms: 16384 at 44.1 and 48 kHz, 32768 at 96 kHz, 65536
// at 192 kHz), the smallest a sixteenth of it (about 21 ms: 1024 at 48
// kHz).
func DefaultSizes(rate float64) []int {
	top := 1 << int(math.Round(math.Log2(rate/3)))
	top = min(max(top, gpufft.MinSize*16), gpufft.MaxSize)
	return []int{top, top / 2, top / 4, top / 8, top / 16}
}

// multiRes runs one engine spectrogram plan per size (the engines have no
// plan of several sizes: one call per size per Execute, every channel in
// it) and copies each size's band of bins into the output: exact band
// assignment, no crossfade. Every size's DBFS output reads a sine at its
// level, so the levels have no step across the joins; each window is
// centred on the frame's centre by starting size j's frames (Span−N_j)/2
// samples into the block.
type multiRes struct {
	cfg   Config
	sizes []int
	plans []gpufft.SpectrogramPlan
	lo    []int // size j's first bin used
	hi    []int // one past its last
	stage []float32
	out   []float32 // one size's output, every channel
	freqs []float64
	enbw  []float64
}

// newMultiRes makes the one-call path for a cosine-sum window
// (multires_kernel.go), one plan per size for the others.
func newMultiRes(e gpufft.Engine, cfg Config) (Transform, error) {
	if cosineTaps(cfg.Window) != nil {
		return newMultiResKernel(e, cfg)
	}
	return newMultiResSizes(e, cfg)
}

func newMultiResSizes(e gpufft.Engine, cfg Config) (Transform, error) {
	sizes := cfg.Sizes
	if sizes == nil {
		sizes = DefaultSizes(cfg.Rate)
	}
	t := &multiRes{cfg: cfg, sizes: append([]int(nil), sizes...)}
	t.cfg.Sizes = t.sizes
	if err := t.bands(); err != nil {
		return nil, err
	}
	span := t.sizes[0]
	if cfg.MaxSamples < span {
		return nil, fmt.Errorf("tfr: multires: MaxSamples %d is less than one frame (%d): %w", cfg.MaxSamples, span, gpufft.ErrInvalid)
	}
	frames := (cfg.MaxSamples-span)/cfg.Hop + 1
	for j, n := range t.sizes {
		maxL := (frames-1)*cfg.Hop + n
		p, err := e.NewSpectrogram(gpufft.SpectrogramConfig{Size: n, Hop: cfg.Hop, Window: cfg.Window,
			Channels: cfg.Channels, MaxSamples: maxL, Output: gpufft.DBFS})
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("tfr: multires: size %d: %w", n, err)
		}
		t.plans = append(t.plans, p)
		t.freqs, t.enbw = gridOf(cfg.Window, cfg.Rate, n, t.lo[j], t.hi[j], t.freqs, t.enbw)
	}
	if cfg.Channels > 1 {
		t.stage = make([]float32, cfg.Channels*((frames-1)*cfg.Hop+span))
	}
	t.out = make([]float32, cfg.Channels*frames*(span/2+1))
	return t, nil
}

// bands checks the sizes and sets each one's bins.
func (t *multiRes) bands() error {
	if len(t.sizes) < 1 {
		return fmt.Errorf("tfr: multires: no sizes: %w", gpufft.ErrInvalid)
	}
	for j, n := range t.sizes {
		if err := checkSize(n, t.cfg); err != nil {
			return err
		}
		if j > 0 && n >= t.sizes[j-1] {
			return fmt.Errorf("tfr: multires: sizes %v: want each smaller than the one before: %w", t.sizes, gpufft.ErrInvalid)
		}
	}
	last := len(t.sizes) - 1
	if len(t.sizes) > 1 && t.sizes[last] < 4*JoinBin {
		return fmt.Errorf("tfr: multires: smallest size %d with several sizes: want ≥ %d: %w", t.sizes[last], 4*JoinBin, gpufft.ErrInvalid)
	}
	t.lo, t.hi = make([]int, len(t.sizes)), make([]int, len(t.sizes))
	for j, n := range t.sizes {
		if j > 0 {
			t.lo[j] = JoinBin
		}
		t.hi[j] = n/2 + 1
		if j < last {
			t.hi[j] = JoinBin * n / t.sizes[j+1]
		}
	}
	return nil
}

func (t *multiRes) Config() Config   { return t.cfg }
func (t *multiRes) Freqs() []float64 { return t.freqs }
func (t *multiRes) ENBW() []float64  { return t.enbw }
func (t *multiRes) Span() int        { return t.sizes[0] }

func (t *multiRes) Close() error {
	var first error
	for _, p := range t.plans {
		if err := p.Close(); err != nil && first == nil {
			first = err
		}
	}
	t.plans = nil
	return first
}

// Execute runs every size over src (one engine call each) and gathers
// their bands into dst.
func (t *multiRes) Execute(dst, src []float32) (int, error) {
	ch, span, hop, bins := t.cfg.Channels, t.sizes[0], t.cfg.Hop, len(t.freqs)
	l, frames := frameCount("multires", t.cfg, span, bins, dst, src)
	if frames == 0 {
		return 0, nil
	}
	col := 0
	for j, n := range t.sizes {
		off, lj := (span-n)/2, (frames-1)*hop+n
		in := src[off : off+lj]
		if ch > 1 {
			in = t.stage[:ch*lj]
			for c := range ch {
				copy(in[c*lj:(c+1)*lj], src[c*l+off:c*l+off+lj])
			}
		}
		if _, err := t.plans[j].Execute(t.out, in); err != nil {
			return 0, fmt.Errorf("tfr: multires: size %d: %w", n, err)
		}
		nb, w := n/2+1, t.hi[j]-t.lo[j]
		for r := range ch * frames {
			copy(dst[r*bins+col:r*bins+col+w], t.out[r*nb+t.lo[j]:r*nb+t.hi[j]])
		}
		col += w
	}
	return frames, nil
}
