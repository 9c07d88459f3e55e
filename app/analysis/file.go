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
)

// AnalyzeOptions are `prism analyze`'s settings (the CLI contract).
type AnalyzeOptions struct {
	FFT     int
	Hop     int
	Window  gpufft.Window
	Channel int // −1: the mix (mean of channels); else a 0-based channel
	Image   plot.ImageOptions
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
	o, err := createOutput(out, in)
	if err != nil {
		return res, err
	}
	defer o.Discard()
	if src, pf, ok := pcmSource(dec, opts.Channel); ok {
		res.RawPCM = true
		run := pcmRun{ctx: ctx, src: src, pf: pf, o: o, format: format, opts: opts, total: total, rate: res.Rate,
			progress: progress, res: &res, t: t}
		err := run.analyze(engines, pool)
		t = time.Now()
		err = finishOutput(ctx, o, dec, in, opts.FFT, &res, err)
		res.Stages.mark(&res.Stages.Commit, SpanCommit, &t)
		return res, err
	}
	st := newStreamer(dec, opts.FFT, opts.Hop, opts.Channel)
	cfg := gpufft.SpectrogramConfig{Size: opts.FFT, Hop: opts.Hop, Window: opts.Window, Channels: 1,
		Mix: true, MaxSamples: st.maxLen, Output: gpufft.DBFS}
	sk, err := newFileSink(o, format, eng, cfg, total, res.Rate, opts.Image, &res.Stages)
	if err != nil {
		return res, err
	}
	defer sk.close()
	res.Stages.mark(&res.Stages.Setup, SpanSetup, &t)
	err = st.run(func(b batch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := sk.add(b)
		res.Frames += n
		if progress != nil {
			progress(res.Frames, total)
		}
		return err
	})
	res.Samples = st.frames
	res.Stages.mark(&res.Stages.Analyze, SpanAnalyze, &t)
	if err == nil && res.Frames > 0 {
		err = sk.finish(res.Frames)
	}
	t = time.Now()
	err = finishOutput(ctx, o, dec, in, opts.FFT, &res, err)
	res.Stages.mark(&res.Stages.Commit, SpanCommit, &t)
	return res, err
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

// createOutput is encode.Create for an output of input in: an output that
// is the input is bad usage.
func createOutput(out, in string) (*encode.Output, error) {
	o, err := encode.Create(out, in)
	if errors.Is(err, encode.ErrOutputIsInput) {
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

// fileSink turns batches into an output format.
type fileSink interface {
	add(b batch) (frames int, err error)
	finish(frames int) error
	close()
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

func newFileSink(o *encode.Output, format encode.Format, eng gpufft.Engine, cfg gpufft.SpectrogramConfig, total, rate int, img plot.ImageOptions, st *Stages) (fileSink, error) {
	if format == encode.FormatPNG {
		return newImageSink(o, eng, cfg, total, rate, img, st)
	}
	rw, err := newRowWriter(o, format, cfg, rate)
	if err != nil {
		return nil, err
	}
	p, err := eng.NewSpectrogram(cfg)
	if err != nil {
		rw.Close()
		return nil, &engine.Error{Err: err}
	}
	return &rowSink{plan: p, out: rw, dst: make([]float32, cfg.DstLen(cfg.MaxSamples)), bins: cfg.Bins()}, nil
}

// rowSink runs the engine's dB spectrogram and hands the rows to a
// RowWriter (NPY, CSV).
type rowSink struct {
	plan gpufft.SpectrogramPlan
	out  *encode.AsyncRows
	dst  []float32
	bins int
}

func (s *rowSink) add(b batch) (int, error) {
	n, err := s.plan.Execute(s.dst, b.buf)
	if err != nil {
		return 0, &engine.Error{Err: err}
	}
	return n, s.out.Rows(b.first, s.dst[:n*s.bins])
}

func (s *rowSink) finish(frames int) error { return s.out.Finish(frames) }

func (s *rowSink) close() {
	s.out.Close()
	s.plan.Close()
}

// imageSink folds frames into the pixel grid on the engine; the host
// colours and decorates the image.
type imageSink struct {
	plan   gpufft.ImagePlan
	layout *plot.Spectrogram
	o      *encode.Output
	stages *Stages
}

// imageConfig is the engine's image plan for a plot layout.
func imageConfig(l *plot.Spectrogram, total int) gpufft.ImageConfig {
	lo, hi := l.RowBins()
	return gpufft.ImageConfig{Columns: l.Columns(), TotalFrames: total, RowLo: lo, RowHi: hi}
}

func newImageSink(o *encode.Output, eng gpufft.Engine, cfg gpufft.SpectrogramConfig, total, rate int, img plot.ImageOptions, st *Stages) (fileSink, error) {
	layout := plot.NewSpectrogram(img, plot.Geometry{Rate: rate, FFT: cfg.Size, Hop: cfg.Hop, Frames: total})
	p, err := eng.NewImage(cfg, imageConfig(layout, total))
	if err != nil {
		return nil, &engine.Error{Err: err}
	}
	return &imageSink{plan: p, layout: layout, o: o, stages: st}, nil
}

func (s *imageSink) add(b batch) (int, error) {
	n, err := s.plan.Add(b.buf, b.first)
	if err != nil {
		return 0, &engine.Error{Err: err}
	}
	return n, nil
}

func (s *imageSink) finish(int) error { return writeImage(s.o, s.layout, s.plan.Image, s.stages) }

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

func (s *imageSink) close() { s.plan.Close() }

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
