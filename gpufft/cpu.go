package gpufft

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// CPU is the Go engine: the reference implementation of the contract and the
// fallback wherever OpenCL is missing or fails. Batches are split across a
// pool of worker goroutines (one per core by default); each worker owns its
// scratch buffers, sized when the plan is made, so Execute allocates nothing.
type CPU struct {
	workers int
	jobs    chan job
	closed  atomic.Bool
	once    sync.Once
}

// runner is a plan's per-chunk work: transforms [lo, hi) with scratch set w.
type runner interface{ run(w, lo, hi int) }

type job struct {
	r         runner
	w, lo, hi int
	wg        *sync.WaitGroup
}

// NewCPU starts a CPU engine with the given number of workers (≤ 0: one per
// core, GOMAXPROCS). Close stops them.
func NewCPU(workers int) *CPU {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	e := &CPU{workers: workers, jobs: make(chan job, workers)}
	for range workers - 1 {
		go func() {
			for j := range e.jobs {
				j.r.run(j.w, j.lo, j.hi)
				j.wg.Done()
			}
		}()
	}
	return e
}

func (e *CPU) Name() string { return "cpu" }

func (e *CPU) Device() string {
	return fmt.Sprintf("Go, %d workers (%s/%s)", e.workers, runtime.GOOS, runtime.GOARCH)
}

// Workers is the number of goroutines a batch is split across.
func (e *CPU) Workers() int { return e.workers }

// Close stops the workers. Plans made by e must not be used afterwards.
func (e *CPU) Close() error {
	e.once.Do(func() {
		e.closed.Store(true)
		close(e.jobs)
	})
	return nil
}

// parallel runs r over [0, n) in up to Workers chunks, the first on the
// calling goroutine, and waits.
func (e *CPU) parallel(r runner, n int, wg *sync.WaitGroup) error {
	if e.closed.Load() {
		return ErrClosed
	}
	chunks := min(e.workers, n)
	if chunks <= 1 {
		r.run(0, 0, n)
		return nil
	}
	wg.Add(chunks - 1)
	for c := 1; c < chunks; c++ {
		e.jobs <- job{r: r, w: c, lo: c * n / chunks, hi: (c + 1) * n / chunks, wg: wg}
	}
	r.run(0, 0, n/chunks)
	wg.Wait()
	return nil
}

// cpuPlanBase holds what every CPU plan has.
type cpuPlanBase struct {
	e      *CPU
	size   int
	batch  int
	wg     sync.WaitGroup
	closed bool
}

func (p *cpuPlanBase) Size() int  { return p.size }
func (p *cpuPlanBase) Batch() int { return p.batch }
func (p *cpuPlanBase) Close() error {
	p.closed = true
	return nil
}

func (p *cpuPlanBase) exec(r runner, n int) error {
	if p.closed {
		return ErrClosed
	}
	return p.e.parallel(r, n, &p.wg)
}

// scratch returns workers sets of k buffers of n complex values each.
func scratch(workers, k, n int) [][][]complex64 {
	s := make([][][]complex64, workers)
	for w := range s {
		s[w] = make([][]complex64, k)
		for i := range s[w] {
			s[w][i] = make([]complex64, n)
		}
	}
	return s
}

// ---- complex plan

type cpuComplex struct {
	cpuPlanBase
	f        *cfft
	work     [][][]complex64 // [worker]{a, b}
	src, dst []complex64
	inverse  bool
}

// NewComplex implements Engine.
func (e *CPU) NewComplex(size, batch int) (ComplexPlan, error) {
	if err := checkPlan(size, batch); err != nil {
		return nil, err
	}
	w := min(e.workers, batch)
	return &cpuComplex{
		cpuPlanBase: cpuPlanBase{e: e, size: size, batch: batch},
		f:           newCFFT(size),
		work:        scratch(w, 2, size),
	}, nil
}

func (p *cpuComplex) Forward(dst, src []complex64) error { return p.do(dst, src, false) }
func (p *cpuComplex) Inverse(dst, src []complex64) error { return p.do(dst, src, true) }

func (p *cpuComplex) do(dst, src []complex64, inverse bool) error {
	n := transforms(len(src), p.size, p.batch, "complex")
	if len(dst) != len(src) {
		panic(fmt.Sprintf("gpufft: complex: len(dst) %d != len(src) %d", len(dst), len(src)))
	}
	p.src, p.dst, p.inverse = src, dst, inverse
	err := p.exec(p, n)
	p.src, p.dst = nil, nil
	return err
}

func (p *cpuComplex) run(w, lo, hi int) {
	n := p.size
	a, b := p.work[w][0], p.work[w][1]
	scale := float32(1) / float32(n)
	for i := lo; i < hi; i++ {
		src, dst := p.src[i*n:(i+1)*n], p.dst[i*n:(i+1)*n]
		if !p.inverse {
			copy(dst, p.f.transform(src, a, b))
			continue
		}
		// Inverse by conjugation: x = conj(FFT(conj(X)))/n.
		for k, v := range src {
			b[k] = complex(real(v), -imag(v))
		}
		out := p.f.transform(b, a, b)
		for k, v := range out {
			dst[k] = complex(real(v)*scale, -imag(v)*scale)
		}
	}
}

// ---- real plan

type cpuReal struct {
	cpuPlanBase
	r       *rfft
	work    [][][]complex64
	rsrc    []float32
	csrc    []complex64
	rdst    []float32
	cdst    []complex64
	inverse bool
}

// NewReal implements Engine.
func (e *CPU) NewReal(size, batch int) (RealPlan, error) {
	if err := checkPlan(size, batch); err != nil {
		return nil, err
	}
	w := min(e.workers, batch)
	return &cpuReal{
		cpuPlanBase: cpuPlanBase{e: e, size: size, batch: batch},
		r:           newRFFT(size),
		work:        scratch(w, 2, size/2),
	}, nil
}

func (p *cpuReal) Forward(dst []complex64, src []float32) error {
	n := transforms(len(src), p.size, p.batch, "real forward")
	if len(dst) != n*(p.size/2+1) {
		panic(fmt.Sprintf("gpufft: real forward: len(dst) %d, want %d", len(dst), n*(p.size/2+1)))
	}
	p.rsrc, p.cdst, p.inverse = src, dst, false
	err := p.exec(p, n)
	p.rsrc, p.cdst = nil, nil
	return err
}

func (p *cpuReal) Inverse(dst []float32, src []complex64) error {
	n := transforms(len(dst), p.size, p.batch, "real inverse")
	if len(src) != n*(p.size/2+1) {
		panic(fmt.Sprintf("gpufft: real inverse: len(src) %d, want %d", len(src), n*(p.size/2+1)))
	}
	p.csrc, p.rdst, p.inverse = src, dst, true
	err := p.exec(p, n)
	p.csrc, p.rdst = nil, nil
	return err
}

func (p *cpuReal) run(w, lo, hi int) {
	n, m := p.size, p.size/2
	a, b := p.work[w][0], p.work[w][1]
	for i := lo; i < hi; i++ {
		if !p.inverse {
			z := p.r.c.transform(asComplex(p.rsrc[i*n:(i+1)*n]), a, b)
			p.r.split(z, p.cdst[i*(m+1):(i+1)*(m+1)])
			continue
		}
		p.r.unsplit(p.csrc[i*(m+1):(i+1)*(m+1)], b)
		z := p.r.c.transform(b, a, b)
		out := asComplex(p.rdst[i*n : (i+1)*n])
		scale := float32(1) / float32(m)
		for k, v := range z {
			out[k] = complex(real(v)*scale, -imag(v)*scale)
		}
	}
}

// ---- spectrogram plan

type cpuSpectrogram struct {
	cpuPlanBase
	cfg     SpectrogramConfig
	r       *rfft
	win     []float32
	win16   []float32 // win·2^−15, for 16-bit samples (int16Window)
	scale   float32
	work    [][][]complex64 // [worker]{a, b, bins}
	src     []float32
	src16   []int16 // ExecuteInt16's samples (one channel), else nil
	dst     []float32
	samples int
	frames  int
}

// NewSpectrogram implements Engine.
func (e *CPU) NewSpectrogram(cfg SpectrogramConfig) (SpectrogramPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Output == PowerSum {
		return e.newPowerSum(cfg)
	}
	cfg.BinGain = slices.Clone(cfg.BinGain) // plans are immutable
	win, scale := windowTable(cfg.Window, cfg.Size)
	maxFrames := cfg.Frames(cfg.MaxSamples) * cfg.OutChannels()
	w := min(e.workers, maxFrames)
	p := &cpuSpectrogram{
		cpuPlanBase: cpuPlanBase{e: e, size: cfg.Size, batch: maxFrames},
		cfg:         cfg,
		r:           newRFFT(cfg.Size),
		win:         win,
		win16:       int16Window(win),
		scale:       scale,
		work:        scratch(w, 2, cfg.Size/2),
	}
	for i := range p.work {
		p.work[i] = append(p.work[i], make([]complex64, cfg.Size/2+1))
	}
	return p, nil
}

func (p *cpuSpectrogram) Config() SpectrogramConfig { return p.cfg }

func (p *cpuSpectrogram) Execute(dst, src []float32) (int, error) {
	samples, frames := p.cfg.spectrogramCall(dst, src)
	if frames == 0 {
		return 0, nil
	}
	p.src, p.dst, p.samples, p.frames = src, dst, samples, frames
	err := p.exec(p, frames*p.cfg.OutChannels())
	p.src, p.dst = nil, nil
	return frames, err
}

// run does sequences [lo, hi): sequence s is output channel s/frames, frame
// s%frames, like the GPU kernel.
func (p *cpuSpectrogram) run(w, lo, hi int) {
	bins := p.cfg.Bins()
	for s := lo; s < hi; s++ {
		if p.cfg.Output == Complex {
			p.sequence(w, s, p.dst[2*s*bins:2*(s+1)*bins], overwrite)
		} else {
			p.sequence(w, s, p.dst[s*bins:(s+1)*bins], overwrite)
		}
	}
}

// sequence writes sequence s's output row (bins values, 2·bins for
// Complex) into out, with worker w's scratch; how, other than overwrite
// (power and gained power without BinGain only), keeps in out the maximum
// of it and the row or adds the row to it. p.src, p.samples and p.frames
// describe the call.
func (p *cpuSpectrogram) sequence(w, s int, out []float32, how combine) {
	cfg := &p.cfg
	n, m := cfg.Size, cfg.Size/2
	a, b, x := p.work[w][0], p.work[w][1], p.work[w][2]
	win := asComplex(p.win)
	inv := 1 / float32(cfg.Channels)
	f, c := s%p.frames, s/p.frames
	off := f * cfg.Hop
	// z[m] = (x[2m]·w[2m], x[2m+1]·w[2m+1]), x the channel or the mix;
	// the window is applied inside the first FFT stage (which converts
	// 16-bit samples too).
	var z []complex64
	switch {
	case p.src16 != nil: // ExecuteInt16: one channel
		z = p.r.c.transformWindowedInt16(p.src16[off:off+n], asComplex(p.win16), a, b)
	case cfg.Mix && cfg.Channels > 1:
		mix := b[:m]
		copy(mix, asComplex(p.src[off:off+n]))
		for ch := 1; ch < cfg.Channels; ch++ {
			for i, v := range asComplex(p.src[ch*p.samples+off : ch*p.samples+off+n]) {
				mix[i] += v
			}
		}
		for i, v := range mix {
			mix[i] = complex(real(v)*inv, imag(v)*inv)
		}
		z = p.r.c.transformWindowed(mix, win, a, b)
	default:
		z = p.r.c.transformWindowed(asComplex(p.src[c*p.samples+off:c*p.samples+off+n]), win, a, b)
	}
	switch cfg.Output {
	case Complex:
		p.r.split(z, x)
		copy(asComplex(out), x)
	case Power:
		p.r.splitPower(z, out, 1, 1, how)
		applyGain(out, cfg.BinGain)
	case gainedPower:
		p.r.splitPower(z, out, 2*p.scale, p.scale, how)
		applyGain(out, cfg.BinGain)
	default:
		if cfg.BinGain == nil {
			p.r.splitDB(z, out, 2*p.scale)
			break
		}
		p.r.splitPower(z, out, 2*p.scale, p.scale, overwrite)
		for k, v := range out {
			out[k] = binDB(v*cfg.BinGain[k], 1)
		}
	}
}

// applyGain multiplies powers by per-bin gains (BinGain), if any.
func applyGain(p, gain []float32) {
	if gain == nil {
		return
	}
	for k := range p {
		p[k] *= gain[k]
	}
}
