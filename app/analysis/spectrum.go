package analysis

import (
	"context"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// AllChannels as SpectrumOptions.Channel asks for one spectrum per channel.
const AllChannels = -2

// SpectrumOptions configure a long-term (Welch) spectrum of a file.
type SpectrumOptions struct {
	FFT        int
	OverlapPct float64 // 0 ≤ overlap < 100: hop = round(N·(1 − overlap/100)), ≥ 1
	Window     window.Func
	Channel    int // −1: the mix; AllChannels: each channel; else that channel
	Unit       dsp.Unit
	Cal        dsp.LevelCal     // added for dsp.DBSPL
	Mic        *dsp.MicResponse // subtracted from every level if set
	Ref        *dsp.Trace       // if set, levels become level − reference
	// Progress, if set, gets the frames averaged so far of the column
	// being analysed and their total (−1 when the file does not say).
	Progress Progress
}

// Hop is the hop the overlap gives.
func (o SpectrumOptions) Hop() int {
	return max(1, int(math.Round(float64(o.FFT)*(1-o.OverlapPct/100))))
}

// SpectrumResult is a file's averaged spectrum: Levels[c][k] is column c's
// level at FreqHz[k] (dB in the options' unit, or dB relative to the
// reference), and the strongest tone of the first column.
type SpectrumResult struct {
	FreqHz     []float64
	Columns    []string // "level", or "ch0", "ch1", … for AllChannels
	Levels     [][]float64
	Peak       dsp.Tone // of the first column, before calibration and reference
	PeakDB     float64  // Peak's level in the unit (dB SPL when calibrated)
	Note       string
	Cents      float64
	Frames     int // frames averaged per column
	FFT, Hop   int
	SampleRate int
	Warnings   []string
}

// AnalyzeSpectrum averages the power spectra of every frame of in (Welch:
// window, overlap and size of o; power averaged, never dB) on the engines
// and scales it to o.Unit: DBFS reads a sine's level, DBFSPerHz the noise
// density, DBSPL a sine's level plus the calibration offset.
func AnalyzeSpectrum(ctx context.Context, in string, o SpectrumOptions, engines engine.Pair) (SpectrumResult, error) {
	res, notice, err := engine.WithFallback(ctx, engines, func(eng gpufft.Engine) (SpectrumResult, error) {
		return analyzeSpectrum(ctx, in, o, eng)
	})
	if notice != "" {
		res.Warnings = append(res.Warnings, notice)
	}
	return res, err
}

func analyzeSpectrum(ctx context.Context, in string, o SpectrumOptions, eng gpufft.Engine) (SpectrumResult, error) {
	res := SpectrumResult{FFT: o.FFT, Hop: o.Hop()}
	channels := []int{o.Channel}
	if o.Channel == AllChannels {
		dec, err := openInput(in, -1, o.FFT)
		if err != nil {
			return res, err
		}
		n := dec.Format().Channels
		dec.Close()
		channels = channels[:0]
		for c := range n {
			channels = append(channels, c)
			res.Columns = append(res.Columns, fmt.Sprintf("ch%d", c))
		}
	} else {
		res.Columns = []string{"level"}
	}
	win := o.Window.Values(o.FFT)
	var power []float64
	for i, c := range channels {
		w, rate, warnings, err := welchChannel(ctx, in, c, o, win, eng)
		if err != nil {
			return res, err
		}
		res.Warnings = append(res.Warnings, warnings...)
		res.Frames, res.SampleRate = w.Frames(), rate
		if power == nil {
			power = make([]float64, w.Bins())
			res.FreqHz = make([]float64, w.Bins())
			for k := range res.FreqHz {
				res.FreqHz[k] = float64(k) * w.BinHz()
			}
		}
		if i == 0 {
			w.Power(power, dsp.DBFS)
			k, err := dsp.NewWindowKernel(win)
			if err != nil {
				return res, err
			}
			res.Peak = k.FindTone(power, w.BinHz())
			res.Note, res.Cents = dsp.NoteName(res.Peak.FreqHz)
			res.PeakDB = res.Peak.LevelDB
			if o.Unit == dsp.DBSPL {
				res.PeakDB = o.Cal.DBSPL(res.PeakDB)
			}
			if o.Mic != nil {
				res.PeakDB -= o.Mic.ResponseDB(res.Peak.FreqHz)
			}
		}
		lv := make([]float64, w.Bins())
		w.Levels(lv, o.Unit)
		o.calibrate(lv, res.FreqHz)
		res.Levels = append(res.Levels, lv)
	}
	return res, nil
}

// calibrate applies the level calibration, microphone response and
// reference to levels in place.
func (o SpectrumOptions) calibrate(lv, freqHz []float64) {
	if o.Unit == dsp.DBSPL {
		for k := range lv {
			lv[k] = o.Cal.DBSPL(lv[k])
		}
	}
	if o.Mic != nil {
		o.Mic.Correct(lv, freqHz)
	}
	if o.Ref != nil {
		o.Ref.Difference(lv, freqHz, lv)
	}
}

// welchChannel streams one channel (−1: the mix) of in through a power
// spectrogram plan into a Welch average.
func welchChannel(ctx context.Context, in string, channel int, o SpectrumOptions, win []float64, eng gpufft.Engine) (*dsp.Welch, int, []string, error) {
	dec, err := openInput(in, channel, o.FFT)
	if err != nil {
		return nil, 0, nil, err
	}
	defer dec.Close()
	rate := dec.Format().SampleRate
	w, err := dsp.NewWelch(win, float64(rate))
	if err != nil {
		return nil, 0, nil, &InputError{err}
	}
	hop := o.Hop()
	total := -1
	if n := dec.Format().Frames; n >= 0 {
		total = dsp.FrameCount(n, o.FFT, hop)
	}
	cfg := gpufft.SpectrogramConfig{Size: o.FFT, Hop: hop, Window: o.Window, Output: gpufft.Power}
	bins := cfg.Bins()
	d, err := streamRows(ctx, newSource(dec, channel), rowsJob{cfg: cfg, total: total}, eng, func(rows []float32, _ int) error {
		for f := range len(rows) / bins {
			w.Add(rows[f*bins : (f+1)*bins])
		}
		if o.Progress != nil {
			o.Progress(w.Frames(), total)
		}
		return nil
	})
	if err != nil {
		return nil, 0, nil, err
	}
	if w.Frames() == 0 {
		return nil, 0, nil, tooShort(in, d.samples, o.FFT)
	}
	return w, rate, dec.Warnings(), nil
}
