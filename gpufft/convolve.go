package gpufft

import (
	"fmt"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
)

// ConvolvePlan filters with a fixed FIR by FFT convolution (overlap-save):
// each block of Size input samples is transformed, multiplied by the taps'
// spectrum and transformed back, and its last Step = Size − len(taps) + 1
// samples are the filter's output for the block's last Step inputs (earlier
// ones are wrapped around and dropped). On the GPU the multiply runs on the
// device between the two transforms.
type ConvolvePlan interface {
	Size() int
	Step() int
	Batch() int
	// Execute filters n = len(src)/Size blocks (1 ≤ n ≤ Batch, each the
	// Size samples ending where its output ends; consecutive blocks overlap
	// by len(taps)−1) and writes n·Step samples to dst. It does not allocate
	// and panics on lengths that break this contract.
	Execute(dst, src []float32) error
	Close() error
}

// convolveSpectrum returns the Size-point half spectrum of the taps, the
// response the blocks' spectra are multiplied by.
func convolveSpectrum(taps []float32, size int) []complex64 {
	x := make([]float32, size)
	copy(x, taps)
	r := newRFFT(size)
	a, b := make([]complex64, size/2), make([]complex64, size/2)
	h := make([]complex64, size/2+1)
	r.split(r.c.transform(asComplex(x), a, b), h)
	return h
}

func checkConvolve(taps []float32, size, batch int) error {
	if err := checkPlan(size, batch); err != nil {
		return err
	}
	if len(taps) < 1 || 2*len(taps) > size {
		return fmt.Errorf("%w: %d taps need an FFT size of at least %d (have %d)", ErrInvalid, len(taps), 2*len(taps), size)
	}
	return nil
}

// ---- CPU

type cpuConvolve struct {
	r     RealPlan
	h     []complex64
	size  int
	step  int
	batch int
	spec  []complex64
	out   []float32
}

// NewConvolver makes a convolution plan on the CPU engine.
func (e *CPU) NewConvolver(taps []float32, size, batch int) (ConvolvePlan, error) {
	if err := checkConvolve(taps, size, batch); err != nil {
		return nil, err
	}
	r, err := e.NewReal(size, batch)
	if err != nil {
		return nil, err
	}
	return &cpuConvolve{r: r, h: convolveSpectrum(taps, size), size: size, step: size - len(taps) + 1, batch: batch,
		spec: make([]complex64, batch*(size/2+1)), out: make([]float32, batch*size)}, nil
}

func (p *cpuConvolve) Size() int  { return p.size }
func (p *cpuConvolve) Step() int  { return p.step }
func (p *cpuConvolve) Batch() int { return p.batch }

func (p *cpuConvolve) Execute(dst, src []float32) error {
	n := convolveCall(dst, src, p.size, p.step, p.batch)
	bins := p.size/2 + 1
	spec := p.spec[:n*bins]
	if err := p.r.Forward(spec, src); err != nil {
		return err
	}
	for i := range spec {
		spec[i] = cmul(spec[i], p.h[i%bins])
	}
	out := p.out[:n*p.size]
	if err := p.r.Inverse(out, spec); err != nil {
		return err
	}
	for b := range n {
		copy(dst[b*p.step:(b+1)*p.step], out[(b+1)*p.size-p.step:(b+1)*p.size])
	}
	return nil
}

func (p *cpuConvolve) Close() error { return p.r.Close() }

func convolveCall(dst, src []float32, size, step, batch int) int {
	n := transforms(len(src), size, batch, "convolve")
	if len(dst) < n*step {
		panic(fmt.Sprintf("gpufft: convolve: len(dst) %d < %d", len(dst), n*step))
	}
	return n
}

// ---- OpenCL

type gpuConvolve struct {
	r    *gpuReal
	h    cl.Mem
	mul  launch
	step int
	out  []float32
}

// NewConvolver makes a convolution plan on the OpenCL engine.
func (e *OpenCL) NewConvolver(taps []float32, size, batch int) (ConvolvePlan, error) {
	if err := checkConvolve(taps, size, batch); err != nil {
		return nil, err
	}
	rp, err := e.NewReal(size, batch)
	if err != nil {
		return nil, err
	}
	p := &gpuConvolve{r: rp.(*gpuReal), step: size - len(taps) + 1, out: make([]float32, batch*size)}
	h := convolveSpectrum(taps, size)
	if p.h, err = p.r.complexTable(h); err != nil {
		rp.Close()
		return nil, err
	}
	if p.mul, err = p.r.elemKernel(size/2, []string{"KERNEL_SPEC_MUL"}, kernels.SpecMul.Kernel, size/2+1, p.r.cbuf, p.h, int32(0)); err != nil {
		rp.Close()
		return nil, err
	}
	p.mul.intArg = kernels.SpecMul.Count
	return p, nil
}

func (p *gpuConvolve) Size() int  { return p.r.size }
func (p *gpuConvolve) Step() int  { return p.step }
func (p *gpuConvolve) Batch() int { return p.r.batch }

func (p *gpuConvolve) Execute(dst, src []float32) error {
	r := p.r
	n := convolveCall(dst, src, r.size, p.step, r.batch)
	if r.closed {
		return ErrClosed
	}
	lib, q := r.e.lib, r.e.queue
	if err := lib.Write(&r.args, q, r.rbuf, true, 0, 4*len(src), unsafe.Pointer(&src[0])); err != nil {
		return errGPU("upload", err)
	}
	if err := r.resident(r.fwd, n); err != nil {
		return err
	}
	if err := p.mul.enqueue(r.e, n); err != nil {
		lib.Finish(&r.args, q)
		return errGPU("multiply", err)
	}
	if err := r.resident(r.inv, n); err != nil {
		return err
	}
	out := p.out[:n*r.size]
	if err := lib.Read(&r.args, q, r.rbuf, 0, 4*len(out), unsafe.Pointer(&out[0])); err != nil {
		return errGPU("download", err)
	}
	for b := range n {
		copy(dst[b*p.step:(b+1)*p.step], out[(b+1)*r.size-p.step:(b+1)*r.size])
	}
	return nil
}

func (p *gpuConvolve) Close() error { return p.r.Close() }
