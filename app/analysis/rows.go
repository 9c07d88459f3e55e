package analysis

import (
	"context"
	"errors"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// source is a file's samples as the pipelines read them: one channel of
// the decoder, or the mix, and — chosen once, when the file is opened —
// whether its bytes go to the engine undecoded (raw, pf: a 16-, 24- or
// 32-bit integer or float WAV, see pcmSource) or decoded on the host.
type source struct {
	dec     audio.Decoder
	channel int          // −1: the mix (mean of channels); else that channel
	raw     audio.RawPCM // nil: decoded
	pf      gpufft.PCMFormat
}

// newSource is dec's channel (−1: the mix) with the raw path where the
// engine converts dec's bytes itself.
func newSource(dec audio.Decoder, channel int) source {
	s := source{dec: dec, channel: channel}
	if raw, pf, ok := pcmSource(dec, channel); ok {
		s.raw, s.pf = raw, pf
	}
	return s
}

// decodedSource is dec's channel (−1: the mix), always decoded: a stream
// that is not the file's bytes (padded, cut, decimated).
func decodedSource(dec audio.Decoder, channel int) source {
	return source{dec: dec, channel: channel}
}

// rowsJob says how streamRows runs a source's frames through an engine.
type rowsJob struct {
	// cfg's Size, Hop, Window and Output are the caller's; Channels, Mix
	// and MaxSamples are streamRows'.
	cfg   gpufft.SpectrogramConfig
	total int              // the frames, −1 if unknown: a short file's raw batches are sized by it
	pool  *engine.PlanPool // keeps the raw path's plan after a file that succeeded; nil: none kept
	// stages, if not nil, gets the raw path's spans and the Setup mark
	// (from *t) once the plan is ready.
	stages *Stages
	t      *time.Time
	// progress, if not nil, gets the frames analyzed so far: after each
	// decoded batch, or each raw read.
	progress func(frames int)
}

// rowsDone says what streamRows did.
type rowsDone struct {
	frames  int
	samples int64 // per channel, read from the file
	reused  bool  // the raw path's plan came from the pool
}

// streamRows is the file pipelines' one loop: it streams every frame of
// src through a spectrogram of j.cfg on eng and hands each batch's rows
// (frames×Bins values in cfg's Output; the first row is frame number
// first of the stream; valid during the call) to consume, in order, on
// the calling goroutine. A raw source's bytes go to the engine, two
// batches in flight (gpufft.ReadPCMRows); a decoded one is decoded a
// batch ahead on a goroutine of its own (streamer). The engine's failures
// are *engine.Error, the decoder's bad input (*InputError), consume's are
// returned as they are; a cancelled ctx wins over a clean end.
func streamRows(ctx context.Context, src source, j rowsJob, eng gpufft.Engine, consume func(rows []float32, first int) error) (rowsDone, error) {
	cfg := j.cfg
	cfg.Channels, cfg.Mix = 1, true
	if src.raw != nil {
		return rawRows(ctx, src, j, cfg, eng, consume)
	}
	st := newStreamer(src.dec, cfg.Size, cfg.Hop, src.channel)
	cfg.MaxSamples = st.maxLen
	plan, err := eng.NewSpectrogram(cfg)
	if err != nil {
		return rowsDone{}, &engine.Error{Err: err}
	}
	defer plan.Close()
	j.ready()
	dst := make([]float32, cfg.DstLen(st.maxLen))
	var d rowsDone
	err = st.run(func(b batch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := plan.Execute(dst, b.buf)
		if err != nil {
			return &engine.Error{Err: err}
		}
		d.frames += n
		err = consume(dst[:n*cfg.Bins()], b.first)
		if j.progress != nil {
			j.progress(d.frames)
		}
		return err
	})
	d.samples = st.frames
	return d, streamError(ctx, err)
}

// ready marks the end of the job's setup.
func (j rowsJob) ready() {
	if j.stages != nil {
		j.stages.mark(&j.stages.Setup, SpanSetup, j.t)
	}
}

// rawRows is streamRows' raw path: the file's bytes read straight into the
// plan's staging buffers.
func rawRows(ctx context.Context, src source, j rowsJob, cfg gpufft.SpectrogramConfig, eng gpufft.Engine, consume func(rows []float32, first int) error) (rowsDone, error) {
	cfg.MaxSamples = pcmBatchLimit(eng, cfg.Size, cfg.Hop)
	if j.total > 0 { // a short file gets buffers (and pinned staging) of its own size
		cfg.MaxSamples = min(cfg.MaxSamples, cfg.Size+(j.total-1)*cfg.Hop)
	}
	rr := &rawReader{src: src.raw, fb: src.pf.FrameBytes(), stages: j.stages}
	if j.progress != nil {
		rr.progress = func(s int64) { j.progress(dsp.FrameCount(s, cfg.Size, cfg.Hop)) }
	}
	key := rowsKey(eng, src.pf, cfg)
	pp, reused, err := j.pool.Get(key, func() (engine.Pooled, error) { return gpufft.NewPCMSpectrogram(eng, src.pf, cfg) })
	d := rowsDone{reused: reused}
	if err != nil {
		return d, &engine.Error{Err: err}
	}
	p := pp.(gpufft.PCMSpectrogramPlan)
	j.ready()
	var consumeErr error // the consumer's own failures: neither bad input nor the engine
	d.frames, d.samples, err = gpufft.ReadPCMRows(ctx, timedRowsPlan{p, j.stages}, rr, func(rows []float32, first, n int) error {
		consumeErr = consume(rows[:n*cfg.Bins()], first)
		return consumeErr
	})
	if err == nil {
		j.pool.Put(key, p)
		return d, ctx.Err()
	}
	p.Close()
	return d, rawError(ctx, err, rr.err, consumeErr)
}

// rawError classifies a raw path's failure err: a cancelled ctx, the
// decoder's error (rawErr: bad input), the consumer's or the output's own
// (outErr), else the engine's.
func rawError(ctx context.Context, err, rawErr, outErr error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case rawErr != nil:
		return &InputError{rawErr}
	case outErr != nil:
		return outErr
	case errors.As(err, new(*engine.Error)):
		return err
	}
	return &engine.Error{Err: err}
}
