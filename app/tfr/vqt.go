package tfr

import (
	"fmt"
	"math/bits"
	"sync"

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
// such ≤ N_g/16 (Hop itself when that is larger), on frames whose stream
// index is a multiple of H_g/Hop, and its latest values are held in the
// output frames in between: 20 Hz at 192 kHz (N_g = 2^20) then costs
// three FFTs per second and channel instead of 1,500. A bin's level
// moves with the signal no faster than its Hann window's spectrum is wide
// (±2/N_k cycles per sample), so a hop of N_g/16 ≤ N_k/8 samples it at
// twice its Nyquist rate; N_g/32 (tried first) cost 2.6 times the STFT's
// time on a 10-minute file on the H200, N_g/16 1.5…1.7 (vqt_bench_test.go).
// Span is the largest N_g.
//
// A vqt keeps the stream's frame count across Execute calls (which frames
// evaluate which group, and the held values); Reset starts a new stream.

func init() { builders[VQT] = newVQT }

// vqtHopDivisor: a group is evaluated at least every N_g/16 samples (a
// Hann window of N_g/2…N_g samples moves by 1/8 of its length or less).
const vqtHopDivisor = 16

// vqtChunkSamples caps the samples one group transforms per plan call
// (frames × N_g × channels), bounding the engines' buffers (about 12
// bytes each on the GPU); a call that needs more runs in rounds.
const vqtChunkSamples = 1 << 25

// vqtGroup is the bins sharing one FFT size.
type vqtGroup struct {
	size   int // N_g
	ratio  int // H_g/Hop
	bin0   int // the group's first output bin
	rows   int
	chunk  int       // most frames per plan call
	held   []float32 // [channel][rows]: the latest values
	offset int       // (Span − N_g)/2: the group frame's start within the output frame
	// the call in progress
	first, evals int // the first local frame that evaluates the group, evaluations
}

type vqt struct {
	cfg    Config
	freqs  []float64
	enbw   []float64
	span   int
	plan   gpufft.SpectralKernelPlan
	groups []*vqtGroup
	frames []gpufft.SpectralFrames // one plan call's selection
	buf    []float32               // one plan call's rows
	stream int                     // output frames since the stream began
}

func newVQT(e gpufft.Engine, cfg Config) (Transform, error) {
	v, groupBins, err := layoutVQT(cfg)
	if err != nil {
		return nil, err
	}
	kc := gpufft.SpectralKernelConfig{Channels: cfg.Channels, MaxSamples: cfg.MaxSamples, Output: gpufft.DBFS,
		Groups: make([]gpufft.SpectralGroup, len(v.groups))}
	bufLen := 0
	var wg sync.WaitGroup // the groups' kernels at once (a file's plan waits for them)
	for i, g := range v.groups {
		wg.Go(func() { kc.Groups[i] = v.kernel(g, groupBins[i]) })
		bufLen += cfg.Channels * g.chunk * g.rows
	}
	wg.Wait()
	if v.plan, err = e.NewSpectralKernel(kc); err != nil {
		return nil, fmt.Errorf("tfr: vqt: %w", err)
	}
	v.frames = make([]gpufft.SpectralFrames, len(v.groups))
	v.buf = make([]float32, bufLen)
	return v, nil
}

// vqtSizeOf gives a bin's group FFT size: the power of two holding its
// window, at least the next power of two of the hop.
func vqtSizeOf(cfg Config) func(vqtBin) int {
	minSize := max(gpufft.MinSize, 1<<bits.Len(uint(max(cfg.Hop, 1)-1)))
	return func(b vqtBin) int { return max(minSize, b.fftSize()) }
}

// VQTShape is the span and the number of bins of cfg's VQT from its bins
// alone, without kernels or plan (MaxSamples is not used): what a caller
// sizing its calls needs before New.
func VQTShape(cfg Config) (span, bins int, err error) {
	b, err := vqtBins(cfg)
	if err != nil {
		return 0, 0, err
	}
	return vqtSizeOf(cfg)(b[0]), len(b), nil
}

// layoutVQT lays out cfg's bins, their groups (and each group's bins)
// and the span, without kernels or plan.
func layoutVQT(cfg Config) (*vqt, [][]vqtBin, error) {
	bins, err := vqtBins(cfg)
	if err != nil {
		return nil, nil, err
	}
	v := &vqt{cfg: cfg}
	sizeOf := vqtSizeOf(cfg)
	v.span = sizeOf(bins[0])
	if cfg.MaxSamples < v.span {
		return nil, nil, fmt.Errorf("tfr: vqt: MaxSamples %d is less than one frame (%d): %w", cfg.MaxSamples, v.span, gpufft.ErrInvalid)
	}
	maxFrames := (cfg.MaxSamples-v.span)/cfg.Hop + 1
	var groupBins [][]vqtBin
	for k := 0; k < len(bins); {
		n := sizeOf(bins[k])
		end := k
		for end < len(bins) && sizeOf(bins[end]) == n {
			end++
		}
		v.groups = append(v.groups, v.newGroup(k, end-k, n, maxFrames))
		groupBins = append(groupBins, bins[k:end])
		k = end
	}
	for _, b := range bins {
		sum, sum2 := b.windowSums()
		v.freqs = append(v.freqs, b.freqHz)
		v.enbw = append(v.enbw, cfg.Rate*sum2/(sum*sum))
	}
	return v, groupBins, nil
}

// newGroup lays out the group of rows bins (the output bins bin0…) on
// frames of n samples.
func (v *vqt) newGroup(bin0, rows, n, maxFrames int) *vqtGroup {
	cfg := v.cfg
	ratio := 1
	for cfg.Hop*ratio*2 <= n/vqtHopDivisor {
		ratio *= 2
	}
	chunk := min((maxFrames+ratio-1)/ratio, max(1, vqtChunkSamples/(n*cfg.Channels)))
	return &vqtGroup{size: n, ratio: ratio, bin0: bin0, rows: rows, chunk: chunk,
		held: make([]float32, cfg.Channels*rows), offset: (v.span - n) / 2}
}

// kernel is group g's spectral kernel for its bins.
func (v *vqt) kernel(g *vqtGroup, bins []vqtBin) gpufft.SpectralGroup {
	kg := gpufft.SpectralGroup{Size: g.size, Hop: v.cfg.Hop * g.ratio, MaxFrames: g.chunk, Offset: []int32{0}}
	for _, b := range bins {
		sum, _ := b.windowSums()
		first, re, im := kernelRow(b, v.cfg.Rate, g.size, 2/sum)
		kg.First = append(kg.First, int32(first))
		kg.Re, kg.Im = append(kg.Re, re...), append(kg.Im, im...)
		kg.Offset = append(kg.Offset, int32(len(kg.Re)))
	}
	return kg
}

func (v *vqt) Config() Config   { return v.cfg }
func (v *vqt) Freqs() []float64 { return v.freqs }
func (v *vqt) ENBW() []float64  { return v.enbw }
func (v *vqt) Span() int        { return v.span }

// Reset starts a new stream: the next Execute's first frame evaluates
// every group.
func (v *vqt) Reset() { v.stream = 0 }

// Execute implements Transform (see the package doc's VQT section for
// the frames that evaluate each group and the values held between them).
func (v *vqt) Execute(dst, src []float32) (int, error) {
	bins := len(v.freqs)
	_, frames := frameCount("vqt", v.cfg, v.span, bins, dst, src)
	if frames == 0 {
		return 0, nil
	}
	if err := v.plan.Load(src); err != nil {
		return 0, fmt.Errorf("tfr: vqt: %w", err)
	}
	for _, g := range v.groups {
		v.hold(g, dst, frames)
	}
	for round := 0; ; round++ {
		more, err := v.round(round, dst, frames)
		if err != nil {
			return 0, err
		}
		if !more {
			break
		}
	}
	v.stream += frames
	return frames, nil
}

// hold writes g's held values into the call's frames before its first
// evaluation and sets g.first and g.evals for the call.
func (v *vqt) hold(g *vqtGroup, dst []float32, frames int) {
	ch, bins := v.cfg.Channels, len(v.freqs)
	g.first = (g.ratio - v.stream%g.ratio) % g.ratio // the first local frame whose stream index is ≡ 0 mod ratio
	g.evals = 0
	if g.first < frames {
		g.evals = (frames - g.first + g.ratio - 1) / g.ratio
	}
	for i := range min(g.first, frames) {
		for c := range ch {
			copy(dst[(c*frames+i)*bins+g.bin0:][:g.rows], g.held[c*g.rows:(c+1)*g.rows])
		}
	}
}

// round runs every group's evaluations round·chunk… in one plan call and
// spreads them over the frames they hold for; more says whether a group
// has evaluations left.
func (v *vqt) round(round int, dst []float32, frames int) (more bool, err error) {
	some := false
	for i, g := range v.groups {
		j0 := round * g.chunk
		n := max(0, min(g.chunk, g.evals-j0))
		v.frames[i] = gpufft.SpectralFrames{Start: (g.first+j0*g.ratio)*v.cfg.Hop + g.offset, Frames: n}
		more = more || g.evals > j0+n
		some = some || n > 0
	}
	if !some {
		return false, nil
	}
	if err := v.plan.Execute(v.buf, v.frames); err != nil {
		return false, fmt.Errorf("tfr: vqt: %w", err)
	}
	base := 0
	for i, g := range v.groups {
		n := v.frames[i].Frames
		if n == 0 {
			continue
		}
		v.spread(g, v.buf[base:base+v.cfg.Channels*n*g.rows], dst, frames, round*g.chunk, n)
		base += v.cfg.Channels * n * g.rows
	}
	return more, nil
}

// spread copies g's evaluations j0…j0+n−1 (out, [channel][n][rows]) into
// the frames each holds for, and keeps the last as held.
func (v *vqt) spread(g *vqtGroup, out, dst []float32, frames, j0, n int) {
	bins := len(v.freqs)
	for c := range v.cfg.Channels {
		for j := range n {
			row := out[(c*n+j)*g.rows : (c*n+j+1)*g.rows]
			i := g.first + (j0+j)*g.ratio
			for f := i; f < min(i+g.ratio, frames); f++ {
				copy(dst[(c*frames+f)*bins+g.bin0:][:g.rows], row)
			}
		}
		copy(g.held[c*g.rows:(c+1)*g.rows], out[(c*n+n-1)*g.rows:(c*n+n)*g.rows])
	}
}

// Close releases the plan. Calling it twice is harmless.
func (v *vqt) Close() error {
	if v.plan == nil {
		return nil
	}
	err := v.plan.Close()
	v.plan = nil
	return err
}
