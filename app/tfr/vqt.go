package tfr

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/prismaudio/prism/gpufft"
)

// The variable-Q transform (VQT; constant-Q when Gamma is 0).
//
// Definition. Bin k has the centre frequency f_k = FMin·2^(k/B) (B =
// BinsPerOctave, up to FMax or, with FMax 0, the highest bin with
// f_k + 4·(α·f_k + γ) ≤ Rate/2, so that a sine's mirror at −f_k is 8
// bandwidths away), the bandwidth α·f_k + γ
// with α = 1/Q = 2^(1/B) − 1 (Schörkhuber et al. 2014; librosa's vqt) and
// so the length N_k = Rate/(α·f_k + γ) samples. Its value is the DFT of
// its own length at f_k, Hann-windowed and centred on the frame's centre
// m (frame i's is sample i·Hop + Span/2):
//
//	X_k = (2/Σw)·Σ_{|t|<N_k/2} w_k(t)·x[m+t]·e^{−2πi·f_k·t/Rate}, w_k(t) = ½ + ½·cos(2πt/N_k),
//
// so a sine of amplitude A at f_k reads 20·log10(A) dBFS (the package's
// level rule), and ENBW[k] = Rate·Σw²/(Σw)² (about 1.5·Rate/N_k).
//
// Method (Brown and Puckette 1992): the bins are grouped by the power of
// two N_g that holds their window (N_g/2 < support ≤ N_g, at least the
// next power of two of Hop); a group's frames of N_g samples, centred on
// m, are transformed by the engine's FFT, and each bin is the sparse
// product of those bins with its spectral kernel (the window's FFT in
// closed form, cut where its weights fall below kernelThreshold of their
// largest), on the engine too (gpufft's spectral-kernel plan, one per
// group). A group is evaluated at its own hop H_g = Hop·2^m, the largest
// such ≤ N_g/32 (Hop itself when that is larger), on frames whose stream
// index is a multiple of H_g/Hop, and its latest values are held in the
// output frames in between: 20 Hz at 192 kHz (N_g = 2^20) then costs about
// six FFTs per second instead of 1,500. Span is the largest N_g.
//
// A vqt keeps the stream's frame count across Execute calls (which frames
// evaluate which group, and the held values); Reset starts a new stream.

func init() { builders[VQT] = newVQT }

// vqtHopDivisor: a group is evaluated at least every N_g/32 samples (a
// Hann window of N_g/2…N_g samples moves by 1/16 of its length or less).
const vqtHopDivisor = 32

// vqtChunkSamples caps the samples one group plan transforms per call
// (frames × N_g × channels), bounding the engines' buffers.
const vqtChunkSamples = 1 << 23

// vqtGroup is the bins sharing one FFT size and its plan.
type vqtGroup struct {
	plan   gpufft.SpectralKernelPlan
	size   int // N_g
	ratio  int // H_g/Hop
	bin0   int // the group's first output bin
	rows   int
	chunk  int       // most frames per plan call
	held   []float32 // [channel][rows]: the latest values
	offset int       // (Span − N_g)/2: the group frame's start within the output frame
}

type vqt struct {
	cfg    Config
	freqs  []float64
	enbw   []float64
	span   int
	groups []*vqtGroup
	buf    []float32 // one group call's rows
	stream int       // output frames since the stream began
}

func newVQT(e gpufft.Engine, cfg Config) (Transform, error) {
	bins, err := vqtBins(cfg)
	if err != nil {
		return nil, err
	}
	v := &vqt{cfg: cfg}
	minSize := max(gpufft.MinSize, 1<<bits.Len(uint(cfg.Hop-1)))
	sizeOf := func(b vqtBin) int { return max(minSize, b.fftSize()) }
	v.span = sizeOf(bins[0])
	if cfg.MaxSamples < v.span {
		return nil, fmt.Errorf("tfr: vqt: MaxSamples %d is less than one frame (%d): %w", cfg.MaxSamples, v.span, gpufft.ErrInvalid)
	}
	maxFrames := (cfg.MaxSamples-v.span)/cfg.Hop + 1
	for k := 0; k < len(bins); {
		n := sizeOf(bins[k])
		end := k
		for end < len(bins) && sizeOf(bins[end]) == n {
			end++
		}
		g, err := v.newGroup(e, bins[k:end], k, n, maxFrames)
		if err != nil {
			v.Close()
			return nil, err
		}
		v.groups = append(v.groups, g)
		k = end
	}
	for _, b := range bins {
		sum, sum2 := b.windowSums()
		v.freqs = append(v.freqs, b.freqHz)
		v.enbw = append(v.enbw, cfg.Rate*sum2/(sum*sum))
	}
	return v, nil
}

// newGroup makes the plan of bins (the output bins bin0…) on frames of n
// samples.
func (v *vqt) newGroup(e gpufft.Engine, bins []vqtBin, bin0, n, maxFrames int) (*vqtGroup, error) {
	cfg := v.cfg
	ratio := 1
	for cfg.Hop*ratio*2 <= n/vqtHopDivisor {
		ratio *= 2
	}
	chunk := min((maxFrames+ratio-1)/ratio, max(1, vqtChunkSamples/(n*cfg.Channels)))
	kc := gpufft.SpectralKernelConfig{Size: n, Hop: cfg.Hop * ratio, Channels: cfg.Channels, MaxFrames: chunk,
		Output: gpufft.DBFS, Offset: []int32{0}}
	for _, b := range bins {
		sum, _ := b.windowSums()
		first, re, im := kernelRow(b, cfg.Rate, n, 2/sum)
		kc.First = append(kc.First, int32(first))
		kc.Re, kc.Im = append(kc.Re, re...), append(kc.Im, im...)
		kc.Offset = append(kc.Offset, int32(len(kc.Re)))
	}
	p, err := e.NewSpectralKernel(kc)
	if err != nil {
		return nil, fmt.Errorf("tfr: vqt: group of size %d: %w", n, err)
	}
	g := &vqtGroup{plan: p, size: n, ratio: ratio, bin0: bin0, rows: len(bins), chunk: chunk,
		held: make([]float32, cfg.Channels*len(bins)), offset: (v.span - n) / 2}
	v.buf = growTo(v.buf, cfg.Channels*chunk*len(bins))
	return g, nil
}

func growTo(b []float32, n int) []float32 {
	if len(b) < n {
		return make([]float32, n)
	}
	return b
}

func (v *vqt) Config() Config   { return v.cfg }
func (v *vqt) Freqs() []float64 { return v.freqs }
func (v *vqt) ENBW() []float64  { return v.enbw }
func (v *vqt) Span() int        { return v.span }
func (v *vqt) Reset()           { v.stream = 0 }
func (v *vqt) frames(samples int) int {
	if samples < v.span {
		return 0
	}
	return (samples-v.span)/v.cfg.Hop + 1
}

// Execute implements Transform (see the package doc's VQT section for
// the frames that evaluate each group and the values held between them).
func (v *vqt) Execute(dst, src []float32) (int, error) {
	ch := v.cfg.Channels
	samples := len(src) / ch
	if samples*ch != len(src) || samples > v.cfg.MaxSamples {
		panic(fmt.Sprintf("tfr: vqt: len(src) %d is not %d channels of at most %d samples", len(src), ch, v.cfg.MaxSamples))
	}
	frames, bins := v.frames(samples), len(v.freqs)
	if len(dst) < ch*frames*bins {
		panic(fmt.Sprintf("tfr: vqt: len(dst) %d < %d", len(dst), ch*frames*bins))
	}
	if frames == 0 {
		return 0, nil
	}
	for _, g := range v.groups {
		if err := v.group(g, dst, src, frames); err != nil {
			return 0, err
		}
	}
	v.stream += frames
	return frames, nil
}

// group writes g's bins of every output frame: held values up to the
// call's first frame that evaluates g, then each evaluation over the
// frames up to the next.
func (v *vqt) group(g *vqtGroup, dst, src []float32, frames int) error {
	ch, bins, hop := v.cfg.Channels, len(v.freqs), v.cfg.Hop
	i1 := (g.ratio - v.stream%g.ratio) % g.ratio // first local frame with a stream index ≡ 0 mod ratio
	for i := range min(i1, frames) {
		for c := range ch {
			copy(dst[(c*frames+i)*bins+g.bin0:][:g.rows], g.held[c*g.rows:(c+1)*g.rows])
		}
	}
	evals := 0
	if i1 < frames {
		evals = (frames - i1 + g.ratio - 1) / g.ratio
	}
	for j0 := 0; j0 < evals; j0 += g.chunk {
		n := min(g.chunk, evals-j0)
		out := v.buf[:ch*n*g.rows]
		start := (i1+j0*g.ratio)*hop + g.offset
		if err := g.plan.Execute(out, src, start, n); err != nil {
			return fmt.Errorf("tfr: vqt: %w", err)
		}
		for c := range ch {
			for j := range n {
				row := out[(c*n+j)*g.rows : (c*n+j+1)*g.rows]
				i := i1 + (j0+j)*g.ratio
				for f := i; f < min(i+g.ratio, frames); f++ {
					copy(dst[(c*frames+f)*bins+g.bin0:][:g.rows], row)
				}
			}
			copy(g.held[c*g.rows:(c+1)*g.rows], out[(c*n+n-1)*g.rows:(c*n+n)*g.rows])
		}
	}
	return nil
}

// Close releases the groups' plans. Calling it twice is harmless.
func (v *vqt) Close() error {
	var errs []error
	for _, g := range v.groups {
		errs = append(errs, g.plan.Close())
	}
	v.groups = nil
	return errors.Join(errs...)
}
