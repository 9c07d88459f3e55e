package analysis

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// The GPU-resident file pipeline: a WAV file's samples go to the GPU as
// the bytes the file holds (int16, int24, int32 or float32); the device
// converts, mixes or picks a channel, transforms and folds them, and only
// the image (PNG) or the dB rows (NPY, CSV) come back. Reading the next
// batch into pinned staging memory overlaps the device's work on the
// current one.

// pcmSource is what the pipeline needs of a decoder whose bytes the
// engine converts, with the engine's name for their format; ok is false
// for other decoders (FLAC, MP3, 8-bit or 64-bit WAV), which go through
// the decoding pipeline. The CPU engine takes the raw path too: its
// workers convert and mix straight from the file's bytes in one pass
// (the decoding pipeline converted to interleaved float32, then mixed:
// two passes, 100 of its 690 ms of CPU per 10-minute file here).
func pcmSource(dec audio.Decoder, channel int) (audio.RawPCM, gpufft.PCMFormat, bool) {
	raw, ok := dec.(audio.RawPCM)
	if !ok {
		return nil, gpufft.PCMFormat{}, false
	}
	rf := raw.RawFormat()
	var enc gpufft.PCMEncoding
	switch {
	case rf.Float && rf.BytesPerSample == 4:
		enc = gpufft.PCMFloat32
	case !rf.Float && rf.BytesPerSample == 2:
		enc = gpufft.PCMInt16
	case !rf.Float && rf.BytesPerSample == 3:
		enc = gpufft.PCMInt24
	case !rf.Float && rf.BytesPerSample == 4:
		enc = gpufft.PCMInt32
	default:
		return nil, gpufft.PCMFormat{}, false
	}
	sel := gpufft.PCMMix
	if channel >= 0 {
		sel = channel
	}
	return raw, gpufft.PCMFormat{Encoding: enc, Channels: dec.Format().Channels, Select: sel}, true
}

// rawReader reads a decoder's undecoded bytes as an io.Reader (whole
// sample frames at a time) for gpufft's PCM loops, keeps the decoder's
// error apart from the engine's, and reports progress.
type rawReader struct {
	src      audio.RawPCM
	fb       int   // bytes per sample frame
	err      error // the decoder's last error other than io.EOF: bad input
	samples  int64
	progress func(samples int64)
	stages   *Stages // gets the reads' spans
}

func (r *rawReader) Read(p []byte) (int, error) {
	t := time.Now()
	n, err := r.src.ReadRaw(p)
	r.stages.span(SpanRead, t)
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
	}
	r.samples += int64(n)
	if r.progress != nil && n > 0 {
		r.progress(r.samples)
	}
	return n * r.fb, err
}

// gpuPCMBatch is the samples per channel of one batch of the raw PCM path
// on a GPU: smaller than batchSamples, as each file in flight holds two
// pinned staging buffers of a batch (docs/performance.md: 2^20 measured
// best). $PRISM_PCM_BATCH (4096 to 2^24) changes it, to measure.
var gpuPCMBatch = func() int {
	if n, err := strconv.Atoi(os.Getenv("PRISM_PCM_BATCH")); err == nil && n >= 4096 && n <= 1<<24 {
		return n
	}
	return 1 << 20
}()

// pcmBatchLimit is the raw PCM path's MaxSamples on eng for frames of n,
// hop apart.
func pcmBatchLimit(eng gpufft.Engine, n, hop int) int {
	if eng.Name() != "opencl" {
		workers := 0
		if c, ok := eng.(interface{ Workers() int }); ok { // the CPU engine's
			workers = c.Workers()
		}
		return batchLimits(n, hop, 1, workers)
	}
	return min(batchLimits(n, hop, 1, 0), n+max(0, gpuPCMBatch-n)/hop*hop)
}

// rawImage makes the PNG of a raw source on engines: on several (one per
// GPU) the file's batches are spread over them (ReadPCMImages). gpufft's
// PCM loops read the file's bytes straight into the plans' staging
// buffers, two batches in flight per plan. Plans come from pool and go
// back to it after a file that succeeded.
func (r *fileRun) rawImage(engines []gpufft.Engine, pool *engine.PlanPool) error {
	cfg := r.cfg()
	cfg.Channels, cfg.Mix = 1, true
	cfg.MaxSamples = pcmBatchLimit(engines[0], cfg.Size, cfg.Hop)
	if r.total > 0 { // a short file gets buffers (and pinned staging) of its own size
		cfg.MaxSamples = min(cfg.MaxSamples, cfg.Size+(r.total-1)*cfg.Hop)
	}
	rr := &rawReader{src: r.src.raw, fb: r.src.pf.FrameBytes(), stages: &r.res.Stages}
	if r.progress != nil {
		rr.progress = func(s int64) { r.progress(dsp.FrameCount(s, cfg.Size, cfg.Hop), r.total) }
	}
	var outErr error // the output's own failures: neither bad input nor the engine
	err := r.rawImageOn(engines, pool, cfg, rr, &outErr)
	if err == nil {
		return r.ctx.Err()
	}
	return rawError(r.ctx, err, rr.err, outErr)
}

// rawImageOn is rawImage's work; *outErr keeps the writer's own error
// apart.
func (r *fileRun) rawImageOn(engines []gpufft.Engine, pool *engine.PlanPool, cfg gpufft.SpectrogramConfig, rr *rawReader, outErr *error) error {
	st := &r.res.Stages
	layout := plot.NewSpectrogram(r.opts.Image, plot.Geometry{Rate: r.res.Rate, FFT: cfg.Size, Hop: cfg.Hop, Frames: r.total})
	ic := imageConfig(layout, r.total)
	plans := make([]gpufft.PCMImagePlan, len(engines))
	keys := make([]string, len(engines))
	ok := false
	release := func() { // the plans back to the pool (after success) or closed
		for i, p := range plans {
			switch {
			case p == nil:
			case ok:
				pool.Put(keys[i], p)
			default:
				p.Close()
			}
			plans[i] = nil
		}
	}
	defer release()
	st.Reused = true
	for i, eng := range engines {
		keys[i] = imageKey(eng, r.src.pf, cfg, ic)
		p, reused, err := pool.Get(keys[i], func() (engine.Pooled, error) { return gpufft.NewPCMImage(eng, r.src.pf, cfg, ic) })
		if err != nil {
			return err
		}
		plans[i], st.Reused = p.(gpufft.PCMImagePlan), st.Reused && reused
	}
	st.mark(&st.Setup, SpanSetup, &r.t)
	var err error
	if len(plans) == 1 {
		r.res.Frames, r.res.Samples, err = gpufft.ReadPCMImage(r.ctx, timedImagePlan{plans[0], st}, rr)
	} else {
		r.res.Frames, r.res.Samples, err = gpufft.ReadPCMImages(r.ctx, plans, rr)
		r.res.Devices = len(plans)
	}
	st.mark(&st.Analyze, SpanAnalyze, &r.t)
	if err != nil || r.res.Frames == 0 {
		return err
	}
	image := plans[0].Image
	if len(plans) > 1 {
		image = func(dst []float32) error { return gpufft.MergeImages(dst, plans) }
	}
	pp, err := fetchImage(layout, image, st)
	if err != nil {
		return err
	}
	defer levelPool.Put(pp)
	ok = true
	release()
	r.engineDone()
	if err := renderImage(r.o, layout, *pp, st); err != nil {
		*outErr = err
		return err
	}
	return nil
}

// engineDone calls the options' EngineDone, if any.
func (r *fileRun) engineDone() {
	if r.opts.EngineDone != nil {
		r.opts.EngineDone()
	}
}

// timedImagePlan keeps the spans of a plan's Staging (waiting for the
// engine to be done with a buffer) and Add (queueing a batch).
type timedImagePlan struct {
	gpufft.PCMImagePlan
	st *Stages
}

func (p timedImagePlan) Staging() ([]byte, error) {
	defer p.st.span(SpanStaging, time.Now())
	return p.PCMImagePlan.Staging()
}

func (p timedImagePlan) Add(raw []byte, firstFrame int) (int, error) {
	defer p.st.span(SpanSubmit, time.Now())
	return p.PCMImagePlan.Add(raw, firstFrame)
}

// timedRowsPlan keeps the spans of a rows plan's Staging, Submit and Rows
// (waiting for a batch's rows to come back).
type timedRowsPlan struct {
	gpufft.PCMSpectrogramPlan
	st *Stages
}

func (p timedRowsPlan) Staging() ([]byte, error) {
	defer p.st.span(SpanStaging, time.Now())
	return p.PCMSpectrogramPlan.Staging()
}

func (p timedRowsPlan) Submit(raw []byte) (int, error) {
	defer p.st.span(SpanSubmit, time.Now())
	return p.PCMSpectrogramPlan.Submit(raw)
}

func (p timedRowsPlan) Rows() ([]float32, int, error) {
	defer p.st.span(SpanRows, time.Now())
	return p.PCMSpectrogramPlan.Rows()
}

// imageKey and rowsKey name a plan's shape.
func imageKey(eng gpufft.Engine, pf gpufft.PCMFormat, cfg gpufft.SpectrogramConfig, ic gpufft.ImageConfig) string {
	return fmt.Sprintf("image %p %+v %+v %d %d %v %v", eng, pf, cfg, ic.Columns, ic.TotalFrames, ic.RowLo, ic.RowHi)
}

func rowsKey(eng gpufft.Engine, pf gpufft.PCMFormat, cfg gpufft.SpectrogramConfig) string {
	return fmt.Sprintf("rows %p %+v %+v", eng, pf, cfg)
}
