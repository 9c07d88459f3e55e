package tfr

import (
	"fmt"
	"math"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// The one-call multi-resolution path. A cosine-sum window (rect, Hann,
// Hamming, Blackman, Blackman-Harris, flat-top: w[t] = Σ_m a_m·(−1)^m·
// cos(2πmt/N), periodic) multiplies the frame by 2K+1 complex
// exponentials, so the windowed DFT is a convolution of the unwindowed
// one with 2K+1 taps (K = 1…4):
//
//	Y_k = Σ_{|m|≤K} b_|m|·X_{k+m},  b_0 = a_0, b_m = (−1)^m·a_m/2,
//
// (the b_m are W_m/N, W the window's own DFT), and bin k's dBFS level is
// that of c_k·Y_k/Σw, c_k = 2 inside the spectrum and 1 at DC and N/2:
// exactly the engines' DBFS rule. Each output bin is then a row of a
// gpufft spectral kernel of 2K+1 weights (the real input's X_{−h} =
// X_{N−h} = conj X_h folding the taps below 0 and above N/2), and every
// size is a group of one SpectralKernelPlan: one engine call per batch
// for all sizes and channels, which reads back only the bins the bands
// use (on the GPU about 2,300 of the 63,500 the five per-size plans of
// 65536…4096 points wrote per frame and channel). Other windows (Kaiser)
// keep one spectrogram plan per size (multires.go).

// multiResChunkSamples caps frames × N × channels of one group per plan
// call (a 2^31-value bound of the engines' complex buffers, about 12 bytes
// a sample on the GPU): a live batch of 100 ms at 192 kHz, hop 128, 9
// channels and 65536 points (89 M) fits one call; longer blocks run in
// rounds (tests shrink it).
var multiResChunkSamples = 1 << 27

// cosineTaps returns b_0…b_K of w (see above), or nil when w is not a
// cosine sum of at most 8 terms (Kaiser). It reads them off the DFT of
// the window of 64 points, which holds a periodic cosine sum exactly.
func cosineTaps(w window.Func) []float64 {
	const n = 64
	v := w.Values(n)
	var taps []float64
	for m := range n / 2 {
		re, im := 0.0, 0.0
		for t, x := range v {
			s, c := math.Sincos(2 * math.Pi * float64(m*t%n) / n)
			re, im = re+x*c, im-x*s
		}
		re, im = re/n, im/n
		if math.Abs(im) > 1e-12 {
			return nil
		}
		if math.Abs(re) > 1e-12 {
			if m > 8 {
				return nil
			}
			taps = append(taps[:len(taps):len(taps)], make([]float64, m+1-len(taps))...)
			taps[m] = re
		}
	}
	return taps
}

// multiResKernel is MultiRes in one spectral-kernel plan: group j is size
// j's frames, its rows the bins lo[j]…hi[j]−1 of its band.
type multiResKernel struct {
	bands  *multiRes // the layout (sizes, bands, freqs, ENBW); no plans
	plan   gpufft.SpectralKernelPlan
	chunk  []int // most frames per plan call, per size
	frames []gpufft.SpectralFrames
	buf    []float32
}

// newMultiResKernel makes the one-call path for cfg, whose window must be
// a cosine sum (cosineTaps not nil).
func newMultiResKernel(e gpufft.Engine, cfg Config) (Transform, error) {
	taps := cosineTaps(cfg.Window)
	if taps == nil {
		return nil, fmt.Errorf("tfr: multires: window %v is not a cosine sum: %w", cfg.Window, gpufft.ErrInvalid)
	}
	sizes := cfg.Sizes
	if sizes == nil {
		sizes = DefaultSizes(cfg.Rate)
	}
	b := &multiRes{cfg: cfg, sizes: append([]int(nil), sizes...)}
	b.cfg.Sizes = b.sizes
	if err := b.bands(); err != nil {
		return nil, err
	}
	span := b.sizes[0]
	if cfg.MaxSamples < span {
		return nil, fmt.Errorf("tfr: multires: MaxSamples %d is less than one frame (%d): %w", cfg.MaxSamples, span, gpufft.ErrInvalid)
	}
	frames := (cfg.MaxSamples-span)/cfg.Hop + 1
	t := &multiResKernel{bands: b, frames: make([]gpufft.SpectralFrames, len(b.sizes))}
	kc := gpufft.SpectralKernelConfig{Channels: cfg.Channels, MaxSamples: cfg.MaxSamples, Output: gpufft.DBFS}
	bufLen := 0
	for j, n := range b.sizes {
		chunk := min(frames, max(1, multiResChunkSamples/(n*cfg.Channels)))
		t.chunk = append(t.chunk, chunk)
		kc.Groups = append(kc.Groups, bandKernel(cfg.Window, taps, n, cfg.Hop, chunk, b.lo[j], b.hi[j]))
		bufLen += cfg.Channels * chunk * (b.hi[j] - b.lo[j])
		b.freqs, b.enbw = gridOf(cfg.Window, cfg.Rate, n, b.lo[j], b.hi[j], b.freqs, b.enbw)
	}
	var err error
	if t.plan, err = e.NewSpectralKernel(kc); err != nil {
		return nil, fmt.Errorf("tfr: multires: %w", err)
	}
	t.buf = make([]float32, bufLen)
	return t, nil
}

// bandKernel is the spectral-kernel group of bins lo…hi−1 of size n with
// window w (taps b_0…b_K): row k is (c_k/Σw)·Σ_m b_|m|·X_{k+m}, each
// X_h with h < 0 or h > n/2 read as conj X_{|h|} or conj X_{n−h}.
func bandKernel(w window.Func, taps []float64, n, hop, maxFrames, lo, hi int) gpufft.SpectralGroup {
	sum := 0.0
	for _, v := range w.Values(n) {
		sum += v
	}
	g := gpufft.SpectralGroup{Size: n, Hop: hop, MaxFrames: maxFrames, Offset: []int32{0}}
	K := len(taps) - 1
	re := make([]float64, 2*K+1) // per folded bin first…first+2K: Re X's weight
	im := make([]float64, 2*K+1) // and Im X's (times i)
	for k := lo; k < hi; k++ {
		gain := 2 / sum
		if k == 0 || k == n/2 {
			gain = 1 / sum
		}
		first := min(max(0, k-K), n/2-2*K)
		clear(re)
		clear(im)
		for m := -K; m <= K; m++ {
			h, sign := k+m, 1.0
			switch {
			case h < 0:
				h, sign = -h, -1
			case h > n/2:
				h, sign = n-h, -1
			}
			c := gain * taps[abs(m)]
			re[h-first] += c
			im[h-first] += sign * c
		}
		g.First = append(g.First, int32(first))
		for i := range re {
			g.Re = append(g.Re, complex(float32(re[i]), 0))
			g.Im = append(g.Im, complex(0, float32(im[i])))
		}
		g.Offset = append(g.Offset, int32(len(g.Re)))
	}
	return g
}

func abs(m int) int {
	if m < 0 {
		return -m
	}
	return m
}

func (t *multiResKernel) Config() Config   { return t.bands.cfg }
func (t *multiResKernel) Freqs() []float64 { return t.bands.freqs }
func (t *multiResKernel) ENBW() []float64  { return t.bands.enbw }
func (t *multiResKernel) Span() int        { return t.bands.sizes[0] }

// Close releases the plan. Calling it twice is harmless.
func (t *multiResKernel) Close() error {
	if t.plan == nil {
		return nil
	}
	err := t.plan.Close()
	t.plan = nil
	return err
}

// Execute loads src once and runs every size's frames in one plan call
// (more only when a block exceeds a chunk), gathering their bands into
// dst.
func (t *multiResKernel) Execute(dst, src []float32) (int, error) {
	b := t.bands
	span, hop, bins := b.sizes[0], b.cfg.Hop, len(b.freqs)
	_, frames := frameCount("multires", b.cfg, span, bins, dst, src)
	if frames == 0 {
		return 0, nil
	}
	if err := t.plan.Load(src); err != nil {
		return 0, fmt.Errorf("tfr: multires: %w", err)
	}
	for round := 0; ; round++ {
		more, some := false, false
		for j, n := range b.sizes {
			i0 := round * t.chunk[j]
			k := max(0, min(t.chunk[j], frames-i0))
			t.frames[j] = gpufft.SpectralFrames{Start: (span-n)/2 + i0*hop, Frames: k}
			more, some = more || frames > i0+k, some || k > 0
		}
		if !some {
			break
		}
		if err := t.plan.Execute(t.buf, t.frames); err != nil {
			return 0, fmt.Errorf("tfr: multires: %w", err)
		}
		t.gather(dst, frames, round)
		if !more {
			break
		}
	}
	return frames, nil
}

// gather copies one plan call's rows (group after group, each
// [channel][frame][rows]) into their frames' bands of dst.
func (t *multiResKernel) gather(dst []float32, frames, round int) {
	b := t.bands
	bins, base, col := len(b.freqs), 0, 0
	for j := range b.sizes {
		rows, k, i0 := b.hi[j]-b.lo[j], t.frames[j].Frames, round*t.chunk[j]
		for c := range b.cfg.Channels {
			for i := range k {
				r := (c*k + i) * rows
				copy(dst[(c*frames+i0+i)*bins+col:][:rows], t.buf[base+r:base+r+rows])
			}
		}
		base += b.cfg.Channels * k * rows
		col += rows
	}
}
