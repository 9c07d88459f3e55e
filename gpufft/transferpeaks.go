package gpufft

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
)

// The delay finder's engine side (TransferPlan.Peaks): per measurement
// channel the GCC-PHAT impulse response of the current averages, the
// inverse real transform of w = Gxy/|Gxy| (0 where Gxy is 0; the
// imaginary parts of bins 0 and N/2 dropped, as a real signal's spectrum
// has none), normalised by 1/N as RealPlan.Inverse is, and of it only
// the peak crosses back: the index of the largest |value| (the first on
// a tie), that value and the sum of the squares. The caller places the
// peak between samples from the averages it reads anyway (app/dual's
// DelayFinder.Refine). On a GPU the weighting, the transform and the
// search stay on the device (transfer.cl's transfer_phat and
// transfer_peak around the engine's C2R plan); at 16 channels and
// N = 65536 the host's float64 transforms of the same took 50–70 ms a
// batch one after another, 3–4 ms on 16 cores.

// TransferPeak is one channel's impulse-response peak (TransferPlan.Peaks).
type TransferPeak struct {
	Index      int     // 0…N−1, the lag of the largest |value| (an Index ≥ N/2 is the lag Index − N)
	Value      float32 // the response at Index (negative: the measurement is inverted)
	SumSquares float32 // Σ value² over the N samples (RMS = √(SumSquares/N))
}

// checkPeaks panics if dst is short.
func (c TransferConfig) checkPeaks(dst []TransferPeak) {
	if len(dst) < c.Channels {
		panic(fmt.Sprintf("gpufft: transfer: len(peaks) %d < %d channels", len(dst), c.Channels))
	}
}

// phatWeight is transfer_phat's weighting of one bin: g/|g|, 0 for 0,
// the imaginary part dropped at bins 0 and N/2 (edge).
func phatWeight(re, im float32, edge bool) complex64 {
	if edge {
		im = 0
	}
	a2 := re*re + im*im
	if !(a2 > 0) {
		return 0
	}
	inv := float32(1 / math.Sqrt(float64(a2)))
	return complex(re*inv, im*inv)
}

// peakOf is transfer_peak's search of one response: the first largest
// |value|, its value and the sum of the squares.
func peakOf(x []float32) TransferPeak {
	best, at, ss := float32(-1), 0, 0.0
	for i, v := range x {
		ss += float64(v) * float64(v)
		if a := float32(math.Abs(float64(v))); a > best {
			best, at = a, i
		}
	}
	return TransferPeak{Index: at, Value: x[at], SumSquares: float32(ss)}
}

// ---- CPU engine

// cpuPeaks is the CPU plan's delay-finder state, made by the first Peaks.
type cpuPeaks struct {
	real RealPlan
	w    []complex64 // M×bins
	ir   []float32   // M×N
}

// Peaks implements TransferPlan: the weighting and the search on the
// calling goroutine, the transforms on the engine's workers.
func (p *cpuTransfer) Peaks(dst []TransferPeak) error {
	cfg := p.cfg
	cfg.checkPeaks(dst)
	if p.sp.closed {
		return ErrClosed
	}
	n, bins, m := cfg.Size, cfg.Bins(), cfg.Channels
	if p.pk.real == nil {
		r, err := p.e.NewReal(n, m)
		if err != nil {
			return err
		}
		p.pk = cpuPeaks{real: r, w: make([]complex64, m*bins), ir: make([]float32, m*n)}
	}
	for i := range p.pk.w {
		v := p.avg[i*TransferValues : (i+1)*TransferValues : (i+1)*TransferValues]
		k := i % bins
		p.pk.w[i] = phatWeight(v[TransferGxyRe], v[TransferGxyIm], k == 0 || k == bins-1)
	}
	if err := p.pk.real.Inverse(p.pk.ir, p.pk.w); err != nil {
		return err
	}
	for c := range m {
		dst[c] = peakOf(p.pk.ir[c*n : (c+1)*n])
	}
	return nil
}

// ---- OpenCL engine

// gpuPeaks is the OpenCL plan's delay-finder state, made by the first
// Peaks: the C2R plan (its input and output buffers are the weighted
// spectra and the responses), the two kernels and the peaks' buffer.
type gpuPeaks struct {
	real       *gpuReal
	phat, peak launch
	out        cl.Mem
	host       []float32 // M×4: the peaks as transfer_peak writes them
}

// peaksWG is transfer_peak's work-group size (its local arrays' length).
const peaksWG = 256

func (p *gpuTransfer) initPeaks() error {
	b, cfg := &p.sp.gpuBase, p.cfg
	m, bins := cfg.Channels, cfg.Bins()
	rp, err := b.e.NewReal(cfg.Size, m)
	if err != nil {
		return err
	}
	pk := gpuPeaks{real: rp.(*gpuReal), host: make([]float32, 4*m)}
	fail := func(err error) error {
		pk.real.Close()
		return err
	}
	if pk.out, err = b.buffer(16 * m); err != nil {
		return fail(err)
	}
	defs := geom{len: 64, radix: 2, s: 1}.defines() // fft_common.cl's sake, as in init
	a := kernels.TransferPhat
	args := make([]any, a.Params)
	args[a.Avg], args[a.W], args[a.Bins], args[a.M] = p.avg, pk.real.cbuf, int32(bins), int32(m)
	k, err := b.kernel(kernels.Transfer, defs, a.Kernel, args...)
	if err != nil {
		return fail(err)
	}
	pk.phat = launch{k: k, wg: 256, perUnit: m * bins, intArg: -1, longArg: -1}
	r := kernels.TransferPeak
	args = make([]any, r.Params)
	args[r.Ir], args[r.Peak], args[r.N] = pk.real.rbuf, pk.out, int32(cfg.Size)
	if k, err = b.kernel(kernels.Transfer, defs, r.Kernel, args...); err != nil {
		return fail(err)
	}
	pk.peak = launch{k: k, wg: peaksWG, perUnit: peaksWG, intArg: -1, longArg: -1}
	p.pk = &pk
	return nil
}

// Peaks implements TransferPlan: three launches on the plan's queue after
// the batch's, and one read of 16 bytes a channel.
func (p *gpuTransfer) Peaks(dst []TransferPeak) error {
	p.cfg.checkPeaks(dst)
	sp := p.sp
	sp.e.live.Lock()
	defer sp.e.live.Unlock()
	if sp.closed {
		return ErrClosed
	}
	if p.pk == nil {
		if err := p.initPeaks(); err != nil {
			return err
		}
	}
	e, m := sp.e, p.cfg.Channels
	if err := p.pk.phat.enqueue(e, 1); err != nil {
		e.lib.Finish(&sp.args, e.queue)
		return errGPU("peaks", err)
	}
	if err := runLaunches(e, p.pk.real.inv, m); err != nil {
		e.lib.Finish(&sp.args, e.queue)
		return errGPU("peaks", err)
	}
	if err := p.pk.peak.enqueue(e, m); err != nil {
		e.lib.Finish(&sp.args, e.queue)
		return errGPU("peaks", err)
	}
	if err := e.lib.Read(&sp.args, e.queue, p.pk.out, 0, 16*m, unsafe.Pointer(&p.pk.host[0])); err != nil {
		return errGPU("download", err)
	}
	for c := range m {
		v := p.pk.host[4*c : 4*c+4]
		dst[c] = TransferPeak{Index: int(v[0]), Value: v[1], SumSquares: v[2]}
	}
	return nil
}
