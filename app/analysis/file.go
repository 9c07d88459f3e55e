package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/pages"
	"github.com/prismaudio/prism/window"
)

// AnalyzeOptions are `prism analyze`'s settings (the CLI contract).
type AnalyzeOptions struct {
	FFT     int
	Hop     int
	Window  window.Func
	Channel int // −1: the mix (mean of channels); else a 0-based channel
	Image   plot.ImageOptions
	// Force replaces an existing output whose permissions forbid writing
	// it (else encode.ErrNotWritable, bad input).
	Force bool
	// EngineDone, if not nil, is called on the calling goroutine once a
	// file on the raw PCM path (a WAV whose bytes go to the engine; see
	// pcmfile.go) no longer uses its engines: the rows or
	// the image are on the host and its plans are closed or back in the
	// pool, while the output is still being finished (the NPY header, the
	// PNG's colouring and encoding, the fsync and the rename). A caller
	// with no other file for the engines may start releasing them then:
	// the release overlaps that work. It is called at most once, and not
	// when the engine failed (a fallback to the CPU engine follows).
	EngineDone func()
}

// AnalyzeResult says what an analysis did, for the summary line.
type AnalyzeResult struct {
	Frames   int
	Samples  int64 // per channel
	Rate     int
	Engine   string
	Elapsed  time.Duration
	Warnings []string // decoder warnings and engine fallbacks
	RawPCM   bool     // the file's bytes went to the device undecoded
	Devices  int      // engines that shared the file (several GPUs), else 1
	Stages   Stages
}

// Progress receives the number of frames analyzed so far (and the total,
// −1 when unknown); nil means none. It is called on the calling goroutine.
type Progress func(done, total int)

// AnalyzeFile analyzes the audio file in into out (format npy, csv or png),
// writing a temporary file beside out and renaming it only on success, so a
// failure never leaves a partial output. If the GPU fails, it says so in
// the result's warnings and redoes the file on the CPU engine (unless the
// engines are Strict).
//
// Cancelling ctx stops the analysis between batches (the temporary file is
// removed) and returns ctx's error.
func AnalyzeFile(ctx context.Context, in, out string, format encode.Format, opts AnalyzeOptions, engines engine.Pair, progress Progress) (AnalyzeResult, error) {
	start := time.Now()
	res, notice, err := engine.WithFallback(ctx, engines, func(eng gpufft.Engine) (AnalyzeResult, error) {
		return analyzeWith(ctx, in, out, format, opts, []gpufft.Engine{eng}, engines.Plans, progress)
	})
	if notice != "" {
		res.Warnings = append([]string{notice}, res.Warnings...)
	}
	res.Elapsed = time.Since(start)
	return res, err
}

// AnalyzeFileSet is AnalyzeFile on every GPU of set (one Engines each, as
// OpenEngineSet opens them): a PNG of a WAV file has its batches spread
// over the GPUs and their images merged, the same image as one GPU makes.
// Other outputs and inputs, and a set of one, are AnalyzeFile on set[0].
// If a GPU fails, the file is analyzed again by AnalyzeFile on set[0]
// (which falls back to the CPU in turn), and a warning says so.
func AnalyzeFileSet(ctx context.Context, in, out string, format encode.Format, opts AnalyzeOptions, set []engine.Pair, progress Progress) (AnalyzeResult, error) {
	gpus := make([]gpufft.Engine, 0, len(set))
	for _, e := range set {
		if e.HasGPU() {
			gpus = append(gpus, e.Preferred)
		}
	}
	if len(gpus) < 2 || len(gpus) < len(set) || format != encode.FormatPNG {
		return AnalyzeFile(ctx, in, out, format, opts, set[0], progress)
	}
	start := time.Now()
	res, err := analyzeWith(ctx, in, out, format, opts, gpus, set[0].Plans, progress)
	if errors.As(err, new(*engine.Error)) && ctx.Err() == nil {
		notice := fmt.Sprintf("%d GPUs failed: %v — using one", len(gpus), err)
		res, err = AnalyzeFile(ctx, in, out, format, opts, set[0], progress)
		res.Warnings = append([]string{notice}, res.Warnings...)
		return res, err
	}
	res.Elapsed = time.Since(start)
	return res, err
}

// openInput opens in and checks that it has channel (−1: the mix) and at
// least one frame of n samples. It returns the decoder and the samples per
// channel (−1: unknown).
func openInput(in string, channel, n int) (audio.Decoder, error) {
	dec, err := audio.Open(in)
	if err != nil {
		return nil, &InputError{err}
	}
	f := dec.Format()
	if channel >= f.Channels {
		dec.Close()
		return nil, inputErrorf("%s: no channel %d (the file has %d: 0…%d)", in, channel, f.Channels, f.Channels-1)
	}
	if f.Frames >= 0 && f.Frames < int64(n) {
		dec.Close()
		return nil, tooShort(in, f.Frames, n)
	}
	return dec, nil
}

func tooShort(in string, samples int64, n int) error {
	return inputErrorf("%s: %d samples per channel, fewer than one frame of %d", in, samples, n)
}

// knownSamples is the decoder's length in samples per channel, counted in
// a first pass over the file when the header does not say.
func knownSamples(ctx context.Context, dec audio.Decoder, in string) (int64, error) {
	if n := dec.Format().Frames; n >= 0 {
		return n, nil
	}
	n, err := countSamples(ctx, in)
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if err != nil {
		return 0, &InputError{err}
	}
	return n, nil
}

// analyzeWith analyzes on engines[0], or for a WAV's PNG on the GPU, on
// all of engines (see AnalyzeFileSet).
func analyzeWith(ctx context.Context, in, out string, format encode.Format, opts AnalyzeOptions, engines []gpufft.Engine, pool *engine.PlanPool, progress Progress) (res AnalyzeResult, err error) {
	eng := engines[0]
	res.Engine, res.Devices = engineLabel(eng), 1
	t := time.Now()
	dec, err := openInput(in, opts.Channel, opts.FFT)
	if err != nil {
		return res, err
	}
	defer dec.Close()
	res.Rate = dec.Format().SampleRate
	total := dsp.FrameCount(dec.Format().Frames, opts.FFT, opts.Hop)
	if dec.Format().Frames < 0 {
		total = -1
	}
	if format == encode.FormatPNG && total < 0 {
		// the image needs the frame count up front
		n, err := knownSamples(ctx, dec, in)
		if err != nil {
			return res, err
		}
		if total = dsp.FrameCount(n, opts.FFT, opts.Hop); total == 0 {
			return res, tooShort(in, n, opts.FFT)
		}
	}
	o, err := createOutput(out, in, opts.Force)
	if err != nil {
		return res, err
	}
	defer o.Discard()
	src := newSource(dec, opts.Channel)
	res.RawPCM = src.raw != nil
	a := fileRun{ctx: ctx, src: src, o: o, format: format, opts: opts, total: total, progress: progress, res: &res, t: t}
	if format == encode.FormatPNG {
		err = a.image(engines, pool)
	} else {
		err = a.rows(eng, pool)
	}
	t = time.Now()
	err = finishOutput(ctx, o, dec, in, opts.FFT, &res, err)
	res.Stages.mark(&res.Stages.Commit, SpanCommit, &t)
	return res, err
}

// fileRun is one file's analysis to an output (analyzeWith).
type fileRun struct {
	ctx      context.Context
	src      source
	o        *encode.Output
	format   encode.Format
	opts     AnalyzeOptions
	total    int // frames (known for PNG; −1 if unknown)
	progress Progress
	res      *AnalyzeResult
	t        time.Time // the stage under way started
}

// cfg is the file's dB spectrogram.
func (r *fileRun) cfg() gpufft.SpectrogramConfig {
	return gpufft.SpectrogramConfig{Size: r.opts.FFT, Hop: r.opts.Hop, Window: r.opts.Window, Output: gpufft.DBFS}
}

// rows writes the NPY or CSV rows of the file on eng (streamRows).
func (r *fileRun) rows(eng gpufft.Engine, pool *engine.PlanPool) error {
	st := &r.res.Stages
	cfg := r.cfg()
	rw, err := newRowWriter(r.o, r.format, cfg, r.res.Rate)
	if err != nil {
		return err
	}
	defer rw.Close()
	j := rowsJob{cfg: cfg, total: r.total, pool: pool, t: &r.t}
	j.stages = st
	if r.progress != nil {
		j.progress = func(frames int) { r.progress(frames, r.total) }
	}
	d, err := streamRows(r.ctx, r.src, j, eng, func(rows []float32, first int) error {
		if r.src.raw != nil {
			defer st.span(SpanWrite, time.Now())
		}
		return rw.Rows(first, rows)
	})
	r.res.Frames, r.res.Samples = d.frames, d.samples
	finish := func() {
		if err == nil && d.frames > 0 {
			err = rw.Finish(d.frames)
		}
	}
	if r.src.raw == nil {
		st.mark(&st.Analyze, SpanAnalyze, &r.t)
		finish()
		return err
	}
	st.Reused = d.reused
	if err == nil {
		r.engineDone()
	}
	finish()
	st.mark(&st.Analyze, SpanAnalyze, &r.t)
	return err
}

// image makes the PNG of the file: a raw source on engines (rawImage),
// a decoded one folded on engines[0]'s image plan as it is decoded.
func (r *fileRun) image(engines []gpufft.Engine, pool *engine.PlanPool) error {
	if r.src.raw != nil {
		return r.rawImage(engines, pool)
	}
	st := &r.res.Stages
	sn := newStreamer(r.src.dec, r.opts.FFT, r.opts.Hop, r.src.channel)
	cfg := r.cfg()
	cfg.Channels, cfg.Mix, cfg.MaxSamples = 1, true, sn.maxLen
	layout := plot.NewSpectrogram(r.opts.Image, plot.Geometry{Rate: r.res.Rate, FFT: cfg.Size, Hop: cfg.Hop, Frames: r.total})
	p, err := engines[0].NewImage(cfg, imageConfig(layout, r.total))
	if err != nil {
		return &engine.Error{Err: err}
	}
	defer p.Close()
	st.mark(&st.Setup, SpanSetup, &r.t)
	err = sn.run(func(b batch) error {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		n, err := p.Add(b.buf, b.first)
		if err != nil {
			return &engine.Error{Err: err}
		}
		r.res.Frames += n
		if r.progress != nil {
			r.progress(r.res.Frames, r.total)
		}
		return nil
	})
	r.res.Samples = sn.frames
	st.mark(&st.Analyze, SpanAnalyze, &r.t)
	if err == nil && r.res.Frames > 0 {
		err = writeImage(r.o, layout, p.Image, st)
	}
	return err
}

// finishOutput ends an analysis: the decoder's warnings, then the output
// committed unless the analysis failed, found no frame or was
// interrupted (while encoding, too).
func finishOutput(ctx context.Context, o *encode.Output, dec audio.Decoder, in string, n int, res *AnalyzeResult, err error) error {
	res.Warnings = append(res.Warnings, dec.Warnings()...)
	if err := streamError(ctx, err); err != nil {
		return err
	}
	if res.Frames == 0 {
		return tooShort(in, res.Samples, n)
	}
	return o.Commit()
}

// streamError classifies a stream's end: a decoder's format error is bad
// input; a cancelled ctx wins over a clean end.
func streamError(ctx context.Context, err error) error {
	if err != nil {
		var fe *audio.FormatError
		if errors.As(err, &fe) {
			return &InputError{err}
		}
		return err
	}
	return ctx.Err()
}

func engineLabel(eng gpufft.Engine) string { return eng.Name() + " (" + eng.Device() + ")" }

// createOutput is encode.CreateWith for an output of input in: an output
// that is the input, or that its permissions forbid replacing without
// force, is bad usage.
func createOutput(out, in string, force bool) (*encode.Output, error) {
	o, err := encode.CreateWith(out, encode.CreateOptions{Inputs: []string{in}, Force: force})
	if errors.Is(err, encode.ErrOutputIsInput) || errors.Is(err, encode.ErrNotWritable) {
		return nil, &InputError{err}
	}
	return o, err
}

// countSamples decodes path to its end and returns its samples per
// channel; cancelling ctx stops it.
func countSamples(ctx context.Context, path string) (int64, error) {
	d, err := audio.Open(path)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	buf := make([]float32, 65536*d.Format().Channels)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		got, err := d.Read(buf)
		n += int64(got)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// newRowWriter is the NPY or CSV writer of cfg's rows at rate Hz on o.
func newRowWriter(o *encode.Output, format encode.Format, cfg gpufft.SpectrogramConfig, rate int) (*encode.AsyncRows, error) {
	w, err := formatRowWriter(o, format, cfg, rate)
	if err != nil {
		return nil, err
	}
	// the rows are written while the engine analyzes the next batch
	return encode.NewAsyncRows(w, cfg.Bins()), nil
}

// formatRowWriter is the NPY or CSV RowWriter of cfg's rows at rate Hz on o.
func formatRowWriter(o *encode.Output, format encode.Format, cfg gpufft.SpectrogramConfig, rate int) (encode.RowWriter, error) {
	var w encode.RowWriter
	var err error
	switch format {
	case encode.FormatNPY:
		w, err = encode.NewNPYRows(o, cfg.Bins())
	case encode.FormatCSV:
		w, err = encode.NewCSVRows(o, cfg.Size, cfg.Hop, rate)
	default:
		err = fmt.Errorf("unknown output format %q", format)
	}
	return w, err
}

// imageConfig is the engine's image plan for a plot layout.
func imageConfig(l *plot.Spectrogram, total int) gpufft.ImageConfig {
	lo, hi := l.RowBins()
	return gpufft.ImageConfig{Columns: l.Columns(), TotalFrames: total, RowLo: lo, RowHi: hi}
}

// writeImage takes the engine's image (image fills Columns×Rows levels)
// and writes it, coloured and decorated by layout, to o as PNG, adding
// the times of those steps to st.
func writeImage(o *encode.Output, layout *plot.Spectrogram, image func([]float32) error, st *Stages) error {
	pp, err := fetchImage(layout, image, st)
	if err != nil {
		return err
	}
	defer levelPool.Put(pp)
	return renderImage(o, layout, *pp, st)
}

// fetchImage waits for the engine's image of layout's size and copies it
// into levels from levelPool (the caller puts them back).
func fetchImage(layout *plot.Spectrogram, image func([]float32) error, st *Stages) (*[]float32, error) {
	t := time.Now()
	pp := levelsOf(layout.Columns() * layout.Rows())
	if err := image(*pp); err != nil {
		levelPool.Put(pp)
		return nil, &engine.Error{Err: err}
	}
	st.mark(&st.Fetch, SpanFetch, &t)
	return pp, nil
}

// renderImage colours and decorates the levels pix of layout, then
// encodes the PNG to o.
func renderImage(o *encode.Output, layout *plot.Spectrogram, pix []float32, st *Stages) error {
	t := time.Now()
	img := layout.Render(pix)
	st.mark(&st.Render, SpanRender, &t)
	if err := encode.PNG(o.W, img); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	st.mark(&st.Encode, SpanEncode, &t)
	return nil
}

// levelPool keeps images' levels (8 MiB at 1920×1080) between the files
// of a batch.
var levelPool sync.Pool

// levelsOf returns a slice of n levels from the pool (contents undefined).
func levelsOf(n int) *[]float32 {
	if p, ok := levelPool.Get().(*[]float32); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	p := pages.Make[float32](n)
	return &p
}
