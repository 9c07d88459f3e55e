package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// AnalyzeOptions are `prism analyze`'s settings (the CLI contract).
type AnalyzeOptions struct {
	FFT     int
	Hop     int
	Window  gpufft.Window
	Channel int // −1: the mix (mean of channels); else a 0-based channel
	Image   ImageOptions
}

// ImageOptions shape a PNG spectrogram.
type ImageOptions struct {
	Width, Height int     // plot area in pixels
	FreqScale     string  // "lin", "log", "mel"
	DBMin, DBMax  float64 // colour range
	Colormap      string  // "viridis", "magma", "inferno", "gray"
	Title         string
}

// Output formats.
const (
	FormatNPY = "npy"
	FormatCSV = "csv"
	FormatPNG = "png"
)

// InputError is bad input (exit code 2): a file that cannot be decoded, a
// channel it does not have, fewer samples than one frame.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// AnalyzeResult says what an analysis did, for the summary line.
type AnalyzeResult struct {
	Frames   int
	Samples  int64 // per channel
	Rate     int
	Engine   string
	Elapsed  time.Duration
	Warnings []string // decoder warnings and engine fallbacks
}

// Engines provides the engines an analysis may use: the preferred one
// (GPU or CPU) and the CPU engine to fall back on when the GPU fails.
type Engines struct {
	Preferred gpufft.Engine
	CPU       gpufft.Engine
}

// Progress receives the number of frames analyzed so far (and the total,
// −1 when unknown); nil means none.
type Progress func(done, total int)

// AnalyzeFile analyzes the audio file in into out (format npy, csv or png),
// writing a temporary file beside out and renaming it only on success, so a
// failure never leaves a partial output. If the preferred engine fails
// (a GPU error), it says so in the result's warnings and redoes the file on
// the CPU engine.
//
// Cancelling ctx stops the analysis between batches (the temporary file is
// removed) and returns ctx's error.
func AnalyzeFile(ctx context.Context, in, out, format string, opts AnalyzeOptions, engines Engines, progress Progress) (AnalyzeResult, error) {
	start := time.Now()
	res, err := analyzeWith(ctx, in, out, format, opts, engines.Preferred, progress)
	if err != nil && engines.Preferred != engines.CPU && isEngineError(err) && ctx.Err() == nil {
		warn := fmt.Sprintf("GPU failed: %v — using the CPU", err)
		res, err = analyzeWith(ctx, in, out, format, opts, engines.CPU, progress)
		res.Warnings = append([]string{warn}, res.Warnings...)
	}
	res.Elapsed = time.Since(start)
	return res, err
}

// engineError marks errors that came from the engine (so a CPU retry can
// help), as opposed to input or output problems.
type engineError struct{ err error }

func (e *engineError) Error() string { return e.err.Error() }
func (e *engineError) Unwrap() error { return e.err }

func isEngineError(err error) bool {
	var ee *engineError
	return errors.As(err, &ee)
}

func analyzeWith(ctx context.Context, in, out, format string, opts AnalyzeOptions, eng gpufft.Engine, progress Progress) (res AnalyzeResult, err error) {
	res.Engine = eng.Name() + " (" + eng.Device() + ")"
	dec, err := audio.Open(in)
	if err != nil {
		return res, &InputError{err}
	}
	defer dec.Close()
	f := dec.Format()
	res.Rate = f.SampleRate
	if opts.Channel >= f.Channels {
		return res, inputErrorf("%s: no channel %d (the file has %d: 0…%d)", in, opts.Channel, f.Channels, f.Channels-1)
	}
	total := -1
	if f.Frames >= 0 {
		if f.Frames < int64(opts.FFT) {
			return res, inputErrorf("%s: %d samples per channel, fewer than one frame of %d", in, f.Frames, opts.FFT)
		}
		total = int((f.Frames-int64(opts.FFT))/int64(opts.Hop) + 1)
	}
	if format == FormatPNG && total < 0 {
		// the image needs the frame count up front: count in a first pass
		n, err := countFrames(in)
		if err != nil {
			return res, &InputError{err}
		}
		if n < int64(opts.FFT) {
			return res, inputErrorf("%s: %d samples per channel, fewer than one frame of %d", in, n, opts.FFT)
		}
		total = int((n-int64(opts.FFT))/int64(opts.Hop) + 1)
	}

	of, err := createOutput(out)
	if err != nil {
		return res, err
	}
	defer of.Discard()
	w := of.w

	st := newStreamer(dec, opts.FFT, opts.Hop, opts.Channel)
	cfg := gpufft.SpectrogramConfig{Size: opts.FFT, Hop: opts.Hop, Window: opts.Window, Channels: st.outCh,
		Mix: true, MaxSamples: st.maxLen, Output: gpufft.DBFS}
	var sink sink
	switch format {
	case FormatNPY:
		sink, err = newNPYSink(eng, cfg, w)
	case FormatCSV:
		sink, err = newCSVSink(eng, cfg, w, f.SampleRate)
	case FormatPNG:
		sink, err = newPNGSink(eng, cfg, total, f.SampleRate, opts.Image, w)
	default:
		err = fmt.Errorf("unknown output format %q", format)
	}
	if err != nil {
		return res, err
	}
	defer sink.close()

	err = st.run(func(b batch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := sink.add(b)
		res.Frames += n
		if progress != nil {
			progress(res.Frames, total)
		}
		return err
	})
	res.Samples = st.frames
	res.Warnings = append(res.Warnings, dec.Warnings()...)
	if err != nil {
		var fe *audio.FormatError
		if errors.As(err, &fe) {
			return res, &InputError{err}
		}
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if res.Frames == 0 {
		return res, inputErrorf("%s: %d samples per channel, fewer than one frame of %d", in, st.frames, opts.FFT)
	}
	if err := sink.finish(of.tmp, w, res.Frames); err != nil {
		return res, err
	}
	if err := of.Commit(); err != nil {
		return res, err
	}
	return res, nil
}

func countFrames(path string) (int64, error) {
	d, err := audio.Open(path)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	buf := make([]float32, 65536*d.Format().Channels)
	var n int64
	for {
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

// sink turns batches into an output format.
type sink interface {
	add(b batch) (frames int, err error)
	// finish completes the output (f is the file behind w).
	finish(f *os.File, w *bufio.Writer, frames int) error
	close()
}

// rowSink runs the engine's dB spectrogram and hands the rows to a
// rowWriter (NPY, CSV).
type rowSink struct {
	plan gpufft.SpectrogramPlan
	out  rowWriter
	dst  []float32
	bins int
}

func newRowSink(eng gpufft.Engine, cfg gpufft.SpectrogramConfig, out rowWriter, err error) (sink, error) {
	if err != nil {
		return nil, err
	}
	p, err := eng.NewSpectrogram(cfg)
	if err != nil {
		return nil, &engineError{err}
	}
	return &rowSink{plan: p, out: out, dst: make([]float32, cfg.DstLen(cfg.MaxSamples)), bins: cfg.Bins()}, nil
}

func newNPYSink(eng gpufft.Engine, cfg gpufft.SpectrogramConfig, w *bufio.Writer) (sink, error) {
	out, err := newNPYRows(w, cfg.Bins())
	return newRowSink(eng, cfg, out, err)
}

func newCSVSink(eng gpufft.Engine, cfg gpufft.SpectrogramConfig, w *bufio.Writer, rate int) (sink, error) {
	out, err := newCSVRows(w, cfg.Size, cfg.Hop, rate)
	return newRowSink(eng, cfg, out, err)
}

func (s *rowSink) add(b batch) (int, error) {
	n, err := s.plan.Execute(s.dst, b.buf)
	if err != nil {
		return 0, &engineError{err}
	}
	return n, s.out.rows(b.first, s.dst[:n*s.bins])
}

func (s *rowSink) finish(f *os.File, _ *bufio.Writer, frames int) error {
	return s.out.finish(f, frames)
}

func (s *rowSink) close() { s.plan.Close() }

// ---- PNG: the engine folds frames into the pixel grid; the host colours
// and decorates the image.

type pngSink struct {
	plan   gpufft.ImagePlan
	layout *plotLayout
	w      *bufio.Writer
}

func newPNGSink(eng gpufft.Engine, cfg gpufft.SpectrogramConfig, total, rate int, opts ImageOptions, w *bufio.Writer) (sink, error) {
	layout, err := newPlotLayout(opts, cfg, total, rate)
	if err != nil {
		return nil, err
	}
	p, err := eng.NewImage(cfg, layout.imageConfig())
	if err != nil {
		return nil, &engineError{err}
	}
	return &pngSink{plan: p, layout: layout, w: w}, nil
}

func (s *pngSink) add(b batch) (int, error) {
	n, err := s.plan.Add(b.buf, b.first)
	if err != nil {
		return 0, &engineError{err}
	}
	return n, nil
}

func (s *pngSink) finish(_ *os.File, w *bufio.Writer, _ int) error {
	pix := make([]float32, s.layout.opts.Width*s.layout.opts.Height)
	if err := s.plan.Image(pix); err != nil {
		return &engineError{err}
	}
	if err := s.layout.encode(w, pix); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

func (s *pngSink) close() { s.plan.Close() }

// FormatOf returns the output format named by a path's extension.
func FormatOf(path string) (string, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return FormatNPY, true
	case ".csv":
		return FormatCSV, true
	case ".png":
		return FormatPNG, true
	}
	return "", false
}
