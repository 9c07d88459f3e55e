package gpufft

import (
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
)

// A PowerSum plan is a Power plan whose frames are summed per bin on the
// engine: a Welch average (app/archive's LTSA) needs only that sum, and
// reading every frame's spectrum back cost more than computing it (100 h
// of audio is about 69 GB of powers at N = 4096, hop 2048).
//
// The CPU engine splits each output channel's frames over its workers;
// each worker computes its frames one at a time into a row of its own and
// adds them in float64, and the workers' sums are added in worker order
// (deterministic for an engine of a given worker count), then rounded
// once to float32. No frames×bins buffer exists.
//
// The OpenCL engine runs the Power plan's kernels into the device buffer
// of rows, then sum_slices and sum_parts (reduce.cl): contiguous slices of
// frames summed in float32 by one work-item per (channel, slice, bin), the
// slices then added per (channel, bin); only OutChannels×Bins values are
// read back. Summing n frames in s slices adds at most about
// (n/s + s)·2⁻²⁴ relative error (n/s ≈ 20 and s ≈ 100 for the archive's
// 2¹⁶-frame batches at N = 1024), far inside the 0.01 dB (2.3·10⁻³) the
// LTSA promises; callers add the per-Execute sums in float64.

// sumWorkItems is about how many work-items sum_slices uses: enough to
// keep a GPU's memory busy, however many bins there are.
const sumWorkItems = 1 << 16

// sumSlices is the slice count of sum_slices for bins (padded to binsPad)
// and at most maxFrames frames a call.
func sumSlices(binsPad, maxFrames int) int {
	return max(1, min(maxFrames, sumWorkItems/binsPad, 256))
}

// Int16Executor is implemented by the spectrogram plans that also take
// 16-bit PCM samples as they are (v, meaning v/2^15 of full scale), with
// no conversion pass on the host: the PowerSum plans of one channel, on
// the CPU engine converting them in the first FFT stage, on the OpenCL
// engine uploading them (half the bytes of float32) and converting them
// on the device. ExecuteInt16 gives the bits Execute gives for the
// samples converted as package audio converts them (on the CPU engine for
// windows whose values are 0 or above 2^−111), and panics where Execute
// would or on a plan of more than one channel. The archive analyses use
// it for 16-bit files.
type Int16Executor interface {
	ExecuteInt16(dst []float32, src []int16) (frames int, err error)
}

// powerCfg is cfg with Power output: the plan whose frames are summed.
func powerCfg(cfg SpectrogramConfig) SpectrogramConfig {
	cfg.Output = Power
	return cfg
}

// ---- CPU

type cpuPowerSum struct {
	sp     *cpuSpectrogram
	cfg    SpectrogramConfig
	acc    [][]float64 // per worker: the sum of its frames
	row    [][]float32 // per worker: one group's powers
	c      int         // the output channel being summed
	chunks int         // the call's chunks of frames, one a worker (run)
}

var _ Int16Executor = (*cpuPowerSum)(nil)

func (e *CPU) newPowerSum(cfg SpectrogramConfig) (SpectrogramPlan, error) {
	sp, err := e.NewSpectrogram(powerCfg(cfg))
	if err != nil {
		return nil, err
	}
	p := &cpuPowerSum{sp: sp.(*cpuSpectrogram), cfg: sp.Config()}
	p.cfg.Output = PowerSum
	bins := cfg.Bins()
	// one channel's frames are split over at most w workers (the plan's
	// scratch is sized for as many: min(workers, frames×channels))
	w := min(e.workers, cfg.Frames(cfg.MaxSamples))
	for range w {
		p.acc = append(p.acc, make([]float64, bins))
		p.row = append(p.row, make([]float32, bins))
	}
	return p, nil
}

func (p *cpuPowerSum) Config() SpectrogramConfig { return p.cfg }

func (p *cpuPowerSum) Execute(dst, src []float32) (int, error) {
	samples, frames := p.cfg.spectrogramCall(dst, src)
	p.sp.src = src
	defer func() { p.sp.src = nil }()
	return p.execute(dst, samples, frames)
}

// ExecuteInt16 implements Int16Executor.
func (p *cpuPowerSum) ExecuteInt16(dst []float32, src []int16) (int, error) {
	samples, frames := p.cfg.int16Call(dst, src)
	p.sp.src16 = src
	defer func() { p.sp.src16 = nil }()
	return p.execute(dst, samples, frames)
}

// execute sums the frames of the call p.sp's source holds.
func (p *cpuPowerSum) execute(dst []float32, samples, frames int) (int, error) {
	bins := p.cfg.Bins()
	dst = dst[:p.cfg.DstLen(samples)]
	if frames == 0 {
		clear(dst)
		return 0, nil
	}
	sp := p.sp
	sp.samples, sp.frames = samples, frames
	for c := range p.cfg.OutChannels() {
		for _, a := range p.acc {
			clear(a)
		}
		p.c = c
		p.chunks = min(len(p.acc), (frames+sumFrames-1)/sumFrames)
		if err := sp.exec(p, p.chunks); err != nil { // one chunk a worker
			return 0, err
		}
		out := dst[c*bins : (c+1)*bins]
		for k := range out {
			s := 0.0
			for _, a := range p.acc {
				s += a[k]
			}
			out[k] = float32(s)
		}
	}
	return frames, nil
}

// run sums chunks [lo, hi) of output channel p.c's frames into worker
// w's acc: the powers of each group of sumFrames frames (counted from the
// call's first frame) are added in float32 (in the split, without storing
// each frame's), then into acc in float64. The chunks are whole groups
// (chunkStart), so the float32 sums are the same whatever the number of
// workers.
func (p *cpuPowerSum) run(w, lo, hi int) {
	row := p.row[w]
	acc := p.acc[w][:len(row)]
	first, end := p.chunkStart(lo), p.chunkStart(hi)
	if p.cfg.BinGain != nil { // the gains apply to each frame's powers
		for f := first; f < end; f++ {
			p.sp.sequence(w, p.c*p.sp.frames+f, row, overwrite)
			addWiden(acc, row)
		}
		return
	}
	for g := first; g < end; g += sumFrames {
		how := overwrite
		for f := g; f < min(g+sumFrames, end); f++ {
			p.sp.sequence(w, p.c*p.sp.frames+f, row, how)
			how = accumulate
		}
		addWiden(acc, row)
	}
}

// chunkStart is chunk c's first frame: c/chunks of the call's frames,
// rounded to a whole group (the call's frame count for c = chunks).
func (p *cpuPowerSum) chunkStart(c int) int {
	if c >= p.chunks {
		return p.sp.frames
	}
	at := (c*p.sp.frames/p.chunks + sumFrames/2) / sumFrames * sumFrames
	return min(at, p.sp.frames)
}

// sumFrames is how many frames' powers run adds in float32 before adding
// them into float64: 16 values in float32 lose at most 15 roundings,
// about 1e-6 of the sum (4e-6 dB), and the widening pass runs once every
// 16 frames rather than after each.
const sumFrames = 16

// addWiden sets acc[k] += float64(x[k]) for k < len(x) (acc as long).
func addWiden(acc []float64, x []float32) {
	acc = acc[:len(x)]
	if n := len(x) &^ 7; haveAVX2 && n > 0 {
		addWidenAVX2(&acc[0], &x[0], n)
		acc, x = acc[n:], x[n:]
	}
	for k, v := range x {
		acc[k] += float64(v)
	}
}

func (p *cpuPowerSum) Close() error { return p.sp.Close() }

// ---- OpenCL

type gpuPowerSum struct {
	sp         *gpuSpectrogram
	cfg        SpectrogramConfig
	sum        cl.Mem
	part, add  launch
	slices     int
	argFrames  int32
	bins, outs int
	// ExecuteInt16's: the 16-bit samples on the device and their
	// conversion into the spectrogram's input (made on first use)
	raw  cl.Mem
	conv launch
	// Int16Buffer's pinned host buffers, mapped for the plan's life
	pinned []staging
}

var (
	_ Int16Executor = (*gpuPowerSum)(nil)
	_ Int16Stager   = (*gpuPowerSum)(nil)
)

// Int16Stager is implemented by plans whose ExecuteInt16 reads some memory
// faster than the rest: the OpenCL engine's PowerSum plans, whose
// Int16Buffer is pinned host memory (mapped for the plan's life, released
// by Close), from which the upload is a DMA without the driver's own copy
// into pinned memory first. Samples anywhere in such a buffer may be
// passed to ExecuteInt16; other memory works as well, more slowly.
type Int16Stager interface {
	Int16Buffer(n int) ([]int16, error)
}

// Int16Buffer implements Int16Stager.
func (p *gpuPowerSum) Int16Buffer(n int) ([]int16, error) {
	e := p.sp.e
	if p.sp.closed {
		return nil, ErrClosed
	}
	if err := p.sp.fits("pinned buffer", 2*n); err != nil {
		return nil, err
	}
	m, err := e.lib.CreateBuffer(e.ctx, cl.MemReadOnly|cl.MemAllocHostPtr, max(2*n, 16))
	if err != nil {
		return nil, errGPU("pinned buffer", err)
	}
	host, err := e.lib.Map(e.queue, m, cl.MapWrite, 0, max(2*n, 16))
	if err != nil {
		e.lib.ReleaseMem(m)
		return nil, errGPU("map pinned buffer", err)
	}
	p.pinned = append(p.pinned, staging{mem: m, host: host})
	return unsafe.Slice((*int16)(unsafe.Pointer(&host[0])), n), nil
}

func (e *OpenCL) newPowerSum(cfg SpectrogramConfig) (SpectrogramPlan, error) {
	e.prebuild(reduceProgram) // beside the spectrogram's
	sp, err := e.NewSpectrogram(powerCfg(cfg))
	if err != nil {
		return nil, err
	}
	p := &gpuPowerSum{sp: sp.(*gpuSpectrogram), cfg: cfg, bins: cfg.Bins(), outs: cfg.OutChannels()}
	if err := p.init(); err != nil {
		p.sp.Close()
		return nil, err
	}
	return p, nil
}

func (p *gpuPowerSum) init() error {
	b := &p.sp.gpuBase
	binsPad := (p.bins + 63) / 64 * 64
	p.slices = sumSlices(binsPad, p.cfg.Frames(p.cfg.MaxSamples))
	part, err := b.buffer(4 * p.outs * p.slices * p.bins)
	if err != nil {
		return err
	}
	if p.sum, err = b.buffer(4 * p.outs * p.bins); err != nil {
		return err
	}
	src, defs := reduceProgram.source, reduceProgram.defines
	k, err := b.kernel(src, defs, kernels.SumSlices.Kernel, p.sp.out, part, int32(p.bins), int32(binsPad), int32(0), int32(p.slices))
	if err != nil {
		return err
	}
	p.part = launch{k: k, wg: 64, perUnit: p.outs * p.slices * binsPad, intArg: -1, longArg: -1}
	count := p.outs * p.bins
	if k, err = b.kernel(src, defs, kernels.SumParts.Kernel, part, p.sum, int32(p.bins), int32(p.slices), int32(count)); err != nil {
		return err
	}
	p.add = launch{k: k, wg: 64, perUnit: count, intArg: -1, longArg: -1}
	return nil
}

func (p *gpuPowerSum) Config() SpectrogramConfig { return p.cfg }

func (p *gpuPowerSum) Execute(dst, src []float32) (int, error) {
	samples, frames := p.cfg.spectrogramCall(dst, src)
	if run, err := p.begin(dst, samples, frames); !run {
		return 0, err
	}
	sp := p.sp
	if err := sp.e.lib.Write(&sp.args, sp.e.queue, sp.in, true, 0, 4*len(src), unsafe.Pointer(&src[0])); err != nil {
		return 0, errGPU("upload", err)
	}
	return p.sumFrames(dst, samples, frames)
}

// begin says whether a call of frames has work for the device: not when
// it has no frame (dst is cleared) or the plan is closed (ErrClosed).
func (p *gpuPowerSum) begin(dst []float32, samples, frames int) (bool, error) {
	if frames == 0 {
		clear(dst[:p.cfg.DstLen(samples)])
		return false, nil
	}
	if p.sp.closed {
		return false, ErrClosed
	}
	return true, nil
}

// ExecuteInt16 implements Int16Executor: the samples go to the device as
// they are (half the bytes of float32) and the PCM plans' conversion
// kernel (pcm.cl, the host decoder's values bit for bit) turns them into
// the spectrogram's input there.
func (p *gpuPowerSum) ExecuteInt16(dst []float32, src []int16) (int, error) {
	samples, frames := p.cfg.int16Call(dst, src)
	if run, err := p.begin(dst, samples, frames); !run {
		return 0, err
	}
	sp := p.sp
	if p.raw == 0 {
		if err := p.initInt16(); err != nil {
			return 0, err
		}
	}
	e := sp.e
	if err := e.lib.Write(&sp.args, e.queue, p.raw, true, 0, 2*len(src), unsafe.Pointer(&src[0])); err != nil {
		return 0, errGPU("upload", err)
	}
	p.conv.longVal = int64(samples)
	if err := p.conv.enqueue(e, samples); err != nil {
		e.lib.Finish(&sp.args, e.queue)
		return 0, errGPU("convert", err)
	}
	return p.sumFrames(dst, samples, frames)
}

// initInt16 makes ExecuteInt16's device buffer and conversion kernel.
func (p *gpuPowerSum) initInt16() error {
	b := &p.sp.gpuBase
	raw, err := b.buffer(2 * p.cfg.MaxSamples)
	if err != nil {
		return err
	}
	prog := pcmProgram(PCMFormat{Encoding: PCMInt16, Channels: 1})
	k, err := b.kernel(prog.source, prog.defines, kernels.PCMPlanar.Kernel, raw, p.sp.in, int64(0), float32(1))
	if err != nil {
		return err
	}
	p.raw, p.conv = raw, launch{k: k, wg: 256, perUnit: 1, intArg: -1, intMul: 1, longArg: kernels.PCMPlanar.Frames}
	return nil
}

// sumFrames transforms the frames of the samples in the spectrogram's
// input and sums their powers into dst.
func (p *gpuPowerSum) sumFrames(dst []float32, samples, frames int) (int, error) {
	sp := p.sp
	lib, q := sp.e.lib, sp.e.queue
	if err := sp.resident(samples, frames); err != nil {
		return 0, err
	}
	p.argFrames = int32(frames)
	if err := lib.SetArg(&p.part.args, p.part.k, kernels.SumSlices.Frames, 4, unsafe.Pointer(&p.argFrames)); err != nil {
		lib.Finish(&sp.args, q)
		return 0, errGPU("sum", err)
	}
	if err := p.part.enqueue(sp.e, 1); err != nil {
		lib.Finish(&sp.args, q)
		return 0, errGPU("sum", err)
	}
	if err := p.add.enqueue(sp.e, 1); err != nil {
		lib.Finish(&sp.args, q)
		return 0, errGPU("sum", err)
	}
	if err := lib.Read(&sp.args, q, p.sum, 0, 4*p.outs*p.bins, unsafe.Pointer(&dst[0])); err != nil {
		return 0, errGPU("download", err)
	}
	return frames, nil
}

func (p *gpuPowerSum) Close() error {
	e := p.sp.e
	if !p.sp.closed && e.alive() == nil { // else the engine released everything with its context
		e.lib.Finish(&p.sp.args, e.queue) // nothing queued may outlive what it reads
		for _, s := range p.pinned {
			e.lib.Unmap(e.queue, s.mem, s.host) // nothing to do about an unmap error: the buffer is released next
			e.lib.ReleaseMem(s.mem)
		}
	}
	p.pinned = nil
	return p.sp.Close()
}
