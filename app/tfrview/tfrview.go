// Package tfrview computes the window's file view in an analysis mode
// (package tfr: multi-resolution, variable-Q, reassigned): a file's (or a
// region's) frames folded into at most so many columns, as
// analysis.AnalyzeView does for the STFT, with every bin's centre
// frequency and noise bandwidth beside them.
package tfrview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Options are a mode view's analysis: View's Hop, Window, Channel,
// Start, End and MaxColumns as analysis.AnalyzeView takes them (its FFT
// is the size of the STFT and reassigned modes), and the mode with its
// own parameters in Mode (its Rate, Channels, Hop, Window, Size and
// MaxSamples are set from View and the file).
type Options struct {
	View analysis.ViewOptions
	Mode tfr.Config
}

// Spectrogram is a file's (or a region's) frames in a mode. Its
// FileSpectrogram's FFT is the transform's span (the samples one frame
// reads, so ColumnTime is each frame's centre) and its Columns hold
// len(Freqs) levels each, in dBFS by package tfr's rule.
type Spectrogram struct {
	analysis.FileSpectrogram
	Freqs []float64  // every bin's centre frequency in Hz, ascending
	ENBW  []float64  // every bin's equivalent noise bandwidth in Hz
	Mode  tfr.Config // the transform run
}

// Peak is col's (one of s's columns) dominant peak by the rule the live
// modes' readouts use (tfrlive.PeakOf).
func (s *Spectrogram) Peak(col []float32) dsp.Peak { return tfrlive.PeakOf(col, s.Freqs) }

// Label says what the view shows: "VQT 48/oct from 20 Hz hop 512".
func (s *Spectrogram) Label() string {
	c := s.Mode
	var d string
	switch c.Mode {
	case tfr.VQT:
		d = fmt.Sprintf("VQT %d/oct from %g Hz", c.BinsPerOctave, c.FMin)
		if c.Gamma > 0 {
			d += fmt.Sprintf(" γ %g", c.Gamma)
		}
	case tfr.MultiRes:
		d = fmt.Sprintf("multi-res %v", c.Sizes)
	case tfr.Reassigned:
		d = fmt.Sprintf("reassigned N=%d", c.Size)
		if len(c.Sizes) > 0 {
			d = fmt.Sprintf("reassigned %v", c.Sizes)
		}
	default:
		d = fmt.Sprintf("%v N=%d", c.Mode, c.Size)
	}
	return d + fmt.Sprintf(" hop %d", s.Hop)
}

// AnalyzeView analyzes path (or the region View.Start…View.End of it) in
// o's mode on the engines, falling back from a failing GPU to the CPU
// once (and saying so in Warnings) as analysis.AnalyzeView does, with
// progress in frames. Cancelling ctx stops it between blocks.
func AnalyzeView(ctx context.Context, path string, o Options, engines engine.Pair, progress analysis.Progress) (*Spectrogram, error) {
	start := time.Now()
	span := func(f audio.Format) (int, error) {
		n, _, err := shape(probeEngine(engines), config(o, f))
		return n, err
	}
	x, f, samples, first, warnings, err := readRegion(ctx, path, o, span)
	if err != nil {
		return nil, err
	}
	s, notice, err := engine.WithFallback(ctx, engines, func(e gpufft.Engine) (*Spectrogram, error) {
		return analyze(ctx, x, f, o, e, probeEngine(engines), progress)
	})
	if err != nil {
		return nil, err
	}
	s.Path, s.Samples, s.Duration = path, samples, float64(samples)/float64(f.SampleRate)
	s.Start = float64(first) / float64(f.SampleRate)
	s.Warnings = append(warnings, s.Warnings...)
	if notice != "" {
		s.Warnings = append(s.Warnings, notice)
	}
	s.Elapsed = time.Since(start)
	return s, nil
}

// config is o's transform for a file of format f.
func config(o Options, f audio.Format) tfr.Config {
	c := o.Mode
	c.Rate, c.Channels, c.Hop, c.Window, c.Size = float64(f.SampleRate), 1, o.View.Hop, o.View.Window, o.View.FFT
	if c.Hop < 1 {
		c.Hop = max(1, c.Size/4)
	}
	return c
}

// probeEngine is the CPU engine of the pair where there is one: its
// plans of one frame cost next to nothing, where a GPU's are built on the
// device.
func probeEngine(p engine.Pair) gpufft.Engine {
	if p.CPU != nil {
		return p.CPU
	}
	return p.Preferred
}

// chunkValues bounds the values one Execute writes (and keeps per
// frame), so a call's buffers stay near 64 MB; callSamples bounds the
// samples it reads (a VQT's calls are sized by these alone), as the file
// analysis's (package tfrfile) do.
var chunkValues = 1 << 24

const callSamples = 1 << 22

// analyze runs o's transform over x (the region, from its first sample)
// on e into the columns; probe is the engine its shape is learnt on.
func analyze(ctx context.Context, x []float32, f audio.Format, o Options, e, probe gpufft.Engine, progress analysis.Progress) (*Spectrogram, error) {
	cfg := config(o, f)
	span, bins, err := shape(probe, cfg)
	if err != nil {
		return nil, err
	}
	if len(x) < span {
		return nil, &analysis.InputError{Err: fmt.Errorf("tfrview: %d samples, fewer than one frame of %d", len(x), span)}
	}
	total := (len(x)-span)/cfg.Hop + 1
	margin := 0
	if cfg.Mode == tfr.Reassigned { // energy moves up to half a window in time
		margin = span/(2*cfg.Hop) + 1
	}
	per := tfr.FramesPerCall(cfg, span, bins, total, chunkValues, callSamples)
	cfg.MaxSamples = span + (per+2*margin-1)*cfg.Hop
	tr, err := tfr.New(e, cfg)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	s := newSpectrogram(f, o, cfg, tr, total)
	s.Engine = e.Name()
	dst := make([]float32, (per+2*margin)*bins)
	for a := 0; a < total; a += per {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := min(total, a+per)
		s0, e0 := max(0, a-margin), min(total, b+margin)
		n, err := tr.Execute(dst, x[s0*cfg.Hop:(e0-1)*cfg.Hop+span])
		if err != nil {
			return nil, err
		}
		if n != e0-s0 {
			return nil, fmt.Errorf("tfrview: %d frames from a block of %d", n, e0-s0)
		}
		s.fold(dst[(a-s0)*bins:(b-s0)*bins], a, total)
		if progress != nil {
			progress(s.Frames, total)
		}
	}
	return s, nil
}

// newSpectrogram makes the columns, every level at −Inf, for total
// frames of tr folded into at most o.View.MaxColumns columns.
func newSpectrogram(f audio.Format, o Options, cfg tfr.Config, tr tfr.Transform, total int) *Spectrogram {
	s := &Spectrogram{Mode: tr.Config(), Freqs: tr.Freqs(), ENBW: tr.ENBW()}
	s.Mode.MaxSamples = 0
	s.Rate, s.Channels, s.FFT, s.Hop, s.Window, s.Channel = f.SampleRate, f.Channels, tr.Span(), cfg.Hop, cfg.Window, o.View.Channel
	cols := total
	if o.View.MaxColumns > 0 {
		cols = min(cols, o.View.MaxColumns)
	}
	s.FramesPerColumn = float64(total) / float64(cols)
	s.Columns = make([][]float32, cols)
	for i := range s.Columns {
		s.Columns[i] = make([]float32, len(s.Freqs))
		for k := range s.Columns[i] {
			s.Columns[i][k] = float32(math.Inf(-1))
		}
	}
	return s
}

// fold takes rows of frames first… into the columns that show them: the
// maximum over each column's frames (plot's fold rule, as the STFT view's).
func (s *Spectrogram) fold(rows []float32, first, total int) {
	bins := len(s.Freqs)
	for i := range len(rows) / bins {
		fr := first + i
		c0, c1 := plot.FrameColumns(fr, len(s.Columns), total)
		for c := c0; c <= c1; c++ {
			plot.MaxLevels(s.Columns[c], rows[i*bins:(i+1)*bins])
		}
		s.Frames = fr + 1
	}
}

// shape is tfr.Shape, its invalid parameters bad input.
func shape(e gpufft.Engine, cfg tfr.Config) (span, bins int, err error) {
	span, bins, err = tfr.Shape(e, cfg)
	if errors.Is(err, gpufft.ErrInvalid) {
		err = &analysis.InputError{Err: err}
	}
	return span, bins, err
}

// readRegion decodes the region of path o.View asks for (channel
// o.View.Channel, or the mean of every channel), widened where the file
// allows to one frame (span's samples for the file's format) when it is
// shorter, as analysis.AnalyzeView widens its regions: its samples from
// the region's first, the file's format, its length in samples and the
// region's first sample.
func readRegion(ctx context.Context, path string, o Options, span func(audio.Format) (int, error)) (x []float32, f audio.Format, samples, first int64, warnings []string, err error) {
	dec, err := audio.Open(path)
	if err != nil {
		return nil, f, 0, 0, nil, &analysis.InputError{Err: err}
	}
	defer dec.Close()
	f = dec.Format()
	ch := o.View.Channel
	if ch >= f.Channels {
		return nil, f, 0, 0, nil, &analysis.InputError{Err: fmt.Errorf("%s: no channel %d (the file has %d: 0…%d)", path, ch, f.Channels, f.Channels-1)}
	}
	rate := float64(f.SampleRate)
	first = max(0, int64(math.Floor(o.View.Start*rate)))
	last := int64(math.MaxInt64)
	if o.View.End > 0 {
		last = int64(math.Ceil(o.View.End * rate))
		n, err := span(f)
		if err != nil {
			return nil, f, 0, 0, nil, err
		}
		if last-first < int64(n) {
			first = max(0, min(first, last-int64(n)))
			last = first + int64(n)
		}
	}
	buf := make([]float32, 1<<16*f.Channels)
	var at int64 // samples per channel read so far
	for {
		if err := ctx.Err(); err != nil {
			return nil, f, 0, 0, nil, err
		}
		n, rerr := dec.Read(buf)
		lo, hi := min(max(first-at, 0), int64(n)), min(max(last-at, 0), int64(n))
		x = appendChannel(x, buf[lo*int64(f.Channels):hi*int64(f.Channels)], f.Channels, ch)
		at += int64(n)
		if errors.Is(rerr, io.EOF) || (at >= last && f.Frames >= 0) {
			break
		}
		if rerr != nil {
			var fe *audio.FormatError
			if errors.As(rerr, &fe) {
				return nil, f, 0, 0, nil, &analysis.InputError{Err: rerr}
			}
			return nil, f, 0, 0, nil, fmt.Errorf("%s: %w", path, rerr)
		}
	}
	samples = at
	if f.Frames >= 0 {
		samples = f.Frames
	}
	return x, f, samples, min(first, samples), dec.Warnings(), nil
}

// appendChannel appends channel ch of the interleaved frames in buf (of
// channels each) to x, or their mean when ch < 0.
func appendChannel(x, buf []float32, channels, ch int) []float32 {
	for i := 0; i+channels <= len(buf); i += channels {
		switch {
		case ch >= 0:
			x = append(x, buf[i+ch])
		case channels == 1:
			x = append(x, buf[i])
		default:
			s := float32(0)
			for _, v := range buf[i : i+channels] {
				s += v
			}
			x = append(x, s/float32(channels))
		}
	}
	return x
}
