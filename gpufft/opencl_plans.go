package gpufft

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
)

var kernelsCommon = kernels.Common

// gpuBase owns a plan's device objects and releases them in reverse order.
type gpuBase struct {
	args    cl.Args // storage for the allocation-free calls
	e       *OpenCL
	mems    []cl.Mem
	kernels []cl.Kernel
	closed  bool
}

func (b *gpuBase) buffer(bytes int) (cl.Mem, error) {
	if err := b.fits("buffer", bytes); err != nil {
		return 0, err
	}
	m, err := b.e.lib.CreateBuffer(b.e.ctx, cl.MemReadWrite, max(bytes, 16))
	if err != nil {
		return 0, fmt.Errorf("gpufft: allocate %d bytes on %s: %w", bytes, b.e.info, err)
	}
	b.mems = append(b.mems, m)
	return m, nil
}

// fits refuses an allocation of bytes larger than the device's largest
// (what names it for the error).
func (b *gpuBase) fits(what string, bytes int) error {
	if int64(bytes) > b.e.info.MaxAllocBytes && b.e.info.MaxAllocBytes > 0 {
		return fmt.Errorf("%w: %s of %d bytes %v (%d)", ErrInvalid, what, bytes, errTooBig, b.e.info.MaxAllocBytes)
	}
	return nil
}

// table makes a constant table (twiddles, window, band matrix) holding
// bytes at data, copied when the buffer is made (cl.CreateBufferFrom).
func (b *gpuBase) table(data unsafe.Pointer, bytes int) (cl.Mem, error) {
	if err := b.fits("table", bytes); err != nil {
		return 0, err
	}
	if bytes < 16 { // as buffer: never fewer than 16 bytes
		pad := make([]byte, 16)
		copy(pad, unsafe.Slice((*byte)(data), bytes))
		data, bytes = unsafe.Pointer(&pad[0]), len(pad)
	}
	m, err := b.e.lib.CreateBufferFrom(b.e.ctx, cl.MemReadWrite, bytes, data) // the live traces' initial values are written later
	if err != nil {
		return 0, errGPU("upload table", fmt.Errorf("%d bytes on %s: %w", bytes, b.e.info, err))
	}
	b.mems = append(b.mems, m)
	return m, nil
}

func (b *gpuBase) complexTable(t []complex64) (cl.Mem, error) {
	return b.table(unsafe.Pointer(&t[0]), 8*len(t))
}

// kernel builds source with defines and returns its kernel spec.Name,
// with args set in order (cl.Mem, int32, int64 or float32 values): one
// for each of the kernel's parameters, or it panics.
func (b *gpuBase) kernel(source string, defines []string, spec kernels.Kernel, args ...any) (cl.Kernel, error) {
	if len(args) != spec.Params {
		panic(fmt.Sprintf("gpufft: %s takes %d arguments, given %d", spec.Name, spec.Params, len(args)))
	}
	name := spec.Name
	prog, err := b.e.program(source, defines)
	if err != nil {
		return 0, err
	}
	k, err := b.e.lib.CreateKernel(prog, name)
	if err != nil {
		return 0, fmt.Errorf("gpufft: %w", err)
	}
	b.kernels = append(b.kernels, k)
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case cl.Mem:
			err = b.e.lib.SetArg(nil, k, i, unsafe.Sizeof(v), unsafe.Pointer(&v))
		case int32:
			err = b.e.lib.SetArg(nil, k, i, 4, unsafe.Pointer(&v))
		case int64:
			err = b.e.lib.SetArg(nil, k, i, 8, unsafe.Pointer(&v))
		case float32:
			err = b.e.lib.SetArg(nil, k, i, 4, unsafe.Pointer(&v))
		default:
			panic(fmt.Sprintf("gpufft: kernel arg %d of type %T", i, a))
		}
		if err != nil {
			return 0, fmt.Errorf("gpufft: %s arg %d: %w", name, i, err)
		}
	}
	return k, nil
}

// release waits for the plan's queue, then releases its kernels and
// buffers. OpenCL lets a program release objects that queued commands
// still use (the runtime keeps them until the commands finish), but not
// every runtime honours it (TVM's OpenCL runtime finishes first for the
// same reason), and a plan's Close is rare: waiting costs nothing.
func (b *gpuBase) release() {
	if b.closed {
		return
	}
	b.closed = true
	b.e.lib.Finish(&b.args, b.e.queue) // an error no longer matters: the objects go
	for i := len(b.kernels) - 1; i >= 0; i-- {
		b.e.lib.ReleaseKernel(b.kernels[i])
	}
	for i := len(b.mems) - 1; i >= 0; i-- {
		b.e.lib.ReleaseMem(b.mems[i])
	}
	b.kernels, b.mems = nil, nil
}

// launch is one kernel launch whose global size follows the call's count.
// All fields are read in the hot path from the heap, so enqueueing does not
// allocate.
type launch struct {
	k      cl.Kernel
	groups bool // global = ceil(units/s) groups of wg; else units rounded up to wg
	s      int
	// maxGroups > 0 caps the groups (a kernel that loops over its
	// sequences, PERSIST in fft_batch.cl)
	maxGroups int
	wg        uintptr
	global    uintptr
	perUnit   int // units per call item (sequences or elements)
	intArg    int // index of an int32 argument set per call to items·intMul, or -1
	intMul    int
	intVal    int32
	longArg   int // index of an int64 argument set per call to longVal, or -1
	longVal   int64
	args      cl.Args
	ev        *cl.Event // nil, or where the launch's event goes (profiling: BenchmarkKernelEvents)
}

func (l *launch) enqueue(e *OpenCL, items int) error {
	units := items * l.perUnit
	if l.groups {
		groups := (units + l.s - 1) / l.s
		if l.maxGroups > 0 {
			groups = min(groups, l.maxGroups)
		}
		l.global = uintptr(groups) * l.wg
	} else {
		l.global = uintptr((units + int(l.wg) - 1) / int(l.wg) * int(l.wg))
	}
	if l.intArg >= 0 {
		l.intVal = int32(items * l.intMul)
		if err := e.lib.SetArg(&l.args, l.k, l.intArg, 4, unsafe.Pointer(&l.intVal)); err != nil {
			return err
		}
	}
	if l.longArg >= 0 {
		if err := e.lib.SetArg(&l.args, l.k, l.longArg, 8, unsafe.Pointer(&l.longVal)); err != nil {
			return err
		}
	}
	return e.lib.Enqueue(&l.args, e.queue, l.k, &l.global, &l.wg, l.ev)
}

// batchKernel builds one of fft_batch.cl's single-pass kernels.
func (b *gpuBase) batchKernel(g geom, extra []string, spec kernels.Kernel, args ...any) (launch, error) {
	name := spec.Name
	defs := append(append(g.defines(), extra...), b.e.storeDefines(g, name)...)
	maxGroups := 0
	if k := b.e.persistGroups(g, name); k > 0 {
		defs = append(defs, "PERSIST=1")
		maxGroups = k * max(1, b.e.info.ComputeUnits)
	}
	k, err := b.kernel(kernels.Batch, append(defs, b.e.tune...), spec, args...)
	if err != nil {
		return launch{}, err
	}
	return launch{k: k, groups: true, s: g.s, wg: uintptr(g.wg()), maxGroups: maxGroups, perUnit: 1, intArg: -1, intMul: 1, longArg: -1}, nil
}

// persistGroups is the number of work-groups per compute unit a C2C, R2C
// or C2R kernel (name) of geometry g is launched with when it loops over
// its sequences (PERSIST in fft_batch.cl, where the numbers are); 0: one
// group per S sequences. On GPUs the R2C kernel of 8192 complex points
// that keeps one component in local memory at a time (16384 real: radix
// 32, one 256-item group per SM by its registers and 34 KB of local
// memory; PRISM_OPENCL_R2C_HALVES=0) loops in one group per compute unit;
// in halves (r2cGeom, the default there) it does not loop.
// Tuning.Persist=k sets k for every C2C, R2C and C2R kernel (0: none).
func (e *OpenCL) persistGroups(g geom, name string) int {
	if k := e.tuning.Persist; k != nil {
		if name == "spectrogram" {
			return 0
		}
		return *k
	}
	if name == "fft_r2c" && g.len == 8192 && e.info.Type == "GPU" && !g.halvesPaired {
		return 1
	}
	return 0
}

// r2cGeom is the geometry of a real plan's forward kernel (fft_r2c) where
// the plan's transforms of g.len complex points go single-pass: g, or, for
// 8192 points on a GPU whose local memory holds one component of them at a
// time (SPLIT), one that exchanges in halves instead, its last stage still
// paired (HALVES_PAIRED in fft_common.cl): half the local memory per group
// (R2C 16384: 16.5 KB against 33), so that two groups fit a compute
// unit's shared memory beside each other, without the loop
// (persistGroups): faster on the H200 (docs/gpufft-experiments.md).
// Tuning.R2CHalves forces it for every such geometry.
func (e *OpenCL) r2cGeom(g geom) geom {
	on := e.tuning.R2CHalves.or(e.info.Type == "GPU" && g.len == 8192)
	if !on || !g.split || g.s != 1 {
		return g
	}
	h := g
	h.split, h.halves, h.halvesPaired = false, true, true
	if !h.paired() {
		return g
	}
	return h
}

// storeDefines are the defines that choose how a single-pass kernel
// (name, geometry g) stores its output (fft_batch.cl): NV_PTX on NVIDIA's
// platform (inline PTX allowed) and, for R2C in halves (32768 real
// points), STHINT=1: evict-first stores, which take effect on NVIDIA
// only (H200: 0.250 -> 0.242 ms). STAGE_ST (one row's stores staged
// through local memory) measured slower and stays off. The numbers are in
// docs/gpufft-experiments.md. Tuning.StageStores and Tuning.StoreHint
// force either for every kernel.
func (e *OpenCL) storeDefines(g geom, name string) []string {
	defs := e.ptxDefine()
	stage := e.tuning.StageStores.or(false)
	hint := e.tuning.StoreHint.or(name == "fft_r2c" && g.halves && !g.halvesPaired) // R2C 32768's rule
	return append(defs, "STAGE_ST="+b01(stage), "STHINT="+b01(hint))
}

// ptxDefine is NV_PTX=1 on NVIDIA's platform, whose compiler takes inline
// PTX (the cache hints of fft_common.cl's ld_hint and st_hint), else none.
func (e *OpenCL) ptxDefine() []string {
	if strings.Contains(e.info.Platform, "NVIDIA") {
		return []string{"NV_PTX=1"}
	}
	return nil
}

// passDefines are the defines that choose how a four-step pass (pass 1:
// the one with the four-step twiddle, of length n) orders its groups and
// stores (fft_passes.cl) where plain (the passes read complex input and
// write no spectrogram: C2C, R2C): on GPUs pass 2 takes its groups in
// reverse order (P2_REV: it starts on the items pass 1 wrote last, some of
// them still in L2), and on NVIDIA's platform pass 1 of 256 or 512 points
// stores evict-first (P1_ST=1; at 128 and 1024 it measured slower). The
// numbers are in docs/gpufft-experiments.md. Tuning.Pass1Hint and
// Tuning.Pass2Reverse force either for every pass of every plan.
func (e *OpenCL) passDefines(pass1 bool, n int, plain bool) []string {
	if pass1 {
		st := e.tuning.Pass1Hint.or(plain && (n == 256 || n == 512) && len(e.ptxDefine()) > 0)
		return []string{"P1_ST=" + b01(st)}
	}
	rev := e.tuning.Pass2Reverse.or(plain && e.info.Type == "GPU")
	return []string{"P2_REV=" + b01(rev)}
}

// elemKernel builds one of fft_passes.cl's one-item-per-element kernels.
func (b *gpuBase) elemKernel(length int, extra []string, spec kernels.Kernel, perUnit int, args ...any) (launch, error) {
	defs := append(geom{len: length, radix: 2, s: 1}.defines(), extra...)
	k, err := b.kernel(kernels.Passes, defs, spec, args...)
	if err != nil {
		return launch{}, err
	}
	return launch{k: k, groups: false, wg: 256, perUnit: perUnit, intArg: -1, intMul: 1, longArg: -1}, nil
}

// passIO says what the two four-step passes read and write besides complex
// sequences (IN_MODE / OUT_MODE in fft_passes.cl) and the buffers and
// defines that needs. The zero value is a plain complex transform.
type passIO struct {
	in, out    int      // IN_MODE (0 complex, 1 spectrogram frames, 2 C2R half spectra), OUT_MODE (0 complex, 1 R2C bins, 2 spectrogram output)
	defs       []string // extra defines for both passes (the spectrogram's)
	aux1, aux2 cl.Mem   // aux of pass 1 (window pairs or W_2n) and of pass 2 (W_2n)
	gain       cl.Mem
	hop        int32 // IN_MODE 1
}

// fourStep builds the two passes of an n-point complex transform from src
// to dst through tmp, for whole items of n points. conjIn/conjOut with
// scale make it an inverse (see fft_passes.cl); io folds a real transform's
// pre- or post-processing into the passes (fourStepPaired says when pass 2
// can do the split).
func (b *gpuBase) fourStep(n int, src, tmp, dst cl.Mem, conjIn, conjOut bool, scale float32, io passIO) ([]launch, error) {
	e := b.e
	smallA := io.out != 0 || e.tuning.SmallFirstPass
	A, B := fourStepSplit(n, smallA)
	// W_n^i for i < n, then the two-level tables pass 1 reads
	// (fft_passes.cl): W_n^j for j < lo and W_n^(lo·h) for h < n/lo.
	lo := 1 << (bitsLen(n) / 2) // 2^⌈log2(n)/2⌉
	tw := twiddles(n)
	for j := range lo {
		tw = append(tw, tw[j])
	}
	for h := range n / lo {
		tw = append(tw, tw[h*lo])
	}
	tw4, err := b.complexTable(tw)
	if err != nil {
		return nil, err
	}
	dummy := tw4 // for arguments a mode does not read
	orDummy := func(m cl.Mem) cl.Mem {
		if m == 0 {
			return dummy
		}
		return m
	}
	plain := io.in == 0 && io.out != 2 // complex input, no spectrogram output (passDefines)
	mk := func(length, seqs, ssIn, esIn, ssOut, esOut int, loadSeq, twiddle4, cin, cout bool, inMode, outMode int, in, out, aux cl.Mem) (launch, error) {
		g := e.passGeom(length, outMode != 0)
		// pass 1 slot-fastest (SLOT_FAST): registers straight to global
		// memory, never slower (docs/gpufft-experiments.md)
		slot := ssIn == 1 && ssOut == 1 && outMode == 0 && !e.tuning.StagedPass1
		g.s = min(g.s, seqs) // a group's sequences belong to one item
		if seqs%g.s != 0 || (outMode != 0 && g.s < 2) {
			return launch{}, fmt.Errorf("%w: four-step pass of %d×%d", ErrInvalid, length, seqs)
		}
		tws, err := b.complexTable(g.stageTable())
		if err != nil {
			return launch{}, err
		}
		defs := append(g.defines(), "KERNEL_PASS", "NTOT="+strconv.Itoa(n), "SEQS="+strconv.Itoa(seqs),
			"SS_IN="+strconv.Itoa(ssIn), "ES_IN="+strconv.Itoa(esIn), "SS_OUT="+strconv.Itoa(ssOut), "ES_OUT="+strconv.Itoa(esOut),
			"LOAD_SEQ_FAST="+b01(loadSeq), "TWIDDLE4="+b01(twiddle4),
			"CONJ_IN="+b01(cin), "CONJ_OUT="+b01(cout), "IN_MODE="+strconv.Itoa(inMode), "OUT_MODE="+strconv.Itoa(outMode),
			"SPLIT_LEN="+strconv.Itoa(n), "SSTRIDE="+strconv.Itoa(g.passStride()), "SLOT_FAST="+b01(slot))
		defs = append(append(defs, io.defs...), "TWLOG="+strconv.Itoa(bitsLen(lo)-1))
		defs = append(append(append(defs, e.ptxDefine()...), e.passDefines(twiddle4, length, plain)...), e.tune...)
		k, err := b.kernel(kernels.Passes, defs, kernels.FFTPass.Kernel, in, out, tws, tw4, scale, orDummy(aux), orDummy(io.gain),
			int64(0), io.hop, int32(0))
		if err != nil {
			return launch{}, err
		}
		return launch{k: k, groups: true, s: g.s, wg: uintptr(g.wg()), perUnit: seqs, intArg: -1, intMul: 1, longArg: -1}, nil
	}
	// pass 1: B-point transforms of x[a + A·b] for each a; y[a + A·c] · W^(ac)
	p1, err := mk(B, A, 1, A, 1, A, true, true, conjIn, false, io.in, 0, src, tmp, io.aux1)
	if err != nil {
		return nil, err
	}
	// pass 2: A-point transforms of y[a + A·c] for each c; X[c + B·d]
	p2, err := mk(A, B, A, 1, 1, B, false, false, false, conjOut, 0, io.out, tmp, dst, io.aux2)
	if err != nil {
		return nil, err
	}
	return []launch{p1, p2}, nil
}

// fourStepPaired reports whether pass 2 of an n-point four-step transform
// holds a sequence and its mirror in one group, so the real split folds
// into it (two or more sequences per group).
func (e *OpenCL) fourStepPaired(n int) bool {
	a, b := fourStepSplit(n, true)
	return min(e.passGeom(a, true).s, b) >= 2
}

func runLaunches(e *OpenCL, ls []launch, items int) error {
	for i := range ls {
		if err := ls[i].enqueue(e, items); err != nil {
			return err
		}
	}
	return nil
}

// ---- complex plan

type gpuComplex struct {
	gpuBase
	size, batch int
	in, out     cl.Mem
	fwd, inv    []launch
}

// NewComplex implements Engine.
func (e *OpenCL) NewComplex(size, batch int) (ComplexPlan, error) {
	if err := checkPlan(size, batch); err != nil {
		return nil, err
	}
	if err := e.alive(); err != nil {
		return nil, err
	}
	p := &gpuComplex{gpuBase: gpuBase{e: e}, size: size, batch: batch}
	if err := p.init(); err != nil {
		p.release()
		return nil, err
	}
	if err := e.track(p); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}

func (p *gpuComplex) init() error {
	e, n := p.e, p.size
	var err error
	bytes := p.batch * n * 8
	if p.in, err = p.buffer(bytes); err != nil {
		return err
	}
	if p.out, err = p.buffer(bytes); err != nil {
		return err
	}
	if g, ok := e.planGeom(n); ok {
		tws, err := p.complexTable(g.stageTable())
		if err != nil {
			return err
		}
		for _, inverse := range []bool{false, true} {
			l, err := p.batchKernel(g, []string{"KERNEL_C2C", "INVERSE=" + b01(inverse)}, kernels.FFTC2C.Kernel, p.in, p.out, tws, int32(0))
			if err != nil {
				return err
			}
			l.intArg = kernels.FFTC2C.Count
			if inverse {
				p.inv = []launch{l}
			} else {
				p.fwd = []launch{l}
			}
		}
		return nil
	}
	if !e.fourStepOK(n) {
		return fmt.Errorf("%w: size %d does not fit this device's work-groups", ErrInvalid, n)
	}
	tmp, err := p.buffer(bytes)
	if err != nil {
		return err
	}
	if p.fwd, err = p.fourStep(n, p.in, tmp, p.out, false, false, 1, passIO{}); err != nil {
		return err
	}
	p.inv, err = p.fourStep(n, p.in, tmp, p.out, true, true, 1/float32(n), passIO{})
	return err
}

func (p *gpuComplex) Size() int  { return p.size }
func (p *gpuComplex) Batch() int { return p.batch }

func (p *gpuComplex) Forward(dst, src []complex64) error { return p.do(dst, src, p.fwd) }
func (p *gpuComplex) Inverse(dst, src []complex64) error { return p.do(dst, src, p.inv) }

func (p *gpuComplex) do(dst, src []complex64, ls []launch) error {
	n := transforms(len(src), p.size, p.batch, "complex")
	if len(dst) != len(src) {
		panic(fmt.Sprintf("gpufft: complex: len(dst) %d != len(src) %d", len(dst), len(src)))
	}
	if p.closed {
		return ErrClosed
	}
	lib, q := p.e.lib, p.e.queue
	if err := lib.Write(&p.args, q, p.in, true, 0, 8*len(src), unsafe.Pointer(&src[0])); err != nil {
		return errGPU("upload", err)
	}
	if err := p.resident(ls, n); err != nil {
		return err
	}
	if err := lib.Read(&p.args, q, p.out, 0, 8*len(dst), unsafe.Pointer(&dst[0])); err != nil {
		return errGPU("download", err)
	}
	return nil
}

func (p *gpuComplex) resident(ls []launch, n int) error {
	if err := runLaunches(p.e, ls, n); err != nil {
		p.e.lib.Finish(&p.args, p.e.queue)
		return errGPU("launch", err)
	}
	return nil
}

func (p *gpuComplex) Close() error {
	if !p.closed {
		p.release()
		p.e.untrack(p)
	}
	return nil
}

// ---- real plan

type gpuReal struct {
	gpuBase
	size, batch int
	rbuf, cbuf  cl.Mem // real frames, half spectra
	fwd, inv    []launch
}

// NewReal implements Engine.
func (e *OpenCL) NewReal(size, batch int) (RealPlan, error) {
	if err := checkPlan(size, batch); err != nil {
		return nil, err
	}
	if err := e.alive(); err != nil {
		return nil, err
	}
	p := &gpuReal{gpuBase: gpuBase{e: e}, size: size, batch: batch}
	if err := p.init(); err != nil {
		p.release()
		return nil, err
	}
	if err := e.track(p); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}

func (p *gpuReal) init() error {
	e, n, m := p.e, p.size, p.size/2
	var err error
	if p.rbuf, err = p.buffer(p.batch * n * 4); err != nil {
		return err
	}
	if p.cbuf, err = p.buffer(p.batch * (m + 1) * 8); err != nil {
		return err
	}
	twN, err := p.complexTable(twiddles(n)[:n/2+1])
	if err != nil {
		return err
	}
	if g, ok := e.planGeom(m); ok {
		tws, err := p.complexTable(g.stageTable())
		if err != nil {
			return err
		}
		fg := e.r2cGeom(g)
		f, err := p.batchKernel(fg, append([]string{"KERNEL_R2C"}, fg.pairedDefine()...), kernels.FFTR2C.Kernel, p.rbuf, p.cbuf, tws, twN, int32(0))
		if err != nil {
			return err
		}
		i, err := p.batchKernel(g, []string{"KERNEL_C2R"}, kernels.FFTC2R.Kernel, p.cbuf, p.rbuf, tws, twN, int32(0))
		if err != nil {
			return err
		}
		f.intArg, i.intArg = kernels.FFTR2C.Count, kernels.FFTC2R.Count
		p.fwd, p.inv = []launch{f}, []launch{i}
		return nil
	}
	if !e.fourStepOK(m) {
		return fmt.Errorf("%w: size %d does not fit this device's work-groups", ErrInvalid, n)
	}
	tmp, err := p.buffer(p.batch * m * 8)
	if err != nil {
		return err
	}
	// C2R: pass 1 forms the packed spectrum from the bins as it loads them.
	if p.inv, err = p.fourStep(m, p.cbuf, tmp, p.rbuf, false, true, 1/float32(m), passIO{in: 2, aux1: twN}); err != nil {
		return err
	}
	if e.fourStepPaired(m) {
		// R2C: pass 2 does the split as it stores.
		p.fwd, err = p.fourStep(m, p.rbuf, tmp, p.cbuf, false, false, 1, passIO{out: 1, aux2: twN})
		return err
	}
	tmp2, err := p.buffer(p.batch * m * 8)
	if err != nil {
		return err
	}
	fs, err := p.fourStep(m, p.rbuf, tmp, tmp2, false, false, 1, passIO{})
	if err != nil {
		return err
	}
	post, err := p.elemKernel(m, []string{"KERNEL_R2C_POST"}, kernels.R2CPost.Kernel, m+1, tmp2, p.cbuf, twN, int32(0))
	if err != nil {
		return err
	}
	post.intArg = kernels.R2CPost.Count
	p.fwd = append(fs, post)
	return nil
}

func (p *gpuReal) Size() int  { return p.size }
func (p *gpuReal) Batch() int { return p.batch }

func (p *gpuReal) Forward(dst []complex64, src []float32) error {
	n := transforms(len(src), p.size, p.batch, "real forward")
	if len(dst) != n*(p.size/2+1) {
		panic(fmt.Sprintf("gpufft: real forward: len(dst) %d, want %d", len(dst), n*(p.size/2+1)))
	}
	return p.do(p.rbuf, unsafe.Pointer(&src[0]), 4*len(src), p.cbuf, unsafe.Pointer(&dst[0]), 8*len(dst), p.fwd, n)
}

func (p *gpuReal) Inverse(dst []float32, src []complex64) error {
	n := transforms(len(dst), p.size, p.batch, "real inverse")
	if len(src) != n*(p.size/2+1) {
		panic(fmt.Sprintf("gpufft: real inverse: len(src) %d, want %d", len(src), n*(p.size/2+1)))
	}
	return p.do(p.cbuf, unsafe.Pointer(&src[0]), 8*len(src), p.rbuf, unsafe.Pointer(&dst[0]), 4*len(dst), p.inv, n)
}

func (p *gpuReal) do(in cl.Mem, src unsafe.Pointer, srcBytes int, out cl.Mem, dst unsafe.Pointer, dstBytes int, ls []launch, n int) error {
	if p.closed {
		return ErrClosed
	}
	lib, q := p.e.lib, p.e.queue
	if err := lib.Write(&p.args, q, in, true, 0, srcBytes, src); err != nil {
		return errGPU("upload", err)
	}
	if err := p.resident(ls, n); err != nil {
		return err
	}
	if err := lib.Read(&p.args, q, out, 0, dstBytes, dst); err != nil {
		return errGPU("download", err)
	}
	return nil
}

func (p *gpuReal) resident(ls []launch, n int) error {
	if err := runLaunches(p.e, ls, n); err != nil {
		p.e.lib.Finish(&p.args, p.e.queue)
		return errGPU("launch", err)
	}
	return nil
}

func (p *gpuReal) Close() error {
	if !p.closed {
		p.release()
		p.e.untrack(p)
	}
	return nil
}

// ---- spectrogram plan

type gpuSpectrogram struct {
	gpuBase
	cfg     SpectrogramConfig
	in, out cl.Mem
	ls      []launch
}

// NewSpectrogram implements Engine.
func (e *OpenCL) NewSpectrogram(cfg SpectrogramConfig) (SpectrogramPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := e.alive(); err != nil {
		return nil, err
	}
	if cfg.Output == PowerSum {
		return e.newPowerSum(cfg)
	}
	p := &gpuSpectrogram{gpuBase: gpuBase{e: e}, cfg: cfg}
	if err := p.init(); err != nil {
		p.release()
		return nil, err
	}
	if err := e.track(p); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}

func (p *gpuSpectrogram) init() error {
	t, err := p.tables()
	if err != nil {
		return err
	}
	m := p.cfg.Size / 2
	if g, ok := p.e.planGeom(m); ok {
		return p.initSinglePass(g, t)
	}
	if !p.e.fourStepOK(m) {
		return fmt.Errorf("%w: size %d does not fit this device's work-groups", ErrInvalid, p.cfg.Size)
	}
	return p.initFourStep(t)
}

// spectrogramTables are what every layout of a spectrogram plan binds:
// the split's twiddles, the window and its scale, the bins' gains, and
// the defines of the configuration.
type spectrogramTables struct {
	twN, win, gain cl.Mem
	scale          float32
	defs           []string
}

// tables makes the sample and output buffers and the tables.
func (p *gpuSpectrogram) tables() (spectrogramTables, error) {
	cfg, n := p.cfg, p.cfg.Size
	var t spectrogramTables
	var err error
	if p.in, err = p.buffer(cfg.Channels * cfg.MaxSamples * 4); err != nil {
		return t, err
	}
	if p.out, err = p.buffer(cfg.DstLen(cfg.MaxSamples) * 4); err != nil {
		return t, err
	}
	if t.twN, err = p.complexTable(twiddles(n)[:n/2+1]); err != nil {
		return t, err
	}
	win, scale := windowTable(cfg.Window, n)
	if t.win, err = p.table(unsafe.Pointer(&win[0]), 4*n); err != nil {
		return t, err
	}
	t.scale = scale
	t.defs = []string{"CHANNELS=" + strconv.Itoa(cfg.Channels), "MIX=" + b01(cfg.Mix), "OUTPUT=" + strconv.Itoa(int(cfg.Output)),
		"BINGAIN=" + b01(cfg.BinGain != nil)}
	gains := cfg.BinGain
	if gains == nil {
		gains = []float32{1} // the kernels take the buffer either way
	}
	t.gain, err = p.table(unsafe.Pointer(&gains[0]), 4*len(gains))
	return t, err
}

// initSinglePass is the one-launch layout: frames read from the samples,
// windowed, transformed and split in one work-group each.
func (p *gpuSpectrogram) initSinglePass(g geom, t spectrogramTables) error {
	e, cfg := p.e, p.cfg
	tws, err := p.complexTable(g.stageTable())
	if err != nil {
		return err
	}
	fpg := e.framesPerGroup()
	extra := append(append(t.defs, "KERNEL_SPECTROGRAM", "FPG="+strconv.Itoa(fpg)), g.pairedDefine()...)
	l, err := p.batchKernel(g, append(extra, e.padBaseDefine()...), kernels.Spectrogram.Kernel,
		p.in, p.out, tws, t.twN, t.win, int64(0), int32(cfg.Hop), int32(0), t.scale, t.gain)
	if err != nil {
		return err
	}
	l.s *= fpg
	l.longArg, l.intArg, l.perUnit = kernels.Spectrogram.ChanStride, kernels.Spectrogram.Frames, cfg.OutChannels()
	p.ls = []launch{l}
	return nil
}

// initFourStep is the layout of sizes past one work-group: the four-step
// passes, paired (pass 1 frames and windows, pass 2 splits) or with
// element kernels around them.
func (p *gpuSpectrogram) initFourStep(t spectrogramTables) error {
	e, cfg := p.e, p.cfg
	m, outCh := cfg.Size/2, cfg.OutChannels()
	frames := cfg.Frames(cfg.MaxSamples) * outCh
	tmp, err := p.buffer(frames * m * 8)
	if err != nil {
		return err
	}
	if e.fourStepPaired(m) {
		fs, err := p.fourStep(m, p.in, tmp, p.out, false, false, t.scale,
			passIO{in: 1, out: 2, defs: t.defs, aux1: t.win, aux2: t.twN, gain: t.gain, hop: int32(cfg.Hop)})
		if err != nil {
			return err
		}
		for i := range fs {
			fs[i].perUnit *= outCh
			fs[i].longArg, fs[i].intArg = kernels.FFTPass.ChanStride, kernels.FFTPass.Frames
		}
		p.ls = fs
		return nil
	}
	tmp2, err := p.buffer(frames * m * 8)
	if err != nil {
		return err
	}
	fr, err := p.elemKernel(m, append(t.defs, "KERNEL_FRAMES"), kernels.Frames.Kernel, outCh*m, p.in, tmp, t.win, int64(0), int32(cfg.Hop), int32(0))
	if err != nil {
		return err
	}
	fr.longArg, fr.intArg = kernels.Frames.ChanStride, kernels.Frames.Frames
	fs, err := p.fourStep(m, tmp, tmp2, tmp, false, false, 1, passIO{})
	if err != nil {
		return err
	}
	for i := range fs {
		fs[i].perUnit *= outCh
	}
	post, err := p.elemKernel(m, append(t.defs, "KERNEL_SPEC_POST"), kernels.SpecPost.Kernel, outCh*(m+1), tmp, p.out, t.twN, int32(0), t.scale, t.gain)
	if err != nil {
		return err
	}
	post.intArg, post.intMul = kernels.SpecPost.Count, outCh // spec_post counts sequences
	p.ls = append(append([]launch{fr}, fs...), post)
	return nil
}

func (p *gpuSpectrogram) Config() SpectrogramConfig { return p.cfg }

func (p *gpuSpectrogram) Execute(dst, src []float32) (int, error) {
	samples, frames := p.cfg.spectrogramCall(dst, src)
	if frames == 0 {
		return 0, nil
	}
	if p.closed {
		return 0, ErrClosed
	}
	lib, q := p.e.lib, p.e.queue
	if err := lib.Write(&p.args, q, p.in, true, 0, 4*len(src), unsafe.Pointer(&src[0])); err != nil {
		return 0, errGPU("upload", err)
	}
	if err := p.resident(samples, frames); err != nil {
		return 0, err
	}
	if err := lib.Read(&p.args, q, p.out, 0, 4*p.cfg.DstLen(samples), unsafe.Pointer(&dst[0])); err != nil {
		return 0, errGPU("download", err)
	}
	return frames, nil
}

// framesPerGroup is how many overlapping frames one work-group of the
// single-pass spectrogram does in turn (FPG in fft_batch.cl): one, unless
// Tuning.FramesPerGroup says otherwise. Since the exchanges went float2
// the frame loop loses on every device measured (docs/gpufft-experiments.md).
func (e *OpenCL) framesPerGroup() int {
	if v := e.tuning.FramesPerGroup; v != 0 {
		return v
	}
	return 1
}

// padBaseDefine turns the spectrogram kernel's PAD_BASE (fft_common.cl,
// on by default: the exchanges' positions as constant offsets) off on CPU
// devices, unless Tuning.Defines sets it: slower on PoCL at 4096/1024
// (docs/gpufft-experiments.md).
func (e *OpenCL) padBaseDefine() []string {
	if e.info.Type != "CPU" {
		return nil
	}
	for _, d := range e.tune {
		if strings.HasPrefix(d, "PAD_BASE=") {
			return nil
		}
	}
	return []string{"PAD_BASE=0"}
}

// resident enqueues the plan's kernels on data already in the input buffer.
func (p *gpuSpectrogram) resident(samples, frames int) error {
	for i := range p.ls {
		p.ls[i].longVal = int64(samples)
	}
	if err := runLaunches(p.e, p.ls, frames); err != nil {
		p.e.lib.Finish(&p.args, p.e.queue)
		return errGPU("launch", err)
	}
	return nil
}

func (p *gpuSpectrogram) Close() error {
	if !p.closed {
		p.release()
		p.e.untrack(p)
	}
	return nil
}
