package gpufft

import (
	"strconv"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
)

// gpuSpectralKernel is a spectral-kernel plan on OpenCL: the complex
// spectrogram plan's kernels, then spectral.cl's spectral_kernel on its
// output buffer, on one in-order queue; per call the host uploads each
// channel's frames and reads back only the rows.
type gpuSpectralKernel struct {
	sp   *gpuSpectrogram
	cfg  SpectralKernelConfig
	out  cl.Mem
	prod launch
}

// NewSpectralKernel makes a spectral-kernel plan on the OpenCL engine.
func (e *OpenCL) NewSpectralKernel(cfg SpectralKernelConfig) (SpectralKernelPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.clone()
	sp, err := e.NewSpectrogram(cfg.spectrogram())
	if err != nil {
		return nil, err
	}
	p := &gpuSpectralKernel{sp: sp.(*gpuSpectrogram), cfg: cfg}
	if err := p.init(); err != nil {
		p.sp.Close()
		return nil, err
	}
	return p, nil
}

func (p *gpuSpectralKernel) init() error {
	b, cfg := &p.sp.gpuBase, &p.cfg
	rows := cfg.Rows()
	var err error
	if p.out, err = b.buffer(4 * cfg.Channels * cfg.MaxFrames * rows); err != nil {
		return err
	}
	first, err := b.table(unsafe.Pointer(&cfg.First[0]), 4*rows)
	if err != nil {
		return err
	}
	offset, err := b.table(unsafe.Pointer(&cfg.Offset[0]), 4*(rows+1))
	if err != nil {
		return err
	}
	re, im := cfg.Re, cfg.Im
	if len(re) == 0 { // every row empty: the kernel takes the buffers either way
		re, im = []complex64{0}, []complex64{0}
	}
	wre, err := b.complexTable(re)
	if err != nil {
		return err
	}
	wim, err := b.complexTable(im)
	if err != nil {
		return err
	}
	defs := append(geom{len: 64, radix: 2, s: 1}.defines(), "OUTPUT="+strconv.Itoa(int(cfg.Output)))
	k, err := b.kernel(kernels.Spectral, append(defs, b.e.tune...), kernels.SpectralKernel.Kernel,
		p.sp.out, p.out, first, offset, wre, wim, int32(rows), int32(cfg.Size/2+1), int32(0))
	if err != nil {
		return err
	}
	p.prod = launch{k: k, wg: 64, perUnit: rows, intArg: kernels.SpectralKernel.Count, intMul: rows, longArg: -1}
	return nil
}

func (p *gpuSpectralKernel) Config() SpectralKernelConfig { return p.cfg }

func (p *gpuSpectralKernel) Execute(dst, src []float32, start, frames int) error {
	samples := p.cfg.kernelCall(dst, src, start, frames)
	sp := p.sp
	if sp.closed {
		return ErrClosed
	}
	if frames == 0 {
		return nil
	}
	lib, q := sp.e.lib, sp.e.queue
	need := p.cfg.samples(frames)
	for c := range p.cfg.Channels {
		if err := lib.Write(&sp.args, q, sp.in, true, 4*c*need, 4*need, unsafe.Pointer(&src[c*samples+start])); err != nil {
			return errGPU("upload", err)
		}
	}
	if err := sp.resident(need, frames); err != nil {
		return err
	}
	seqs := frames * p.cfg.Channels
	if err := p.prod.enqueue(sp.e, seqs); err != nil {
		lib.Finish(&sp.args, q)
		return errGPU("spectral kernel", err)
	}
	n := seqs * p.cfg.Rows()
	if err := lib.Read(&sp.args, q, p.out, 0, 4*n, unsafe.Pointer(&dst[0])); err != nil {
		return errGPU("download", err)
	}
	return nil
}

func (p *gpuSpectralKernel) Close() error { return p.sp.Close() }
