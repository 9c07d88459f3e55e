package gpufft

import (
	"math"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
)

// gpuLive is a live plan on OpenCL: the spectrogram plan's kernels, then
// post.cl's live_update and live_bands on its output buffer, all on one
// in-order queue; per batch the host uploads the samples and the column
// table and reads back the bands, the complete columns and (when asked)
// the traces.
type gpuLive struct {
	sp      *gpuSpectrogram
	cfg     LiveConfig
	cols    *columnPlan
	update  launch
	bands   launch
	tr      cl.Mem
	colBuf  cl.Mem
	entBuf  cl.Mem
	bandOut cl.Mem
	bandHi  []float32 // outC×nb (hi, lo) pairs read back
	noCols  []colEntry
	// host counters (liveHost's)
	frames        uint64
	linNext, linN int
	// per-call kernel arguments
	argEnts, argN, argLinNext, argLinCount, argFirst int32
	argLongCount                                     int64
}

// NewLive implements Engine.
func (e *OpenCL) NewLive(cfg LiveConfig) (LivePlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.clone()
	e.live.Lock()
	defer e.live.Unlock()
	sp, err := e.NewSpectrogram(cfg.Spectrogram)
	if err != nil {
		return nil, err
	}
	p := &gpuLive{sp: sp.(*gpuSpectrogram), cfg: cfg}
	if cfg.Grid != nil {
		p.cols = newColumnPlan(cfg.Grid, cfg.maxColumns())
	}
	if err := p.init(); err != nil {
		p.sp.Close()
		return nil, err
	}
	return p, nil
}

func (p *gpuLive) init() error {
	b, cfg := &p.sp.gpuBase, &p.cfg
	bins, outC, L, nb := cfg.Spectrogram.Bins(), cfg.Spectrogram.OutChannels(), cfg.LinFrames, len(cfg.Bands)
	maxF := cfg.MaxFrames()
	h := newLiveHost(LiveConfig{Spectrogram: cfg.Spectrogram, LinFrames: 1}) // the traces' initial values
	var err error
	if p.tr, err = b.table(unsafe.Pointer(&h.tr[0]), 4*len(h.tr)); err != nil {
		return err
	}
	gain2, err := b.table(unsafe.Pointer(&cfg.Gain2[0]), 4*bins)
	if err != nil {
		return err
	}
	zeroed := func(bytes int) (cl.Mem, error) {
		m, err := b.buffer(bytes)
		if err == nil {
			err = b.e.lib.Zero(b.e.queue, m, 0, max(bytes, 16))
		}
		return m, err
	}
	age, err := zeroed(4 * outC * bins)
	if err != nil {
		return err
	}
	ring, err := zeroed(4 * L * outC * bins)
	if err != nil {
		return err
	}
	linSum, err := zeroed(8 * outC * bins)
	if err != nil {
		return err
	}
	longSum, err := zeroed(8 * outC * bins)
	if err != nil {
		return err
	}
	carry, err := zeroed(4 * outC * bins)
	if err != nil {
		return err
	}
	maxCols := cfg.maxColumns()
	col0, colN := cfg.columnChannels()
	if p.colBuf, err = b.buffer(4 * maxCols * colN * bins); err != nil {
		return err
	}
	if p.entBuf, err = b.buffer(16 * (maxCols + 1)); err != nil {
		return err
	}
	defs := append(geom{len: 64, radix: 2, s: 1}.defines(), b.e.tune...) // PRISM_FLOAT_SUMS: post.cl's float path
	k, err := b.kernel(kernels.Post, defs, kernels.LiveUpdate.Kernel, p.sp.out, gain2, p.entBuf, int32(0), p.tr, age, ring, linSum, longSum,
		carry, p.colBuf, int32(0), int32(bins), int32(outC), int32(L), int32(0), int32(0), int64(0), int32(0),
		cfg.ExpAlpha, int32(min(cfg.HoldFrames, math.MaxInt32)), cfg.Decay, int32(col0), int32(colN))
	if err != nil {
		return err
	}
	p.update = launch{k: k, wg: 256, perUnit: outC * bins, intArg: -1, longArg: -1}
	if nb == 0 {
		return nil
	}
	return p.initBands(b, defs, bins, outC, nb, maxF)
}

// initBands uploads the band matrix (CSR: each band's bins and weights,
// the weights as float2 pairs) and builds live_bands.
func (p *gpuLive) initBands(b *gpuBase, defs []string, bins, outC, nb, maxF int) error {
	starts := []int32{0}
	var binIdx []int32
	var w []float32
	for _, band := range p.cfg.Bands {
		binIdx = append(binIdx, band.Bins...)
		for _, x := range band.Weights {
			hi := float32(x)
			w = append(w, hi, float32(x-float64(hi)))
		}
		starts = append(starts, int32(len(binIdx)))
	}
	binIdx, w = append(binIdx, 0), append(w, 0, 0) // never empty
	startBuf, err := b.table(unsafe.Pointer(&starts[0]), 4*len(starts))
	if err != nil {
		return err
	}
	binBuf, err := b.table(unsafe.Pointer(&binIdx[0]), 4*len(binIdx))
	if err != nil {
		return err
	}
	wBuf, err := b.table(unsafe.Pointer(&w[0]), 4*len(w))
	if err != nil {
		return err
	}
	bandPow, err := b.buffer(8 * outC * nb)
	if err != nil {
		return err
	}
	ms, err := b.buffer(8 * outC * nb * maxF)
	if err != nil {
		return err
	}
	if p.bandOut, err = b.buffer(8 * outC * nb); err != nil {
		return err
	}
	p.bandHi = make([]float32, 2*outC*nb)
	normHi := float32(p.cfg.BandNorm)
	k, err := b.kernel(kernels.Post, defs, kernels.LiveBands.Kernel, p.sp.out, startBuf, binBuf, wBuf, bandPow, ms, p.bandOut,
		int32(0), int32(bins), int32(nb), int32(maxF), normHi, float32(p.cfg.BandNorm-float64(normHi)), p.cfg.ExpAlpha, int32(0))
	if err != nil {
		return err
	}
	p.bands = launch{k: k, groups: true, s: 1, wg: 64, perUnit: outC * nb, intArg: -1, longArg: -1}
	return nil
}

func (p *gpuLive) Config() LiveConfig { return p.cfg }

func (p *gpuLive) Execute(out *LiveOutput, src []float32, firstFrame int64, traces bool) (int, error) {
	checkLiveOutput(&p.cfg, out)
	out.NumColumns = 0 // a batch without frames (or an error) completes none
	sp := p.sp
	scfg := &sp.cfg
	samples := len(src) / scfg.Channels
	if samples*scfg.Channels != len(src) || samples > scfg.MaxSamples {
		panic("gpufft: live: len(src) is not Channels blocks of at most MaxSamples")
	}
	frames := scfg.Frames(samples)
	if frames == 0 {
		return 0, nil
	}
	sp.e.live.Lock()
	defer sp.e.live.Unlock()
	if sp.closed {
		return 0, ErrClosed
	}
	ents := p.noCols
	if p.cols != nil {
		if err := p.cols.plan(firstFrame, frames); err != nil {
			return 0, err
		}
		ents = p.cols.entries
	}
	lib, q := sp.e.lib, sp.e.queue
	if len(ents) > 0 {
		if err := lib.Write(&sp.args, q, p.entBuf, true, 0, 16*len(ents), unsafe.Pointer(&ents[0])); err != nil {
			return 0, errGPU("upload", err)
		}
	}
	if err := lib.Write(&sp.args, q, sp.in, true, 0, 4*len(src), unsafe.Pointer(&src[0])); err != nil {
		return 0, errGPU("upload", err)
	}
	if err := sp.resident(samples, frames); err != nil {
		return 0, err
	}
	if err := p.post(frames, len(ents)); err != nil {
		lib.Finish(&sp.args, q)
		return 0, errGPU("live", err)
	}
	if err := p.readBack(out, frames, traces); err != nil {
		return 0, err
	}
	L := p.cfg.LinFrames
	p.linNext, p.linN, p.frames = (p.linNext+frames)%L, min(p.linN+frames, L), p.frames+uint64(frames)
	if p.cols != nil {
		p.cols.commit(firstFrame, frames)
		p.cols.output(out)
	}
	return frames, nil
}

// post sets the per-batch arguments and enqueues live_update and
// live_bands.
func (p *gpuLive) post(frames, nEnts int) error {
	lib := p.sp.e.lib
	p.argEnts, p.argN, p.argLinNext = int32(nEnts), int32(frames), int32(p.linNext)
	p.argLinCount, p.argLongCount = int32(min(p.linN+frames, p.cfg.LinFrames)), int64(p.frames)+int64(frames)
	p.argFirst = 0
	if p.frames == 0 {
		p.argFirst = 1
	}
	u := &p.update
	for _, a := range [...]struct {
		i int
		v *int32
	}{{kernels.LiveUpdate.NEnts, &p.argEnts}, {kernels.LiveUpdate.N, &p.argN}, {kernels.LiveUpdate.LinNext, &p.argLinNext},
		{kernels.LiveUpdate.LinCount, &p.argLinCount}, {kernels.LiveUpdate.First, &p.argFirst}} {
		if err := lib.SetArg(&u.args, u.k, a.i, 4, unsafe.Pointer(a.v)); err != nil {
			return err
		}
	}
	if err := lib.SetArg(&u.args, u.k, kernels.LiveUpdate.LongCount, 8, unsafe.Pointer(&p.argLongCount)); err != nil {
		return err
	}
	if err := u.enqueue(p.sp.e, 1); err != nil {
		return err
	}
	if len(p.cfg.Bands) == 0 {
		return nil
	}
	bl := &p.bands
	if err := lib.SetArg(&bl.args, bl.k, kernels.LiveBands.N, 4, unsafe.Pointer(&p.argN)); err != nil {
		return err
	}
	if err := lib.SetArg(&bl.args, bl.k, kernels.LiveBands.First, 4, unsafe.Pointer(&p.argFirst)); err != nil {
		return err
	}
	return bl.enqueue(p.sp.e, 1)
}

// readBack reads what crosses back: the bands, the complete columns and
// the traces when asked (blocking reads; the last one waits for the
// batch).
func (p *gpuLive) readBack(out *LiveOutput, frames int, traces bool) error {
	sp := p.sp
	lib, q := sp.e.lib, sp.e.queue
	bins := p.cfg.Spectrogram.Bins()
	read := false
	if n := len(p.bandHi); n > 0 {
		if err := lib.Read(&sp.args, q, p.bandOut, 0, 4*n, unsafe.Pointer(&p.bandHi[0])); err != nil {
			return errGPU("download", err)
		}
		for i := range out.Bands {
			out.Bands[i] = float64(p.bandHi[2*i]) + float64(p.bandHi[2*i+1])
		}
		read = true
	}
	if p.cols != nil && p.cols.complete > 0 {
		if err := lib.Read(&sp.args, q, p.colBuf, 0, 4*p.cols.complete*out.colN*bins, unsafe.Pointer(&out.Columns[0])); err != nil {
			return errGPU("download", err)
		}
		read = true
	}
	if traces {
		if err := lib.Read(&sp.args, q, p.tr, 0, 4*len(out.Traces), unsafe.Pointer(&out.Traces[0])); err != nil {
			return errGPU("download", err)
		}
		read = true
	}
	if !read {
		if err := lib.Finish(&sp.args, q); err != nil {
			return errGPU("finish", err)
		}
	}
	return nil
}

func (p *gpuLive) Close() error {
	p.sp.e.live.Lock()
	defer p.sp.e.live.Unlock()
	return p.sp.Close()
}
