package gpufft

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/internal/pages"
	"github.com/prismaudio/prism/kernels"
)

// ImageConfig maps a whole signal's spectrogram onto a pixel grid.
type ImageConfig struct {
	Columns     int // image width in pixels
	TotalFrames int // frames in the whole signal
	// RowLo and RowHi give, for each row (0 = the first row, whatever the
	// caller draws it as), the bins [RowLo[r], RowHi[r]) whose maximum it
	// shows; each range is at least one bin wide and within 0…N/2.
	RowLo, RowHi []int32
}

// Rows is len(RowLo).
func (c ImageConfig) Rows() int { return len(c.RowLo) }

// ColumnFrames returns the frames [lo, hi) column c shows: the maximum over
// all of them when frames outnumber columns, else the nearest frame.
func (c ImageConfig) ColumnFrames(col int) (lo, hi int) {
	lo = int(int64(col) * int64(c.TotalFrames) / int64(c.Columns))
	hi = max(lo+1, int(int64(col+1)*int64(c.TotalFrames)/int64(c.Columns)))
	return lo, hi
}

// columnRange returns the columns whose frames intersect [f0, f0+n).
func (c ImageConfig) columnRange(f0, n int) (first, last int) {
	first = int(int64(f0) * int64(c.Columns) / int64(c.TotalFrames))
	for first > 0 {
		if _, hi := c.ColumnFrames(first - 1); hi <= f0 {
			break
		}
		first--
	}
	last = first
	for last+1 < c.Columns {
		if lo, _ := c.ColumnFrames(last + 1); lo >= f0+n {
			break
		}
		last++
	}
	return first, last
}

func (c ImageConfig) check(bins int) error {
	switch {
	case c.Columns < 1 || c.Columns > 1<<16:
		return fmt.Errorf("%w: image of %d columns", ErrInvalid, c.Columns)
	case c.TotalFrames < 1:
		return fmt.Errorf("%w: image of %d frames", ErrInvalid, c.TotalFrames)
	case len(c.RowLo) < 1 || len(c.RowLo) > 1<<16 || len(c.RowHi) != len(c.RowLo):
		return fmt.Errorf("%w: image rows %d/%d", ErrInvalid, len(c.RowLo), len(c.RowHi))
	}
	for r := range c.RowLo {
		if c.RowLo[r] < 0 || c.RowHi[r] <= c.RowLo[r] || int(c.RowHi[r]) > bins {
			return fmt.Errorf("%w: image row %d maps bins [%d, %d) of %d", ErrInvalid, r, c.RowLo[r], c.RowHi[r], bins)
		}
	}
	return nil
}

// ImagePlan analyzes a signal batch by batch and folds every frame into a
// spectrogram image by maximum, on the engine (the GPU when used), so only
// the finished image crosses back to the host.
type ImagePlan interface {
	// Add analyzes src as SpectrogramPlan.Execute does (Output must be
	// DBFS, one output channel), numbering its frames from firstFrame, and
	// folds them into the image. It returns the number of frames.
	Add(src []float32, firstFrame int) (int, error)
	// Image copies the image into dst (Columns×Rows dBFS values, column
	// after column: dst[c·Rows + r]); pixels no frame reached read FloorDB.
	Image(dst []float32) error
	Close() error
}

// checkImage validates an image plan and returns the spectrogram config
// its frames are computed with (gained power: see Output).
func checkImage(cfg SpectrogramConfig, img ImageConfig) (SpectrogramConfig, error) {
	if err := cfg.check(); err != nil {
		return cfg, err
	}
	if cfg.Output != DBFS || cfg.OutChannels() != 1 {
		return cfg, fmt.Errorf("%w: image plans take dBFS output of one channel (or the mix)", ErrInvalid)
	}
	cfg.Output = gainedPower
	return cfg, img.check(cfg.Bins())
}

// powerToDB turns an image of gained power into dBFS in place, as the
// spectrogram's dB output does; a large image on every core (a 1920×1080
// one took 10 ms on one).
func powerToDB(img []float32) {
	const chunk = 1 << 17
	if len(img) <= chunk {
		powerToDBRange(img)
		return
	}
	var wg sync.WaitGroup
	for lo := 0; lo < len(img); lo += chunk {
		wg.Go(func() { powerToDBRange(img[lo:min(len(img), lo+chunk)]) })
	}
	wg.Wait()
}

func powerToDBRange(img []float32) {
	for i, p := range img { // PowerDB, inlined
		if p > 1e-20 && p <= math.MaxFloat32 {
			img[i] = min(10*log10f(p), CeilDB)
		} else {
			img[i] = edgeDB(p)
		}
	}
}

// foldMax is the larger of m and v by the fold rule every fold of Prism
// keeps (app/plot's fold.go; OpenCL's fmax in the kernels): a NaN never
// wins, so one bad level cannot blank a column that the colormaps would
// paint as silence. It is also faster than the builtin max, whose NaN and
// signed-zero rules it does not need.
func foldMax(m, v float32) float32 {
	if v > m || m != m {
		return v
	}
	return m
}

// maxInto sets dst to the element-wise foldMax of dst and src.
func maxInto(dst, src []float32) {
	for k, v := range src[:len(dst)] {
		dst[k] = foldMax(dst[k], v)
	}
}

// foldColumn maps one column's spectrum (its frames' maximum) onto the
// image's rows: each row the maximum (foldMax) of its bins and what it
// held.
func foldColumn(img, spectrum []float32, ic *ImageConfig, c int) {
	rows := ic.Rows()
	col := img[c*rows : (c+1)*rows]
	for r := range col {
		m := col[r]
		for _, v := range spectrum[ic.RowLo[r]:ic.RowHi[r]] {
			m = foldMax(m, v)
		}
		col[r] = m
	}
}

// zeroImage starts an image of gained power: nothing reached reads 0,
// which converts to FloorDB.
func zeroImage(img []float32) { clear(img) }

// ---- CPU

type cpuImage struct {
	sp        *cpuSpectrogram
	ic        ImageConfig
	img       []float32   // gained power
	tmp, row  [][]float32 // per worker: a column's maximum, one frame's spectrum
	f0, n, c0 int         // the batch being reduced, and its first column
	wg        sync.WaitGroup
}

// NewImage makes an image plan on the CPU engine. Its Add computes each
// column's frames and folds them at once, worker by worker (a column's
// frames are contiguous): a frame's spectrum never leaves the worker's
// cache, where the spectrogram's whole batch of rows (2049 bins × 4096
// frames at N=4096, hop 1024: 34 MB) went through memory before.
func (e *CPU) NewImage(cfg SpectrogramConfig, img ImageConfig) (ImagePlan, error) {
	scfg, err := checkImage(cfg, img)
	if err != nil {
		return nil, err
	}
	sp, err := e.NewSpectrogram(scfg)
	if err != nil {
		return nil, err
	}
	p := &cpuImage{sp: sp.(*cpuSpectrogram), ic: img, img: pages.Make[float32](img.Columns * img.Rows())}
	for len(p.sp.work) < e.workers { // the columns are split over every worker
		p.sp.work = append(p.sp.work, append(scratch(1, 2, scfg.Size/2)[0], make([]complex64, scfg.Bins())))
	}
	for range e.workers {
		p.tmp = append(p.tmp, make([]float32, scfg.Bins()))
		p.row = append(p.row, make([]float32, scfg.Bins()))
	}
	zeroImage(p.img)
	return p, nil
}

func (p *cpuImage) Add(src []float32, firstFrame int) (int, error) {
	sp := p.sp
	samples, n := sp.cfg.imageFrames(src)
	if n == 0 {
		return 0, nil
	}
	if sp.closed {
		return 0, ErrClosed
	}
	first, last := p.ic.columnRange(firstFrame, n)
	sp.src, sp.samples, sp.frames = src, samples, n
	p.f0, p.n, p.c0 = firstFrame, n, first
	// columns are independent: split them across the workers
	err := sp.e.parallel(p, last-first+1, &p.wg)
	sp.src = nil
	return n, err
}

// run computes and folds columns c0+lo … c0+hi−1 of the current batch.
func (p *cpuImage) run(w, lo, hi int) {
	bins := p.sp.cfg.Bins()
	tmp, row := p.tmp[w][:bins], p.row[w][:bins]
	for c := p.c0 + lo; c < p.c0+hi; c++ {
		flo, fhi := p.ic.ColumnFrames(c)
		a, b := max(flo, p.f0), min(fhi, p.f0+p.n)
		if a >= b {
			continue
		}
		p.sp.sequence(w, a-p.f0, tmp, overwrite)
		for f := a + 1; f < b; f++ {
			if p.sp.cfg.BinGain == nil {
				p.sp.sequence(w, f-p.f0, tmp, keepMax)
				continue
			}
			p.sp.sequence(w, f-p.f0, row, overwrite) // gains apply before the maximum
			maxInto(tmp, row)
		}
		foldColumn(p.img, tmp, &p.ic, c)
	}
}

func (p *cpuImage) Image(dst []float32) error {
	if err := p.power(dst); err != nil {
		return err
	}
	powerToDB(dst[:len(p.img)])
	return nil
}

// power copies the image of gained power, before the dB conversion, into
// dst (MergeImages).
func (p *cpuImage) power(dst []float32) error {
	copy(dst[:len(p.img)], p.img)
	return nil
}

// reset empties the image for the next file (PCMImagePlan.Reset).
func (p *cpuImage) reset() error {
	zeroImage(p.img)
	return nil
}

func (p *cpuImage) Close() error { return p.sp.Close() }

// ---- OpenCL

type gpuImage struct {
	sp      *gpuSpectrogram
	ic      ImageConfig
	img     cl.Mem
	reduce  launch
	rowsPad int
	argF0   int64
	argN    int32
	argC0   int32
}

// NewImage makes an image plan on the OpenCL engine.
func (e *OpenCL) NewImage(cfg SpectrogramConfig, ic ImageConfig) (ImagePlan, error) {
	scfg, err := checkImage(cfg, ic)
	if err != nil {
		return nil, err
	}
	e.prebuild(reduceProgram) // beside the spectrogram's
	sp, err := e.NewSpectrogram(scfg)
	if err != nil {
		return nil, err
	}
	p := &gpuImage{sp: sp.(*gpuSpectrogram), ic: ic}
	if err := p.init(); err != nil {
		p.sp.Close()
		return nil, err
	}
	return p, nil
}

// reduceProgram is the program of reduce_max.
var reduceProgram = progSpec{kernels.Reduce, geom{len: 64, radix: 2, s: 1}.defines()}

func (p *gpuImage) init() error {
	b := &p.sp.gpuBase
	rows := p.ic.Rows()
	p.rowsPad = (rows + 63) / 64 * 64
	var err error
	if p.img, err = b.buffer(4 * p.ic.Columns * rows); err != nil {
		return err
	}
	lo, err := b.table(unsafe.Pointer(&p.ic.RowLo[0]), 4*rows)
	if err != nil {
		return err
	}
	hi, err := b.table(unsafe.Pointer(&p.ic.RowHi[0]), 4*rows)
	if err != nil {
		return err
	}
	k, err := b.kernel(reduceProgram.source, reduceProgram.defines, kernels.ReduceMax.Kernel, p.sp.out, p.img, lo, hi,
		int32(p.sp.cfg.Bins()), int32(rows), int32(p.rowsPad), int64(0), int32(0), int64(p.ic.TotalFrames), int32(p.ic.Columns), int32(0))
	if err != nil {
		return err
	}
	p.reduce = launch{k: k, wg: 64, perUnit: p.rowsPad, intArg: -1, longArg: -1}
	return p.sp.e.lib.Zero(p.sp.e.queue, p.img, 0, 4*p.ic.Columns*rows)
}

func (p *gpuImage) Add(src []float32, firstFrame int) (int, error) {
	sp := p.sp
	samples, frames := sp.cfg.imageFrames(src)
	if frames == 0 {
		return 0, nil
	}
	if sp.closed {
		return 0, ErrClosed
	}
	lib, q := sp.e.lib, sp.e.queue
	if err := lib.Write(&sp.args, q, sp.in, true, 0, 4*len(src), unsafe.Pointer(&src[0])); err != nil {
		return 0, errGPU("upload", err)
	}
	if err := p.fold(samples, frames, firstFrame); err != nil {
		return 0, err
	}
	// Wait for the batch, so a device error surfaces from this call and the
	// next upload does not queue behind unfinished work.
	if err := lib.Finish(&sp.args, q); err != nil {
		return 0, errGPU("finish", err)
	}
	return frames, nil
}

// fold enqueues the spectrogram of the samples already in the plan's input
// buffer (samples per channel, frames firstFrame…) and the fold of its
// frames into the image. It does not wait; on an enqueue error it drains
// the queue and returns the error.
func (p *gpuImage) fold(samples, frames, firstFrame int) error {
	sp := p.sp
	lib, q := sp.e.lib, sp.e.queue
	if err := sp.resident(samples, frames); err != nil {
		return err
	}
	first, last := p.ic.columnRange(firstFrame, frames)
	p.argF0, p.argN, p.argC0 = int64(firstFrame), int32(frames), int32(first)
	k := p.reduce.k
	for _, a := range []struct {
		i    int
		size uintptr
		v    unsafe.Pointer
	}{{kernels.ReduceMax.F0, 8, unsafe.Pointer(&p.argF0)}, {kernels.ReduceMax.N, 4, unsafe.Pointer(&p.argN)},
		{kernels.ReduceMax.CFirst, 4, unsafe.Pointer(&p.argC0)}} {
		if err := lib.SetArg(&p.reduce.args, k, a.i, a.size, a.v); err != nil {
			lib.Finish(&sp.args, q)
			return errGPU("reduce", err)
		}
	}
	if err := p.reduce.enqueue(sp.e, last-first+1); err != nil {
		lib.Finish(&sp.args, q)
		return errGPU("reduce", err)
	}
	return nil
}

func (p *gpuImage) Image(dst []float32) error {
	n := p.ic.Columns * p.ic.Rows()
	if len(dst) < n {
		panic(fmt.Sprintf("gpufft: image: len(dst) %d < %d", len(dst), n))
	}
	if err := p.power(dst); err != nil {
		return err
	}
	powerToDB(dst[:n])
	return nil
}

// power downloads the image of gained power, before the dB conversion,
// into dst (MergeImages).
func (p *gpuImage) power(dst []float32) error {
	if p.sp.closed {
		return ErrClosed
	}
	n := p.ic.Columns * p.ic.Rows()
	if err := p.sp.e.lib.Read(&p.sp.args, p.sp.e.queue, p.img, 0, 4*n, unsafe.Pointer(&dst[0])); err != nil {
		return errGPU("download image", err)
	}
	return nil
}

// reset empties the image for the next file (PCMImagePlan.Reset): a fill
// queued behind the previous file's download.
func (p *gpuImage) reset() error {
	if p.sp.closed {
		return ErrClosed
	}
	if err := p.sp.e.lib.Zero(p.sp.e.queue, p.img, 0, 4*p.ic.Columns*p.ic.Rows()); err != nil {
		return errGPU("reset image", err)
	}
	return nil
}

func (p *gpuImage) Close() error { return p.sp.Close() }

// imageFrames is the samples per channel in src and the frames an image
// plan's Add makes of them; it panics unless src is Channels blocks of at
// most MaxSamples samples.
func (c SpectrogramConfig) imageFrames(src []float32) (samples, frames int) {
	samples = len(src) / c.Channels
	if samples*c.Channels != len(src) || samples > c.MaxSamples {
		panic(fmt.Sprintf("gpufft: image: len(src) %d is not %d channels of at most %d samples", len(src), c.Channels, c.MaxSamples))
	}
	return samples, c.Frames(samples)
}
