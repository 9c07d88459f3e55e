package gpufft

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
	"github.com/prismaudio/prism/window"
)

// A transfer plan (TransferEngine.NewTransfer) is the engine side of a
// dual-channel measurement: one reference channel x and M measurement
// channels y_c, framed, windowed and transformed like a spectrogram
// (Complex output), then, on the engine and without a round trip, per
// measurement channel c and bin k, frame by frame in order:
//
//	v        = (conj(X_k)·Y_c,k, |X_k|², |Y_c,k|²)      (Gxy, Gxx, Gyy of the frame)
//	FIFO:      the mean of the last Frames frames' v   (a ring of them on the engine,
//	           each mean summed afresh from the ring: nothing drifts)
//	exp:       avg = avg + ExpAlpha·(v − avg)          (starts at the first frame)
//
// Only Read crosses back: the averages, TransferValues float32 per
// channel and bin; and Peaks, the delay finder's impulse-response peaks
// (transferpeaks.go). The transfer function, coherence and delay are
// formed from them by the caller (app/dual's rules).

// TransferValues is the number of float32 values per channel and bin
// that TransferPlan.Read writes, at these offsets.
const (
	TransferGxyRe = iota // Re mean(conj(X)·Y)
	TransferGxyIm        // Im mean(conj(X)·Y)
	TransferGxx          // mean |X|² (the reference's; the same for every channel)
	TransferGyy          // mean |Y|²
	TransferValues
)

// MaxTransferFrames is the longest FIFO average a transfer plan keeps.
const MaxTransferFrames = 256

// TransferConfig describes a transfer plan.
type TransferConfig struct {
	Size       int         // N: frame length, a power of two, MinSize..MaxSize
	Hop        int         // H: 1 ≤ H ≤ N
	Window     window.Func // applied to both channels' frames
	Channels   int         // M measurement channels, ≥ 1 (the input holds 1+M)
	MaxSamples int         // most samples per channel passed to one Execute, ≥ Size
	// Frames is the FIFO's length, 1…MaxTransferFrames; 0 selects the
	// exponential average of weight ExpAlpha, 0 < ExpAlpha ≤ 1.
	Frames   int
	ExpAlpha float32
}

// Bins is N/2+1.
func (c TransferConfig) Bins() int { return c.Size/2 + 1 }

// DstLen is the length Read's dst needs: Channels×Bins×TransferValues.
func (c TransferConfig) DstLen() int { return c.Channels * c.Bins() * TransferValues }

// MaxFrames is the most frames per channel one Execute takes.
func (c TransferConfig) MaxFrames() int { return c.spectrogram().Frames(c.MaxSamples) }

// spectrogram is the plan's transform: 1+M channels, complex bins.
func (c TransferConfig) spectrogram() SpectrogramConfig {
	return SpectrogramConfig{Size: c.Size, Hop: c.Hop, Window: c.Window, Channels: c.Channels + 1,
		MaxSamples: c.MaxSamples, Output: Complex}
}

func (c TransferConfig) check() error {
	if c.Channels < 1 || c.Channels > 1023 {
		return fmt.Errorf("%w: transfer of %d measurement channels (want 1…1023)", ErrInvalid, c.Channels)
	}
	if err := c.spectrogram().check(); err != nil {
		return err
	}
	switch {
	case c.Frames < 0 || c.Frames > MaxTransferFrames:
		return fmt.Errorf("%w: transfer Frames %d (want 1…%d, or 0 for exponential)", ErrInvalid, c.Frames, MaxTransferFrames)
	case c.Frames == 0 && !(c.ExpAlpha > 0 && c.ExpAlpha <= 1):
		return fmt.Errorf("%w: transfer ExpAlpha %v (want 0 < α ≤ 1)", ErrInvalid, c.ExpAlpha)
	case int64(max(c.Frames, 1))*TransferValues*int64(c.Channels)*int64(c.Bins()) > math.MaxInt32:
		return fmt.Errorf("%w: transfer ring of %d frames × %d channels × %d bins is too large", ErrInvalid, c.Frames, c.Channels, c.Bins())
	}
	return nil
}

// TransferPlan runs a TransferConfig.
//
// Execute reads src as 1+Channels planar blocks of L = len(src)/(1+Channels)
// samples each (L ≤ MaxSamples), the reference first, and averages in the
// frames i covering samples [i·H, i·H+N) of each block (no padding: a
// caller streaming a signal passes each call the N−H samples the last
// frame left over). It returns the frame count. Read copies the current
// averages into dst: for channel c and bin k, the TransferValues values
// at dst[(c·Bins + k)·TransferValues] (zero before the first frame). They
// do not allocate, and panic if len(src) is not a multiple of 1+Channels,
// L > MaxSamples or len(dst) < DstLen. Reset forgets every frame: the
// averages start again (at zero until the next frame). Only one
// goroutine may use a plan at a time.
//
// Peaks writes into dst[:Channels] each channel's GCC-PHAT impulse
// response's peak, of the averages Read would return (see TransferPeak
// and transferpeaks.go). Its first call makes its transform and buffers;
// later calls do not allocate. It panics if len(dst) < Channels.
type TransferPlan interface {
	Config() TransferConfig
	Execute(src []float32) (frames int, err error)
	Read(dst []float32) error
	Peaks(dst []TransferPeak) error
	Reset() error
	Close() error
}

// TransferEngine is an Engine that makes transfer plans (*CPU and
// *OpenCL do); callers assert it: e.(gpufft.TransferEngine).
type TransferEngine interface {
	NewTransfer(cfg TransferConfig) (TransferPlan, error)
}

var (
	_ TransferEngine = (*CPU)(nil)
	_ TransferEngine = (*OpenCL)(nil)
)

// transferCall validates an Execute call and returns L and the frame count.
func (c TransferConfig) transferCall(src []float32) (samples, frames int) {
	ch := c.Channels + 1
	samples = len(src) / ch
	if samples*ch != len(src) || samples > c.MaxSamples {
		panic(fmt.Sprintf("gpufft: transfer: len(src) %d is not %d channels of at most %d samples", len(src), ch, c.MaxSamples))
	}
	return samples, c.spectrogram().Frames(samples)
}

func (c TransferConfig) checkDst(dst []float32) {
	if len(dst) < c.DstLen() {
		panic(fmt.Sprintf("gpufft: transfer: len(dst) %d < %d", len(dst), c.DstLen()))
	}
}

// transferState is what both engines keep on the host side: the ring's
// next slot, the frames in it, and whether a frame has been seen.
type transferState struct {
	next, count int
	started     bool
}

// advance returns the state after n more frames.
func (s transferState) advance(n, frames int) transferState {
	if frames > 0 {
		s.next = (s.next + n) % frames
		s.count = min(s.count+n, frames)
	}
	s.started = s.started || n > 0
	return s
}

// ---- CPU engine

type cpuTransfer struct {
	e      *CPU
	cfg    TransferConfig
	sp     *cpuSpectrogram
	spec   []float32 // the batch's complex bins, (1+M)×n×bins×2
	ring   []float32 // Frames×4 planes×M×bins (FIFO)
	avg    []float32 // M×bins×TransferValues
	sums   []float64 // M×4×bins: the FIFO's sums (planar, as the ring)
	st     transferState
	n      int // frames of the batch being run
	splits int
	wg     sync.WaitGroup
	pk     cpuPeaks // made by the first Peaks
}

// NewTransfer implements TransferEngine: the spectrogram on the engine's
// workers, then the averages split into bin ranges per channel on the
// same workers.
func (e *CPU) NewTransfer(cfg TransferConfig) (TransferPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	scfg := cfg.spectrogram()
	sp, err := e.NewSpectrogram(scfg)
	if err != nil {
		return nil, err
	}
	bins := cfg.Bins()
	return &cpuTransfer{e: e, cfg: cfg, sp: sp.(*cpuSpectrogram),
		spec: make([]float32, scfg.DstLen(cfg.MaxSamples)),
		ring: make([]float32, cfg.Frames*TransferValues*cfg.Channels*bins),
		avg:  make([]float32, cfg.DstLen()),
		sums: make([]float64, min(cfg.Frames, 1)*cfg.DstLen()),
		// ranges of at least 2048 bins: smaller ones cost more to hand
		// out than they take
		splits: max(1, min(e.workers, bins/2048))}, nil
}

func (p *cpuTransfer) Config() TransferConfig { return p.cfg }

func (p *cpuTransfer) Execute(src []float32) (int, error) {
	_, frames := p.cfg.transferCall(src)
	if frames == 0 {
		return 0, nil
	}
	if _, err := p.sp.Execute(p.spec, src); err != nil {
		return 0, err
	}
	p.n = frames
	if err := p.e.parallel(p, p.cfg.Channels*p.splits, &p.wg); err != nil {
		return 0, err
	}
	p.st = p.st.advance(frames, p.cfg.Frames)
	return frames, nil
}

// run does parts [lo, hi): part i is channel i/splits's bin range
// i%splits.
func (p *cpuTransfer) run(_, lo, hi int) {
	bins := p.cfg.Bins()
	for i := lo; i < hi; i++ {
		c, r := i/p.splits, i%p.splits
		p.update(c, r*bins/p.splits, (r+1)*bins/p.splits)
	}
}

// update averages bins [lo, hi) of channel c over the batch's frames:
// transfer.cl's transfer_update, operation for operation (the FIFO's sums
// in float64 here, in float there). The loops run frame by frame and slot
// by slot over the bins, so every access is sequential: per bin over the
// frames (the kernel's order) strides by a whole spectrum or ring plane,
// and took 14 ms a frame at N = 65536 here (BenchmarkTransferPlan, 1+1
// channels), against 2.5.
func (p *cpuTransfer) update(c, lo, hi int) {
	cfg, n, bins := &p.cfg, p.n, p.cfg.Bins()
	plane := cfg.Channels * bins
	avg := p.avg[c*bins*TransferValues : (c+1)*bins*TransferValues]
	K, alpha := cfg.Frames, cfg.ExpAlpha
	for f := range n {
		xs := p.spec[f*bins*2 : (f+1)*bins*2]
		ys := p.spec[((c+1)*n+f)*bins*2 : ((c+1)*n+f+1)*bins*2]
		if K == 0 {
			first := !p.st.started && f == 0
			for k := lo; k < hi; k++ {
				xr, xi, yr, yi := xs[2*k], xs[2*k+1], ys[2*k], ys[2*k+1]
				v0, v1, v2, v3 := xr*yr+xi*yi, xr*yi-xi*yr, xr*xr+xi*xi, yr*yr+yi*yi
				a := avg[k*TransferValues : (k+1)*TransferValues : (k+1)*TransferValues]
				if first {
					a[0], a[1], a[2], a[3] = v0, v1, v2, v3
				} else {
					a[0] += alpha * (v0 - a[0])
					a[1] += alpha * (v1 - a[1])
					a[2] += alpha * (v2 - a[2])
					a[3] += alpha * (v3 - a[3])
				}
			}
			continue
		}
		o := ((p.st.next+f)%K)*TransferValues*plane + c*bins
		r0, r1 := p.ring[o:o+bins], p.ring[o+plane:o+plane+bins]
		r2, r3 := p.ring[o+2*plane:o+2*plane+bins], p.ring[o+3*plane:o+3*plane+bins]
		for k := lo; k < hi; k++ {
			xr, xi, yr, yi := xs[2*k], xs[2*k+1], ys[2*k], ys[2*k+1]
			r0[k], r1[k], r2[k], r3[k] = xr*yr+xi*yi, xr*yi-xi*yr, xr*xr+xi*xi, yr*yr+yi*yi
		}
	}
	if K == 0 {
		return
	}
	s := p.sums[c*TransferValues*bins : (c+1)*TransferValues*bins]
	s0, s1, s2, s3 := s[:bins], s[bins:2*bins], s[2*bins:3*bins], s[3*bins:]
	clear(s0[lo:hi])
	clear(s1[lo:hi])
	clear(s2[lo:hi])
	clear(s3[lo:hi])
	count := min(p.st.count+n, K)
	for j := range count {
		o := j*TransferValues*plane + c*bins
		r0, r1 := p.ring[o:o+bins], p.ring[o+plane:o+plane+bins]
		r2, r3 := p.ring[o+2*plane:o+2*plane+bins], p.ring[o+3*plane:o+3*plane+bins]
		for k := lo; k < hi; k++ {
			s0[k] += float64(r0[k])
			s1[k] += float64(r1[k])
			s2[k] += float64(r2[k])
			s3[k] += float64(r3[k])
		}
	}
	inv := 1 / float64(count)
	for k := lo; k < hi; k++ {
		a := avg[k*TransferValues : (k+1)*TransferValues : (k+1)*TransferValues]
		a[0], a[1], a[2], a[3] = float32(s0[k]*inv), float32(s1[k]*inv), float32(s2[k]*inv), float32(s3[k]*inv)
	}
}

func (p *cpuTransfer) Read(dst []float32) error {
	p.cfg.checkDst(dst)
	if p.sp.closed {
		return ErrClosed
	}
	copy(dst, p.avg)
	return nil
}

func (p *cpuTransfer) Reset() error {
	if p.sp.closed {
		return ErrClosed
	}
	p.st = transferState{}
	clear(p.avg)
	return nil
}

func (p *cpuTransfer) Close() error {
	if p.pk.real != nil {
		p.pk.real.Close()
	}
	return p.sp.Close()
}

// ---- OpenCL engine

// gpuTransfer is a transfer plan on OpenCL: the spectrogram plan's
// kernels, then transfer.cl's transfer_update on its output buffer, on
// one in-order queue; per batch the host uploads the samples, and Read
// downloads the averages.
type gpuTransfer struct {
	sp     *gpuSpectrogram
	cfg    TransferConfig
	update launch
	avg    cl.Mem
	st     transferState
	// per-call kernel arguments (on the heap: SetArg keeps no pointer,
	// but taking a local's address would make it escape)
	argN, argNext, argCount, argFirst int32
	pk                                *gpuPeaks // made by the first Peaks
}

// NewTransfer implements TransferEngine.
func (e *OpenCL) NewTransfer(cfg TransferConfig) (TransferPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	e.live.Lock()
	defer e.live.Unlock()
	sp, err := e.NewSpectrogram(cfg.spectrogram())
	if err != nil {
		return nil, err
	}
	p := &gpuTransfer{sp: sp.(*gpuSpectrogram), cfg: cfg}
	if err := p.init(); err != nil {
		p.sp.Close()
		return nil, err
	}
	return p, nil
}

func (p *gpuTransfer) init() error {
	b, cfg := &p.sp.gpuBase, p.cfg
	bins, M := cfg.Bins(), cfg.Channels
	zeroed := func(bytes int) (cl.Mem, error) {
		m, err := b.buffer(bytes)
		if err == nil {
			err = b.e.lib.Zero(b.e.queue, m, 0, max(bytes, 16))
		}
		return m, err
	}
	ring, err := zeroed(4 * max(cfg.Frames, 1) * TransferValues * M * bins)
	if err != nil {
		return err
	}
	if p.avg, err = zeroed(4 * cfg.DstLen()); err != nil {
		return err
	}
	a := kernels.TransferUpdate
	args := make([]any, a.Params)
	args[a.Spec], args[a.Ring], args[a.Avg] = p.sp.out, ring, p.avg
	args[a.N], args[a.Bins], args[a.M], args[a.K] = int32(0), int32(bins), int32(M), int32(cfg.Frames)
	args[a.Next], args[a.Count], args[a.First], args[a.Alpha] = int32(0), int32(0), int32(0), cfg.ExpAlpha
	// fft_common.cl, built before every kernel file, needs a geometry;
	// transfer.cl uses none (post.cl's one)
	k, err := b.kernel(kernels.Transfer, geom{len: 64, radix: 2, s: 1}.defines(), a.Kernel, args...)
	if err != nil {
		return err
	}
	p.update = launch{k: k, wg: 256, perUnit: M * bins, intArg: -1, longArg: -1}
	return nil
}

func (p *gpuTransfer) Config() TransferConfig { return p.cfg }

func (p *gpuTransfer) Execute(src []float32) (int, error) {
	samples, frames := p.cfg.transferCall(src)
	if frames == 0 {
		return 0, nil
	}
	sp := p.sp
	sp.e.live.Lock()
	defer sp.e.live.Unlock()
	if sp.closed {
		return 0, ErrClosed
	}
	lib, q := sp.e.lib, sp.e.queue
	if err := lib.Write(&sp.args, q, sp.in, true, 0, 4*len(src), unsafe.Pointer(&src[0])); err != nil {
		return 0, errGPU("upload", err)
	}
	if err := sp.resident(samples, frames); err != nil {
		return 0, err
	}
	if err := p.post(frames); err != nil {
		lib.Finish(&sp.args, q)
		return 0, errGPU("transfer", err)
	}
	p.st = p.st.advance(frames, p.cfg.Frames)
	return frames, nil
}

// post sets the per-batch arguments and enqueues transfer_update.
func (p *gpuTransfer) post(frames int) error {
	lib, u := p.sp.e.lib, &p.update
	p.argN, p.argNext = int32(frames), int32(p.st.next)
	p.argCount, p.argFirst = int32(p.st.advance(frames, p.cfg.Frames).count), 0
	if !p.st.started {
		p.argFirst = 1
	}
	for _, a := range [...]struct {
		i int
		v *int32
	}{{kernels.TransferUpdate.N, &p.argN}, {kernels.TransferUpdate.Next, &p.argNext}, {kernels.TransferUpdate.Count, &p.argCount}, {kernels.TransferUpdate.First, &p.argFirst}} {
		if err := lib.SetArg(&u.args, u.k, a.i, 4, unsafe.Pointer(a.v)); err != nil {
			return err
		}
	}
	return u.enqueue(p.sp.e, 1)
}

func (p *gpuTransfer) Read(dst []float32) error {
	p.cfg.checkDst(dst)
	sp := p.sp
	sp.e.live.Lock()
	defer sp.e.live.Unlock()
	if sp.closed {
		return ErrClosed
	}
	if err := sp.e.lib.Read(&sp.args, sp.e.queue, p.avg, 0, 4*p.cfg.DstLen(), unsafe.Pointer(&dst[0])); err != nil {
		return errGPU("download", err)
	}
	return nil
}

func (p *gpuTransfer) Reset() error {
	sp := p.sp
	sp.e.live.Lock()
	defer sp.e.live.Unlock()
	if sp.closed {
		return ErrClosed
	}
	if err := sp.e.lib.Zero(sp.e.queue, p.avg, 0, 4*p.cfg.DstLen()); err != nil {
		return errGPU("reset", err)
	}
	p.st = transferState{}
	return nil
}

func (p *gpuTransfer) Close() error {
	p.sp.e.live.Lock()
	defer p.sp.e.live.Unlock()
	if p.pk != nil {
		p.pk.real.Close()
	}
	return p.sp.Close()
}
