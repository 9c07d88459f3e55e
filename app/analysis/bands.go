package analysis

import (
	"context"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/gpufft"
)

// BandsOptions configure a fractional-octave analysis.
type BandsOptions struct {
	Fraction  int // 1, 3, 6, 12, 24
	Weighting dsp.Weighting
	Channel   int // −1: the mix
	FFT       int // 0: chosen from the lowest band
	MinFreq   float64
	MaxFreq   float64
}

// BandLevel is one row of `prism bands`.
type BandLevel struct {
	dsp.Band
	LevelDB       float64
	UnderResolved bool
}

// BandsResult is a file's band levels.
type BandsResult struct {
	Levels   []BandLevel
	FFT      int
	Warnings []string // engine fallbacks
}

// AnalyzeBands measures the average power of a file in fractional-octave
// bands (Hann frames, 50 % overlap) on the engines, weighted A, C or Z.
func AnalyzeBands(ctx context.Context, in string, o BandsOptions, engines Engines) (BandsResult, error) {
	res, notice, err := WithFallback(ctx, engines, func(eng gpufft.Engine) (BandsResult, error) {
		return analyzeBands(ctx, in, o, eng)
	})
	if notice != "" {
		res.Warnings = append(res.Warnings, notice)
	}
	return res, err
}

// bandsFFT is o.FFT, or one fine enough for the lowest band (and no longer
// than the file: the lowest bands are then marked under-resolved instead
// of the file being refused).
func bandsFFT(o BandsOptions, lowest dsp.Band, rate int, samples int64) int {
	if o.FFT != 0 {
		return o.FFT
	}
	n := dsp.BandFFTSize(lowest, rate)
	for n > MinFFT && int64(n) > samples {
		n /= 2
	}
	return n
}

func analyzeBands(ctx context.Context, in string, o BandsOptions, eng gpufft.Engine) (BandsResult, error) {
	var res BandsResult
	dec, err := openInput(in, o.Channel, 1)
	if err != nil {
		return res, err
	}
	defer dec.Close()
	f := dec.Format()
	nyq := float64(f.SampleRate) / 2
	bands, err := dsp.Bands(o.Fraction, o.MinFreq, min(o.MaxFreq, nyq), nyq)
	if err != nil {
		return res, &InputError{err}
	}
	if len(bands) == 0 {
		return res, inputErrorf("%s: no 1/%d-octave band between %g Hz and %g Hz at %d Hz sampling", in, o.Fraction, o.MinFreq, o.MaxFreq, f.SampleRate)
	}
	samples, err := knownSamples(ctx, dec, in)
	if err != nil {
		return res, err
	}
	n := bandsFFT(o, bands[0], f.SampleRate, samples)
	res.FFT = n
	win := gpufft.Window{Kind: gpufft.Hann}
	acc := dsp.NewBandAccumulator(bands, n, f.SampleRate, dsp.SumsOf(win.Values(n)), o.Weighting)
	st := newStreamer(dec, n, n/2, o.Channel)
	cfg := gpufft.SpectrogramConfig{Size: n, Hop: n / 2, Window: win, Channels: 1, Mix: true, MaxSamples: st.maxLen, Output: gpufft.Power}
	plan, err := eng.NewSpectrogram(cfg)
	if err != nil {
		return res, &EngineError{err}
	}
	defer plan.Close()
	power := make([]float32, cfg.DstLen(st.maxLen))
	err = st.run(func(b batch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		frames, err := plan.Execute(power, b.buf)
		if err != nil {
			return &EngineError{err}
		}
		acc.Add(power[:frames*cfg.Bins()], cfg.Bins())
		return nil
	})
	if err := streamError(ctx, err); err != nil {
		return res, err
	}
	if acc.Frames == 0 {
		return res, tooShort(in, st.frames, n)
	}
	binHz := float64(f.SampleRate) / float64(n)
	for i, lv := range acc.Levels() {
		res.Levels = append(res.Levels, BandLevel{Band: bands[i], LevelDB: lv, UnderResolved: dsp.UnderResolved(bands[i], binHz)})
	}
	return res, nil
}
