// Package selection analyses a passage of a file, a time range and
// optionally a frequency band (the file view's selection): it cuts the
// passage into a file of its own (band-filtered for a band, by `prism
// filter`'s FIR) and measures that as the commands measure a file — the
// long-term spectrum (`prism spectrum`), levels and loudness (`prism
// levels`), distortion (`prism distortion`) and band levels (`prism
// bands`) — and writes the results as the commands' CSV files.
package selection

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/window"
)

// Range is a selection: T0…T1 seconds, and LoHz…HiHz (both 0: every
// frequency, a time selection only).
type Range struct {
	T0, T1     float64
	LoHz, HiHz float64
}

// HasBand says whether the selection is a time×frequency box.
func (r Range) HasBand() bool { return r.HiHz > r.LoHz && (r.LoHz > 0 || r.HiHz > 0) }

// Band is the box's band for `prism filter` at rate (a bandpass; a
// lowpass from 0 Hz, a highpass up to Nyquist).
func (r Range) Band(rate int) (dsp.BandSpec, error) {
	nyq := float64(rate) / 2
	var s string
	switch {
	case r.LoHz <= 0:
		s = "lowpass:" + strconv.FormatFloat(r.HiHz, 'f', 1, 64)
	case r.HiHz >= nyq*0.999:
		s = "highpass:" + strconv.FormatFloat(r.LoHz, 'f', 1, 64)
	default:
		s = "bandpass:" + strconv.FormatFloat(r.LoHz, 'f', 1, 64) + "-" + strconv.FormatFloat(r.HiHz, 'f', 1, 64)
	}
	return dsp.ParseBand(s)
}

// Options are how the passage is measured.
type Options struct {
	FFT        int // the spectrum's frames (0: 8192)
	OverlapPct float64
	Window     window.Func
	Channel    int // −1: the mix
}

// Result is a selection's measurements. Distortion is zero with DistErr
// set where the passage has no fundamental.
type Result struct {
	Range      Range
	Band       dsp.BandSpec // the filter applied (zero: none)
	Spectrum   analysis.SpectrumResult
	Levels     analysis.LevelsResult
	Distortion analysis.DistortionResult
	DistErr    error
	Bands      analysis.BandsResult
	BandsErr   error // the band levels' failure (a passage too short for the lowest band)
}

// Cut writes frames t0…t1 of in to out as float32 WAV and returns how
// many frames it wrote. It decodes in up to t1 and keeps one block.
func Cut(in, out string, t0, t1 float64) (int, error) {
	d, err := audio.Open(in)
	if err != nil {
		return 0, fmt.Errorf("selection: %w", err)
	}
	defer d.Close()
	f := d.Format()
	a := max(0, int(math.Round(t0*float64(f.SampleRate))))
	b := max(a, int(math.Round(t1*float64(f.SampleRate))))
	o, err := encode.Create(out)
	if err != nil {
		return 0, fmt.Errorf("selection: %w", err)
	}
	defer o.Discard()
	w, err := encode.NewWAVWriter(o, f.SampleRate, f.Channels, 32, true)
	if err != nil {
		return 0, fmt.Errorf("selection: %w", err)
	}
	buf := make([]float32, 8192*f.Channels)
	pos, wrote := 0, 0 // frames decoded, written
	for pos < b {
		n, err := d.Read(buf)
		lo, hi := max(pos, a), min(pos+n, b)
		if hi > lo {
			if werr := w.Write(buf[(lo-pos)*f.Channels : (hi-pos)*f.Channels]); werr != nil {
				return 0, fmt.Errorf("selection: %w", werr)
			}
			wrote += hi - lo
		}
		pos += n
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("selection: %w", err)
		}
	}
	if wrote == 0 {
		return 0, fmt.Errorf("selection: %g…%g s holds no sample of %s", t0, t1, filepath.Base(in))
	}
	if err := w.Finish(); err != nil {
		return 0, fmt.Errorf("selection: %w", err)
	}
	return wrote, o.Commit()
}

// Analyze measures the selection r of in on engines: it cuts it into a
// temporary file (band-filtered for a box) and measures that.
func Analyze(ctx context.Context, in string, r Range, o Options, engines engine.Pair) (Result, error) {
	res := Result{Range: r}
	dir, err := os.MkdirTemp("", "prism-selection-")
	if err != nil {
		return res, fmt.Errorf("selection: %w", err)
	}
	defer os.RemoveAll(dir)
	cut := filepath.Join(dir, "cut.wav")
	if _, err := Cut(in, cut, r.T0, r.T1); err != nil {
		return res, err
	}
	if r.HasBand() {
		dec, err := audio.Open(cut)
		if err != nil {
			return res, fmt.Errorf("selection: %w", err)
		}
		rate := dec.Format().SampleRate
		dec.Close()
		if res.Band, err = r.Band(rate); err != nil {
			return res, fmt.Errorf("selection: %w", err)
		}
		filtered := filepath.Join(dir, "band.wav")
		if _, err := analysis.FilterFile(ctx, cut, filtered, analysis.FilterOptions{Band: res.Band}, engines); err != nil {
			return res, fmt.Errorf("selection: %w", err)
		}
		cut = filtered
	}
	return measure(ctx, cut, res, o, engines)
}

// measure runs the commands' measurements on the cut.
func measure(ctx context.Context, cut string, res Result, o Options, engines engine.Pair) (Result, error) {
	if o.FFT == 0 {
		o.FFT = 8192
	}
	var err error
	so := analysis.SpectrumOptions{FFT: o.FFT, OverlapPct: o.OverlapPct, Window: o.Window, Channel: o.Channel, Unit: dsp.DBFS}
	if res.Spectrum, err = analysis.AnalyzeSpectrum(ctx, cut, so, engines); err != nil {
		return res, fmt.Errorf("selection: spectrum: %w", err)
	}
	if res.Levels, err = analysis.MeasureLevels(ctx, cut); err != nil {
		return res, fmt.Errorf("selection: levels: %w", err)
	}
	// distortion and band levels need a tone and some length: where the
	// passage has neither, the others still stand and the reason is kept
	res.Distortion, res.DistErr = analysis.MeasureDistortion(ctx, cut, o.Channel, 0)
	// `prism bands`' default span, within the box
	bo := analysis.BandsOptions{Fraction: 3, Weighting: dsp.WeightZ, Channel: o.Channel, MinFreq: 20,
		MaxFreq: min(20000, float64(res.Spectrum.SampleRate)/2/1.13)}
	if res.Range.HasBand() {
		bo.MinFreq, bo.MaxFreq = max(bo.MinFreq, res.Range.LoHz), min(bo.MaxFreq, res.Range.HiHz)
	}
	res.Bands, res.BandsErr = analysis.AnalyzeBands(ctx, cut, bo, engines)
	return res, ctx.Err()
}
