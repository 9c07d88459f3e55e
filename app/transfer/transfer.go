package transfer

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// Options are a measurement's settings (`prism transfer`'s contract).
type Options struct {
	FFT        int         // frame length, a power of two (engine.CheckFFT)
	OverlapPct float64     // frame overlap, 0 ≤ PCT < 100
	Window     window.Func // both channels' window (the zero value is Rect: set Hann)
	Average    dual.TransferAverage
	// Smoothing is the 1/Smoothing-octave smoothing of magnitude and
	// phase (dual.Smoother), or 0 for none. Coherence is not smoothed.
	Smoothing int
	// DelayAuto finds each channel's delay (GCC-PHAT); otherwise DelayMs
	// is the delay taken out of every channel (0: none, the raw phase),
	// reported as given.
	DelayAuto bool
	DelayMs   float64
}

// Hop is the frame step in samples: FFT·(1 − OverlapPct/100), at least 1.
func (o Options) Hop() int {
	return max(1, int(math.Round(float64(o.FFT)*(1-o.OverlapPct/100))))
}

func (o Options) check() error {
	if err := engine.CheckFFT(o.FFT, 1); err != nil {
		return &analysis.InputError{Err: fmt.Errorf("transfer: %w", err)}
	}
	switch {
	case !(o.OverlapPct >= 0 && o.OverlapPct < 100):
		return &analysis.InputError{Err: fmt.Errorf("transfer: overlap %g%% (want 0 ≤ PCT < 100)", o.OverlapPct)}
	case o.Smoothing != 0 && (o.Smoothing < dual.MinSmoothFraction || o.Smoothing > dual.MaxSmoothFraction):
		return &analysis.InputError{Err: fmt.Errorf("transfer: smoothing 1/%d (want 1/%d…1/%d)", o.Smoothing, dual.MaxSmoothFraction, dual.MinSmoothFraction)}
	case math.IsNaN(o.DelayMs) || math.IsInf(o.DelayMs, 0):
		return &analysis.InputError{Err: fmt.Errorf("transfer: delay %v ms", o.DelayMs)}
	}
	return nil
}

// Inputs name the signals: the reference is channel RefChannel of Ref;
// the measurements are Channels (0-based; nil: every other channel) of
// Measurement, or of Ref when Measurement is "".
type Inputs struct {
	Ref         string
	RefChannel  int
	Measurement string
	Channels    []int
}

// Result is a measurement.
type Result struct {
	SampleRate int
	FFT, Hop   int
	Frames     int       // frames averaged per channel
	FreqHz     []float64 // bin k's frequency, k·SampleRate/FFT, k = 0…FFT/2
	Channels   []Channel
	Warnings   []string
}

// Channel is one measurement channel's result, one value per bin in each
// slice.
type Channel struct {
	Index       int       // the channel's index in its file
	MagnitudeDB []float64 // 20·log10|H| (dsp.FloorDB where the reference has no power)
	// PhaseDeg is arg H wrapped to (−180, 180], with the delay (found or
	// given) taken out.
	PhaseDeg  []float64
	Coherence []float64 // γ², 0…1
	// Delay is what the delay finder found (Found false: no clear peak,
	// and no delay is taken out). With a given delay, Delay.Samples is the
	// given one, Found true and Given set; Polarity is then the impulse
	// response's where it has a clear peak, else 0.
	Delay dual.Delay
	Given bool
	// MeanCoherence is the mean γ² of the bins from 20 Hz to 20 kHz (or
	// the Nyquist frequency, if lower).
	MeanCoherence float64
}

// DelayMs is the channel's delay in milliseconds at rate.
func (c Channel) DelayMs(rate int) float64 { return c.Delay.Seconds(float64(rate)) * 1000 }

// maxBatchSamples bounds one Execute's input (all channels) and
// maxRingValues the engine's FIFO (values): a batch is as many frames as
// fit both, at most gpufft.MaxTransferFrames.
const (
	maxBatchSamples = 32 << 20
	maxRingValues   = 64 << 20
)

// AnalyzeFiles decodes the inputs and measures them (AnalyzeSignals).
// Bad input (an undecodable file, a channel it lacks, different sample
// rates) is an *analysis.InputError.
func AnalyzeFiles(ctx context.Context, in Inputs, o Options, eng engine.Pair) (Result, error) {
	if err := o.check(); err != nil {
		return Result{}, err
	}
	ref, refRate, warns, err := readChannels(in.Ref, []int{in.RefChannel}, -1)
	if err != nil {
		return Result{}, err
	}
	measPath, skip := in.Measurement, -1
	if measPath == "" {
		measPath, skip = in.Ref, in.RefChannel
	}
	meas, rate, w2, err := readChannels(measPath, in.Channels, skip)
	if err != nil {
		return Result{}, err
	}
	warns = append(warns, w2...)
	if rate != refRate {
		return Result{}, &analysis.InputError{Err: fmt.Errorf("transfer: the reference is at %d Hz, the measurement at %d Hz", refRate, rate)}
	}
	res, err := AnalyzeSignals(ctx, ref[0].Samples, meas, rate, o, eng)
	res.Warnings = append(warns, res.Warnings...)
	return res, err
}

// Signal is one measurement channel's samples and its index in its file.
type Signal struct {
	Index   int
	Samples []float32
}

// readChannels decodes the channels chans of path (nil: every channel but
// skip).
func readChannels(path string, chans []int, skip int) ([]Signal, int, []string, error) {
	if chans == nil {
		d, err := audio.Open(path)
		if err != nil {
			return nil, 0, nil, &analysis.InputError{Err: fmt.Errorf("transfer: %w", err)}
		}
		n := d.Format().Channels
		d.Close()
		for c := range n {
			if c != skip {
				chans = append(chans, c)
			}
		}
		if len(chans) == 0 {
			return nil, 0, nil, &analysis.InputError{Err: fmt.Errorf("transfer: %s has no channel besides the reference", path)}
		}
	}
	samples, f, warnings, err := audio.ReadChannels(path, chans)
	if err != nil {
		return nil, 0, nil, &analysis.InputError{Err: fmt.Errorf("transfer: %w", err)}
	}
	out := make([]Signal, len(chans))
	for i, c := range chans {
		out[i] = Signal{Index: c, Samples: samples[i]}
	}
	return out, f.SampleRate, warnings, nil
}

// AnalyzeSignals measures the measurement channels meas against the
// reference ref (samples at rate Hz; the shortest length counts) on the
// engines, with the one GPU→CPU fallback of the file pipelines.
func AnalyzeSignals(ctx context.Context, ref []float32, meas []Signal, rate int, o Options, eng engine.Pair) (Result, error) {
	if err := o.check(); err != nil {
		return Result{}, err
	}
	if len(meas) == 0 {
		return Result{}, &analysis.InputError{Err: errors.New("transfer: no measurement channel")}
	}
	if rate <= 0 {
		return Result{}, &analysis.InputError{Err: fmt.Errorf("transfer: sample rate %d", rate)}
	}
	length := len(ref)
	for _, m := range meas {
		length = min(length, len(m.Samples))
	}
	if length < o.FFT {
		return Result{}, &analysis.InputError{Err: fmt.Errorf("transfer: %d samples, fewer than one frame of %d", length, o.FFT)}
	}
	res, notice, err := engine.WithFallback(ctx, eng, func(e gpufft.Engine) (Result, error) {
		return measure(ctx, e, ref[:length], meas, length, rate, o)
	})
	if notice != "" {
		res.Warnings = append(res.Warnings, notice)
	}
	return res, err
}

// measure runs the passes on one engine.
func measure(ctx context.Context, e gpufft.Engine, ref []float32, meas []Signal, length, rate int, o Options) (Result, error) {
	te, ok := e.(gpufft.TransferEngine)
	if !ok {
		return Result{}, fmt.Errorf("transfer: the %s engine has no transfer plans", e.Name())
	}
	hop, bins, m := o.Hop(), o.FFT/2+1, len(meas)
	res := Result{SampleRate: rate, FFT: o.FFT, Hop: hop, FreqHz: make([]float64, bins), Channels: make([]Channel, m)}
	binHz := float64(rate) / float64(o.FFT)
	for k := range bins {
		res.FreqHz[k] = float64(k) * binHz
	}
	shifts := make([]int, m)
	spectra, frames, err := average(ctx, te, ref, meas, shifts, length, o)
	if err != nil {
		return res, err
	}
	delays := make([]dual.Delay, m)
	if o.DelayAuto {
		finder := dual.NewDelayFinder(bins)
		realign := false
		for c := range m {
			delays[c] = finder.Find(spectra[c].Gxy, true)
			if delays[c].Found {
				shifts[c] = int(math.Round(delays[c].Samples))
				realign = realign || shifts[c] != 0
			}
		}
		if realign {
			if spectra, frames, err = average(ctx, te, ref, meas, shifts, length, o); err != nil {
				return res, err
			}
		}
	} else {
		d := o.DelayMs / 1000 * float64(rate)
		for c := range m {
			delays[c] = dual.Delay{Found: true, Samples: d}
			shifts[c] = int(math.Round(d))
		}
		if shifts[0] != 0 {
			if spectra, frames, err = average(ctx, te, ref, meas, shifts, length, o); err != nil {
				return res, err
			}
		}
	}
	res.Frames = frames
	var sm *dual.Smoother
	if o.Smoothing != 0 {
		if sm, err = dual.NewSmoother(bins, o.Smoothing); err != nil {
			return res, &analysis.InputError{Err: err}
		}
	}
	for c := range m {
		ch := describe(spectra[c], o, sm, binHz, (delays[c].Samples-float64(shifts[c]))/float64(rate))
		ch.Index, ch.Delay, ch.Given = meas[c].Index, delays[c], !o.DelayAuto
		if ch.Given {
			// the polarity of a given delay is still the impulse
			// response's, when it has a clear peak (else 0)
			if d := dual.NewDelayFinder(bins).Find(spectra[c].Gxy, true); d.Found {
				ch.Delay.Polarity = d.Polarity
			}
		}
		ch.MeanCoherence = meanCoherence(ch.Coherence, binHz)
		res.Channels[c] = ch
	}
	return res, nil
}

// describe turns a channel's averaged spectra into its traces, with
// residual seconds of delay (what the whole-sample alignment left) taken
// out of the phase.
func describe(s dual.CrossSpectra, o Options, sm *dual.Smoother, binHz, residual float64) Channel {
	bins := s.Bins()
	ch := Channel{MagnitudeDB: make([]float64, bins), PhaseDeg: make([]float64, bins), Coherence: make([]float64, bins)}
	h := make([]complex128, bins)
	s.Response(h, o.Average)
	s.Coherence(ch.Coherence)
	dual.RemoveDelay(h, h, binHz, residual)
	pow := make([]float64, bins)
	for k, v := range h {
		pow[k] = real(v)*real(v) + imag(v)*imag(v)
	}
	if sm != nil {
		sm.Power(pow, pow)
		sm.Complex(h, h)
	}
	for k := range h {
		ch.MagnitudeDB[k] = dual.PowerRatioDB(pow[k])
		ch.PhaseDeg[k] = dual.PhaseDeg(h[k])
	}
	return ch
}

// meanCoherence is the mean γ² from 20 Hz to 20 kHz (or the top bin).
func meanCoherence(coh []float64, binHz float64) float64 {
	sum, n := 0.0, 0
	for k, v := range coh {
		if f := float64(k) * binHz; f >= 20 && f <= 20000 && k < len(coh)-1 {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// average runs every frame of the signals through a transfer plan on te
// (measurement channel c advanced by shifts[c] samples, zero past its
// ends) and returns each channel's mean spectra over all frames, in
// float64, and the frame count. Batches hold B frames, the plan's FIFO
// as many, so each Read is one batch's mean; a shorter last batch runs on
// a plan of its own length.
func average(ctx context.Context, te gpufft.TransferEngine, ref []float32, meas []Signal, shifts []int, length int, o Options) ([]dual.CrossSpectra, int, error) {
	n, hop, m, bins := o.FFT, o.Hop(), len(meas), o.FFT/2+1
	total := (length-n)/hop + 1
	batch := min(gpufft.MaxTransferFrames, total,
		max(1, (maxBatchSamples/(1+m)-n)/hop+1),
		max(1, maxRingValues/(gpufft.TransferValues*m*bins)))
	sums := make([]float64, m*bins*gpufft.TransferValues)
	src := make([]float32, (1+m)*((batch-1)*hop+n))
	dst := make([]float32, m*bins*gpufft.TransferValues)
	var plan gpufft.TransferPlan
	defer func() {
		if plan != nil {
			plan.Close()
		}
	}()
	for first := 0; first < total; first += batch {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		frames := min(batch, total-first)
		if plan == nil || plan.Config().Frames != frames {
			if plan != nil {
				plan.Close()
			}
			cfg := gpufft.TransferConfig{Size: n, Hop: hop, Window: o.Window, Channels: m,
				MaxSamples: (frames-1)*hop + n, Frames: frames}
			p, err := te.NewTransfer(cfg)
			if err != nil {
				return nil, 0, &engine.Error{Err: err}
			}
			plan = p
		}
		l := (frames-1)*hop + n
		in := src[:(1+m)*l]
		start := first * hop
		copy(in[:l], ref[start:start+l])
		for c, s := range meas {
			fill(in[(1+c)*l:(2+c)*l], s.Samples[:length], start+shifts[c])
		}
		if _, err := plan.Execute(in); err != nil {
			return nil, 0, &engine.Error{Err: err}
		}
		if err := plan.Read(dst); err != nil {
			return nil, 0, &engine.Error{Err: err}
		}
		for i, v := range dst {
			sums[i] += float64(v) * float64(frames)
		}
	}
	out := make([]dual.CrossSpectra, m)
	for c := range m {
		s := dual.NewCrossSpectra(bins)
		for k := range bins {
			v := sums[(c*bins+k)*gpufft.TransferValues:]
			t := float64(total)
			s.Gxy[k] = complex(v[gpufft.TransferGxyRe]/t, v[gpufft.TransferGxyIm]/t)
			s.Gxx[k], s.Gyy[k] = v[gpufft.TransferGxx]/t, v[gpufft.TransferGyy]/t
		}
		out[c] = s
	}
	return out, total, nil
}

// fill copies x[from : from+len(dst)] into dst, zeros where that runs
// past either end of x.
func fill(dst, x []float32, from int) {
	for i := range dst {
		if j := from + i; j >= 0 && j < len(x) {
			dst[i] = x[j]
		} else {
			dst[i] = 0
		}
	}
}
