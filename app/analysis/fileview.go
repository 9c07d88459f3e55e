package analysis

import (
	"context"
	"errors"
	"io"
	"math"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// ViewOptions choose what AnalyzeView computes.
type ViewOptions struct {
	FFT, Hop int
	Window   window.Func
	Channel  int     // −1: the mix; else a 0-based channel
	Start    float64 // seconds from the file's start
	End      float64 // seconds; 0 or past the end: the end of the file
	// MaxColumns caps the columns kept: when there are more frames, each
	// column is the maximum (per bin, in dB) of the consecutive frames it
	// covers, so no frame goes unseen. 0: one column per frame.
	MaxColumns int
}

// FileSpectrogram is a file's (or a region's) spectrogram in memory, as a
// window shows it.
type FileSpectrogram struct {
	Path            string
	Rate, Channels  int
	Samples         int64   // per channel, the whole file
	Duration        float64 // seconds, the whole file
	FFT, Hop        int
	Window          window.Func
	Channel         int
	Start           float64     // seconds: where the first frame starts
	Frames          int         // frames analyzed
	FramesPerColumn float64     // frames folded into each column (≥ 1)
	Columns         [][]float32 // dBFS, FFT/2+1 bins each, oldest first
	Engine          string
	Elapsed         time.Duration
	Warnings        []string
	total           int // frames in the region
}

// ColumnTime returns the time (seconds from the file's start) at the
// centre of column i's first frame.
func (f *FileSpectrogram) ColumnTime(i float64) float64 {
	return f.Start + (i*f.FramesPerColumn*float64(f.Hop)+float64(f.FFT)/2)/float64(f.Rate)
}

// TimeColumn is ColumnTime's inverse (fractional; may be outside the
// columns).
func (f *FileSpectrogram) TimeColumn(t float64) float64 {
	return ((t-f.Start)*float64(f.Rate) - float64(f.FFT)/2) / float64(f.Hop) / f.FramesPerColumn
}

// BinHz is the width of one bin.
func (f *FileSpectrogram) BinHz() float64 { return float64(f.Rate) / float64(f.FFT) }

// AnalyzeView analyzes path (or the region Start…End of it) into a
// FileSpectrogram of at most MaxColumns columns, with progress in frames.
// Like AnalyzeFile, a failing GPU engine makes it redo the work on the CPU
// and say so in Warnings. Cancelling ctx stops it between batches.
func AnalyzeView(ctx context.Context, path string, o ViewOptions, engines engine.Pair, progress Progress) (*FileSpectrogram, error) {
	start := time.Now()
	fs, notice, err := engine.WithFallback(ctx, engines, func(eng gpufft.Engine) (*FileSpectrogram, error) {
		return analyzeView(ctx, path, o, eng, progress)
	})
	if fs != nil {
		if notice != "" {
			fs.Warnings = append([]string{notice}, fs.Warnings...)
		}
		fs.Elapsed = time.Since(start)
	}
	return fs, err
}

// region is the samples [first, last) of a file that a view analyzes:
// Start…End, widened to one frame where the file allows.
func (o ViewOptions) region(rate int, samples int64) (first, last int64) {
	first = min(samples, max(0, int64(o.Start*float64(rate))))
	last = samples
	if o.End > 0 {
		last = min(samples, int64(math.Ceil(o.End*float64(rate))))
	}
	if last-first < int64(o.FFT) {
		first = max(0, min(first, last-int64(o.FFT)))
		last = min(samples, first+int64(o.FFT))
	}
	return first, last
}

func analyzeView(ctx context.Context, path string, o ViewOptions, eng gpufft.Engine, progress Progress) (*FileSpectrogram, error) {
	if err := engine.CheckFFT(o.FFT, o.Hop); err != nil {
		return nil, err
	}
	dec, err := openInput(path, o.Channel, o.FFT)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	f := dec.Format()
	samples, err := knownSamples(ctx, dec, path)
	if err != nil {
		return nil, err
	}
	first, last := o.region(f.SampleRate, samples)
	total := dsp.FrameCount(last-first, o.FFT, o.Hop)
	if total == 0 {
		return nil, tooShort(path, samples, o.FFT)
	}
	fs := newFileSpectrogram(path, f, samples, o, total, eng)
	fs.Start = float64(first) / float64(f.SampleRate)
	if err := skipSamples(dec, first); err != nil {
		return nil, &InputError{err}
	}
	src := decodedSource(&limitDecoder{Decoder: dec, left: last - first}, o.Channel)
	cfg := gpufft.SpectrogramConfig{Size: o.FFT, Hop: o.Hop, Window: o.Window, Output: gpufft.DBFS}
	_, err = streamRows(ctx, src, rowsJob{cfg: cfg, total: total}, eng, func(rows []float32, first int) error {
		fs.fold(rows, first, total)
		if progress != nil {
			progress(fs.Frames, total)
		}
		return nil
	})
	fs.Warnings = append(fs.Warnings, dec.Warnings()...)
	if err != nil {
		return nil, err
	}
	return fs, nil
}

// newFileSpectrogram makes the view's columns, every level at −Inf, for
// total frames folded into at most o.MaxColumns columns.
func newFileSpectrogram(path string, f audio.Format, samples int64, o ViewOptions, total int, eng gpufft.Engine) *FileSpectrogram {
	fs := &FileSpectrogram{Path: path, Rate: f.SampleRate, Channels: f.Channels, Samples: samples,
		Duration: float64(samples) / float64(f.SampleRate), FFT: o.FFT, Hop: o.Hop, Window: o.Window, Channel: o.Channel,
		Engine: engineLabel(eng), total: total}
	cols := total
	if o.MaxColumns > 0 {
		cols = min(cols, o.MaxColumns)
	}
	fs.FramesPerColumn = float64(total) / float64(cols)
	fs.Columns = make([][]float32, cols)
	for i := range fs.Columns {
		fs.Columns[i] = make([]float32, o.FFT/2+1)
		for k := range fs.Columns[i] {
			fs.Columns[i][k] = float32(math.Inf(-1))
		}
	}
	return fs
}

// fold takes dB rows of frames first… into the columns that show them
// (plot.ColumnFrames: the maximum over each column's frames, by plot's
// fold rule: a NaN level never wins).
func (fs *FileSpectrogram) fold(rows []float32, first, total int) {
	bins := fs.FFT/2 + 1
	for i := range len(rows) / bins {
		fr := first + i
		if fr >= total {
			break
		}
		c0, c1 := plot.FrameColumns(fr, len(fs.Columns), total)
		for c := c0; c <= c1; c++ {
			plot.MaxLevels(fs.Columns[c], rows[i*bins:(i+1)*bins])
		}
		fs.Frames = fr + 1
	}
}

// skipSamples reads and drops n samples per channel.
func skipSamples(dec audio.Decoder, n int64) error {
	if n == 0 {
		return nil
	}
	ch := dec.Format().Channels
	buf := make([]float32, min(n, 1<<16)*int64(ch))
	for n > 0 {
		got, err := dec.Read(buf[:min(n, int64(len(buf)/ch))*int64(ch)])
		n -= int64(got)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// limitDecoder ends a decoder's stream after `left` samples per channel.
type limitDecoder struct {
	audio.Decoder
	left int64
}

func (d *limitDecoder) Read(dst []float32) (int, error) {
	if d.left <= 0 {
		return 0, io.EOF
	}
	ch := d.Format().Channels
	if int64(len(dst)/ch) > d.left {
		dst = dst[:d.left*int64(ch)]
	}
	n, err := d.Decoder.Read(dst)
	d.left -= int64(n)
	return n, err
}
