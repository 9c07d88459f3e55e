package gpufft

import (
	"strconv"
	"sync"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
)

// gpuSpectralKernel is a spectral-kernel plan on OpenCL. Load uploads the
// blocks once; per group, Execute copies the frames' samples out of them
// on the device (spectral.cl's spectral_frames), runs the complex
// spectrogram plan's kernels on them and spectral_kernel on its output,
// all on one in-order queue, and reads back only the rows, every group's
// in one read.
type gpuSpectralKernel struct {
	gpuBase // the loaded blocks and the rows
	cfg     SpectralKernelConfig
	in, out cl.Mem
	groups  []*gpuSpectralGroup
	samples int
}

type gpuSpectralGroup struct {
	sp   *gpuSpectrogram
	copy launch // spectral_frames into sp.in
	prod launch // spectral_kernel from sp.out
	// per-call kernel arguments
	argStart, argNeed, argBase int32
}

// NewSpectralKernel makes a spectral-kernel plan on the OpenCL engine.
func (e *OpenCL) NewSpectralKernel(cfg SpectralKernelConfig) (SpectralKernelPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := e.alive(); err != nil {
		return nil, err
	}
	p := &gpuSpectralKernel{gpuBase: gpuBase{e: e}, cfg: cfg.clone()}
	if err := p.init(); err != nil {
		p.close()
		return nil, err
	}
	if err := e.track(p); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *gpuSpectralKernel) init() error {
	cfg := &p.cfg
	var err error
	if p.in, err = p.buffer(4 * cfg.Channels * cfg.MaxSamples); err != nil {
		return err
	}
	outLen := 0
	for _, g := range cfg.Groups {
		outLen += cfg.Channels * g.MaxFrames * g.Rows()
	}
	if p.out, err = p.buffer(4 * outLen); err != nil {
		return err
	}
	// The groups are made at once, each on a goroutine of its own: each
	// group's FFT size has programs of its own (a 48-bins-per-octave VQT
	// from 20 Hz at 48 kHz: 13 on an H200), and loading them one after another from
	// the program cache, or compiling them, was most of the plan's making.
	groups := make([]*gpuSpectralGroup, len(cfg.Groups))
	errs := make([]error, len(cfg.Groups))
	var wg sync.WaitGroup
	for i := range cfg.Groups {
		wg.Go(func() { groups[i], errs[i] = p.newGroup(&cfg.Groups[i]) })
	}
	wg.Wait()
	for _, g := range groups {
		if g != nil {
			p.groups = append(p.groups, g) // all of them, or close releases what was made
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// newGroup makes group g's spectrogram and kernels; on error it returns
// what it made so far, for close.
func (p *gpuSpectralKernel) newGroup(g *SpectralGroup) (*gpuSpectralGroup, error) {
	sp, err := p.e.NewSpectrogram(p.cfg.spectrogram(*g))
	if err != nil {
		return nil, err
	}
	gg := &gpuSpectralGroup{sp: sp.(*gpuSpectrogram)}
	b, rows := &gg.sp.gpuBase, g.Rows()
	first, err := b.table(unsafe.Pointer(&g.First[0]), 4*rows)
	if err != nil {
		return gg, err
	}
	offset, err := b.table(unsafe.Pointer(&g.Offset[0]), 4*(rows+1))
	if err != nil {
		return gg, err
	}
	re, im := g.Re, g.Im
	packed := g.packed()
	if packed != nil {
		re, im = packed, packed[:0]
	}
	if len(re) == 0 { // every row empty: the kernel takes the buffers either way
		re = []complex64{0}
	}
	if len(im) == 0 {
		im = []complex64{0}
	}
	wre, err := b.complexTable(re)
	if err != nil {
		return gg, err
	}
	wim, err := b.complexTable(im)
	if err != nil {
		return gg, err
	}
	defs := append(append(geom{len: 64, radix: 2, s: 1}.defines(), "OUTPUT="+strconv.Itoa(int(p.cfg.Output)),
		"PACKED="+b01(packed != nil)), b.e.tune...)
	k, err := b.kernel(kernels.Spectral, defs, kernels.SpectralFrames.Kernel, p.in, gg.sp.in, int64(0), int32(0), int32(0), int32(0))
	if err != nil {
		return gg, err
	}
	gg.copy = launch{k: k, wg: 256, perUnit: 1, intArg: kernels.SpectralFrames.Count, intMul: 1, longArg: kernels.SpectralFrames.Stride}
	k, err = b.kernel(kernels.Spectral, defs, kernels.SpectralKernel.Kernel,
		gg.sp.out, p.out, first, offset, wre, wim, int32(rows), int32(g.Size/2+1), int32(0), int32(0))
	if err != nil {
		return gg, err
	}
	gg.prod = launch{k: k, wg: 64, perUnit: rows, intArg: kernels.SpectralKernel.Count, intMul: rows, longArg: -1}
	return gg, nil
}

func (p *gpuSpectralKernel) Config() SpectralKernelConfig { return p.cfg }

func (p *gpuSpectralKernel) Load(src []float32) error {
	samples := p.cfg.loadCall(src)
	if p.closed {
		return ErrClosed
	}
	if err := p.e.lib.Write(&p.args, p.e.queue, p.in, true, 0, 4*len(src), unsafe.Pointer(&src[0])); err != nil {
		return errGPU("upload", err)
	}
	p.samples = samples
	return nil
}

func (p *gpuSpectralKernel) Execute(dst []float32, frames []SpectralFrames) error {
	p.cfg.executeCall(dst, frames, p.samples)
	if p.closed {
		return ErrClosed
	}
	base := 0
	for i, f := range frames {
		if f.Frames == 0 {
			continue
		}
		if err := p.group(i, f, base); err != nil {
			p.e.lib.Finish(&p.args, p.e.queue)
			return err
		}
		base += p.cfg.Channels * f.Frames * p.cfg.Groups[i].Rows()
	}
	if base == 0 {
		return nil
	}
	if err := p.e.lib.Read(&p.args, p.e.queue, p.out, 0, 4*base, unsafe.Pointer(&dst[0])); err != nil {
		return errGPU("download", err)
	}
	return nil
}

// group enqueues group i's frames f, its rows going to out at base.
func (p *gpuSpectralKernel) group(i int, f SpectralFrames, base int) error {
	g, e := p.groups[i], p.e
	need := p.cfg.Groups[i].samples(f.Frames)
	g.argStart, g.argNeed, g.argBase = int32(f.Start), int32(need), int32(base)
	g.copy.longVal = int64(p.samples)
	if err := e.lib.SetArg(&g.copy.args, g.copy.k, kernels.SpectralFrames.Start, 4, unsafe.Pointer(&g.argStart)); err != nil {
		return errGPU("frames", err)
	}
	if err := e.lib.SetArg(&g.copy.args, g.copy.k, kernels.SpectralFrames.Need, 4, unsafe.Pointer(&g.argNeed)); err != nil {
		return errGPU("frames", err)
	}
	if err := g.copy.enqueue(e, p.cfg.Channels*need); err != nil {
		return errGPU("frames", err)
	}
	if err := g.sp.resident(need, f.Frames); err != nil {
		return err
	}
	if err := e.lib.SetArg(&g.prod.args, g.prod.k, kernels.SpectralKernel.Base, 4, unsafe.Pointer(&g.argBase)); err != nil {
		return errGPU("spectral kernel", err)
	}
	if err := g.prod.enqueue(e, f.Frames*p.cfg.Channels); err != nil {
		return errGPU("spectral kernel", err)
	}
	return nil
}

// close releases the groups' plans and the plan's own buffers.
func (p *gpuSpectralKernel) close() {
	for i := len(p.groups) - 1; i >= 0; i-- {
		p.groups[i].sp.Close()
	}
	p.groups = nil
	p.release()
}

func (p *gpuSpectralKernel) Close() error {
	if !p.closed {
		p.close()
		p.e.untrack(p)
	}
	return nil
}
