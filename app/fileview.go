package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// ViewOptions choose what AnalyzeView computes.
type ViewOptions struct {
	FFT, Hop int
	Window   gpufft.Window
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
	Window          gpufft.Window
	Channel         int
	Start           float64     // seconds: where the first frame starts
	Frames          int         // frames analyzed
	FramesPerColumn float64     // frames folded into each column (≥ 1)
	Columns         [][]float32 // dBFS, FFT/2+1 bins each, oldest first
	Engine          string
	Elapsed         time.Duration
	Warnings        []string
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
func AnalyzeView(ctx context.Context, path string, o ViewOptions, engines Engines, progress Progress) (*FileSpectrogram, error) {
	start := time.Now()
	fs, err := analyzeView(ctx, path, o, engines.Preferred, progress)
	if err != nil && engines.Preferred != engines.CPU && isEngineError(err) && ctx.Err() == nil {
		warn := fmt.Sprintf("GPU failed: %v — using the CPU", err)
		fs, err = analyzeView(ctx, path, o, engines.CPU, progress)
		if fs != nil {
			fs.Warnings = append([]string{warn}, fs.Warnings...)
		}
	}
	if fs != nil {
		fs.Elapsed = time.Since(start)
	}
	return fs, err
}

func analyzeView(ctx context.Context, path string, o ViewOptions, eng gpufft.Engine, progress Progress) (*FileSpectrogram, error) {
	if o.FFT < 64 || o.FFT > 65536 || o.FFT&(o.FFT-1) != 0 || o.Hop < 1 || o.Hop > o.FFT {
		return nil, fmt.Errorf("FFT %d, hop %d: want a power of two 64…65536 and 1 ≤ hop ≤ FFT", o.FFT, o.Hop)
	}
	dec, err := audio.Open(path)
	if err != nil {
		return nil, &InputError{err}
	}
	defer dec.Close()
	f := dec.Format()
	if o.Channel >= f.Channels {
		return nil, inputErrorf("%s: no channel %d (the file has %d)", path, o.Channel, f.Channels)
	}
	samples := f.Frames
	if samples < 0 {
		if samples, err = countFrames(path); err != nil {
			return nil, &InputError{err}
		}
	}
	fs := &FileSpectrogram{Path: path, Rate: f.SampleRate, Channels: f.Channels, Samples: samples,
		Duration: float64(samples) / float64(f.SampleRate), FFT: o.FFT, Hop: o.Hop, Window: o.Window, Channel: o.Channel,
		Engine: eng.Name() + " (" + eng.Device() + ")"}
	first := min(samples, max(0, int64(o.Start*float64(f.SampleRate))))
	last := samples
	if o.End > 0 {
		last = min(samples, int64(math.Ceil(o.End*float64(f.SampleRate))))
	}
	if last-first < int64(o.FFT) {
		// a region shorter than a frame: widen it to one frame where the file allows
		first = max(0, min(first, last-int64(o.FFT)))
		last = min(samples, first+int64(o.FFT))
	}
	if last-first < int64(o.FFT) {
		return nil, inputErrorf("%s: %d samples per channel, fewer than one frame of %d", path, samples, o.FFT)
	}
	fs.Start = float64(first) / float64(f.SampleRate)
	total := int((last-first-int64(o.FFT))/int64(o.Hop) + 1)
	cols := total
	if o.MaxColumns > 0 {
		cols = min(cols, o.MaxColumns)
	}
	fs.FramesPerColumn = float64(total) / float64(cols)
	bins := o.FFT/2 + 1
	fs.Columns = make([][]float32, cols)
	for i := range fs.Columns {
		fs.Columns[i] = make([]float32, bins)
		for k := range fs.Columns[i] {
			fs.Columns[i][k] = float32(math.Inf(-1))
		}
	}
	if err := skipSamples(dec, first); err != nil {
		return nil, &InputError{err}
	}
	region := &limitDecoder{Decoder: dec, left: last - first}
	st := newStreamer(region, o.FFT, o.Hop, o.Channel)
	cfg := gpufft.SpectrogramConfig{Size: o.FFT, Hop: o.Hop, Window: o.Window, Channels: st.outCh,
		Mix: true, MaxSamples: st.maxLen, Output: gpufft.DBFS}
	plan, err := eng.NewSpectrogram(cfg)
	if err != nil {
		return nil, &engineError{err}
	}
	defer plan.Close()
	dst := make([]float32, cfg.DstLen(st.maxLen))
	err = st.run(func(b batch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := plan.Execute(dst, b.buf)
		if err != nil {
			return &engineError{err}
		}
		for i := range n {
			fr := b.first + i
			if fr >= total {
				break
			}
			col := fs.Columns[min(cols-1, int(float64(fr)/fs.FramesPerColumn))]
			for k, v := range dst[i*bins : (i+1)*bins] {
				col[k] = max(col[k], v)
			}
		}
		fs.Frames = min(total, b.first+n)
		if progress != nil {
			progress(fs.Frames, total)
		}
		return nil
	})
	fs.Warnings = append(fs.Warnings, dec.Warnings()...)
	if err != nil {
		var fe *audio.FormatError
		if errors.As(err, &fe) {
			return nil, &InputError{err}
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return fs, nil
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
