package analysis

import (
	"context"
	"errors"
	"io"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// BandsOptions configure a fractional-octave analysis.
type BandsOptions struct {
	Fraction  int // 1, 2, 3, 6, 12, 24 or 48
	Weighting dsp.Weighting
	Channel   int // −1: the mix
	FFT       int // 0: chosen from the lowest band
	MinFreq   float64
	MaxFreq   float64
	// Cal (a level calibration: levels in dB SPL) and Mic (a microphone
	// response, subtracted at each band's exact centre frequency, as the
	// window's RTA does) calibrate the levels; zero and nil: dBFS.
	Cal dsp.LevelCal
	Mic *dsp.MicResponse
}

// BandsResult is a file's band levels.
type BandsResult struct {
	Levels []dsp.BandLevel
	FFT    int // the transform at the file's rate (0 if every band was decimated)
	// Decimation is 1, or the factor by which the signal of the lowest
	// bands was decimated (see bandsDecimation), DecimatedFFT their
	// transform at that rate.
	Decimation, DecimatedFFT int
	Warnings                 []string // the decoder's warnings and engine fallbacks
}

// bandsMaxFFT is the longest transform AnalyzeBands chooses by itself:
// long enough that 1/48-octave bands at 20 Hz span 4 bins at 48 kHz.
const bandsMaxFFT = engine.MaxFFT

// AnalyzeBands measures the exact average power of a whole file in
// fractional-octave bands on the engines, weighted A, C or Z: Hann frames
// at hop N/4, whose squares sum to the same weight at every sample, over
// the file padded with N−N/4 zeros at each end (and at the end up to a
// whole hop more), so every sample counts once — no fade-in, no
// unanalysed tail, a burst reads the same wherever it falls.
func AnalyzeBands(ctx context.Context, in string, o BandsOptions, engines engine.Pair) (BandsResult, error) {
	res, notice, err := engine.WithFallback(ctx, engines, func(eng gpufft.Engine) (BandsResult, error) {
		return analyzeBands(ctx, in, o, eng)
	})
	if notice != "" {
		res.Warnings = append(res.Warnings, notice)
	}
	for i := range res.Levels {
		l := &res.Levels[i]
		l.LevelDB = o.Cal.DBSPL(l.LevelDB)
		if o.Mic != nil {
			l.LevelDB -= o.Mic.ResponseDB(l.Exact)
		}
	}
	return res, err
}

// bandsFFT is o.FFT, or one fine enough for the lowest band but no longer
// than the file: a longer transform would resolve nothing more (the
// file's own length sets the resolution of its spectrum), and the lowest
// bands are marked under-resolved instead of the file being refused. The
// frames that see the file start or stop need no margin: summed over
// every frame (hop N/4, zeros around the file), the Hann power spectra
// are the file's own spectrum smoothed by the window's kernel, however
// long N is, so a tone that stops with the file spreads only as its own
// truncation does.
func bandsFFT(o BandsOptions, lowest dsp.Band, rate int, samples int64) int {
	if o.FFT != 0 {
		return o.FFT
	}
	n := dsp.BandFFTSize(lowest, rate, bandsMaxFFT)
	for n > engine.MinFFT && int64(n) > samples {
		n /= 2
	}
	return n
}

// bandsWindow is the band analysis' window: Hann, whose squares at hop
// N/4 sum to the same weight at every sample.
var bandsWindow = window.Func{Kind: window.Hann}

// bandsAccumulator folds the n-point bandsWindow power spectra of a signal
// at rate Hz into bands, weighted by w.
func bandsAccumulator(bands []dsp.Band, n, rate int, w dsp.Weighting) *dsp.BandAccumulator {
	return dsp.NewBandAccumulator(bands, n, rate, dsp.SumsOf(bandsWindow.Values(n)), w)
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
	res.Decimation = 1
	if o.FFT == 0 {
		res.Decimation = bandsDecimation(bands[0], f.SampleRate)
	}
	split := 0 // bands[:split] are measured decimated
	for split < len(bands) && res.Decimation > 1 && bands[split].Upper <= decimPass*float64(f.SampleRate/res.Decimation) {
		split++
	}
	if split > 0 {
		var warnings []string
		if res.Levels, res.DecimatedFFT, err = bandsDecimated(ctx, in, bands[:split], res.Decimation, samples, o, eng, &warnings); err != nil {
			return res, err
		}
		if split == len(bands) {
			res.Warnings = warnings
			return res, nil
		}
	}
	res.FFT = bandsFFT(o, bands[split], f.SampleRate, samples)
	levels, err := bandsPass(ctx, dec, bands[split:], res.FFT, f.SampleRate, o.Channel, 1, o, eng)
	if errors.Is(err, errNoSamples) {
		return res, inputErrorf("%s: no samples", in)
	}
	res.Levels = append(res.Levels, levels...)
	res.Warnings = dec.Warnings() // the decoder's (a data chunk cut short, say)
	return res, err
}

// errNoSamples is a file that held no samples.
var errNoSamples = errors.New("no samples")

// bandsPass measures bands on dec's stream (channel, at rate Hz) with
// n-point transforms and returns their levels: the stream padded (see
// padDecoder), framed and transformed on eng, folded into the bands and
// averaged over the file's samples (per stream sample: d for a stream
// decimated by d).
func bandsPass(ctx context.Context, dec audio.Decoder, bands []dsp.Band, n, rate, channel, d int, o BandsOptions, eng gpufft.Engine) ([]dsp.BandLevel, error) {
	acc := bandsAccumulator(bands, n, rate, o.Weighting)
	hop := n / 4
	pd := &padDecoder{Decoder: dec, before: int64(n - hop), tail: int64(n - hop), hop: int64(hop)}
	cfg := gpufft.SpectrogramConfig{Size: n, Hop: hop, Window: bandsWindow, Output: gpufft.Power}
	bins := cfg.Bins()
	if _, err := streamRows(ctx, decodedSource(pd, channel), rowsJob{cfg: cfg, total: -1}, eng, func(rows []float32, _ int) error {
		acc.Add(rows, bins)
		return nil
	}); err != nil {
		return nil, err
	}
	samples := pd.read
	if m, ok := dec.(*decimator); ok {
		samples = (m.read + int64(d)/2) / int64(d)
	}
	if samples == 0 {
		return nil, errNoSamples
	}
	binHz := float64(rate) / float64(n)
	var out []dsp.BandLevel
	for i, lv := range acc.LevelsOver(samples, hop) {
		out = append(out, dsp.BandLevel{Band: bands[i], LevelDB: lv, UnderResolved: dsp.UnderResolved(bands[i], binHz)})
	}
	return out, nil
}

// padDecoder is a decoder's stream with before zero samples (per channel)
// in front and, once it ends, tail zeros and as many more as bring the
// file's samples to a whole number of hops: the last frame then ends with
// the padding, so the file's last samples lie in as many frames as every
// other sample (and weigh the same).
type padDecoder struct {
	audio.Decoder
	before, tail, hop int64
	read              int64 // the file's samples per channel so far
	after             int64 // zeros still to come, once the file ended
	ended             bool
}

func (d *padDecoder) Read(dst []float32) (int, error) {
	ch := d.Format().Channels
	if d.before > 0 {
		n := int(min(d.before, int64(len(dst)/ch)))
		clear(dst[:n*ch])
		d.before -= int64(n)
		return n, nil
	}
	if !d.ended {
		n, err := d.Decoder.Read(dst)
		d.read += int64(n)
		if !errors.Is(err, io.EOF) {
			return n, err
		}
		d.ended = true
		d.after = d.tail + (d.hop-d.read%d.hop)%d.hop
		if n > 0 { // the padding follows at the next read
			return n, nil
		}
	}
	if d.after == 0 {
		return 0, io.EOF
	}
	n := int(min(d.after, int64(len(dst)/ch)))
	clear(dst[:n*ch])
	d.after -= int64(n)
	return n, nil
}
