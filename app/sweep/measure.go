package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
)

// MaxHarmonic is the highest harmonic order whose impulse response is
// separated.
const MaxHarmonic = 9

// Options choose what Analyze derives beyond the impulse responses and the
// summary.
type Options struct {
	Distortion bool // harmonic distortion versus frequency (Result.Distortion)
	CSD        bool // cumulative spectral decay (Result.CSD)
}

// Result is a deconvolved sweep recording. Its slices are the caller's.
type Result struct {
	Rate int // Hz
	// IR is the linear impulse response from Zero samples before lag 0 —
	// lag 0 being the sweep's start in the recording or, with a reference
	// channel, in the reference — to the last lag the recording covers
	// whole (its tail after the sweep): the deconvolution itself,
	// unwindowed, 1.0 being unity gain. The samples before lag 0 hold the
	// band-limited impulse's leading half (Zero = Pre[1]).
	IR   []float64
	Zero int
	// Peak is the index in IR of the response's largest magnitude.
	Peak int
	// Harmonics[k−2] is harmonic k's impulse response (k = 2…MaxHarmonic):
	// the deconvolution from Pre[k] samples before its impulse, which comes
	// L·ln k before the linear one's (at the measured latency), to Pre[k−1]
	// samples before harmonic k−1's. Pre[1] is the linear one's.
	Harmonics [][]float64
	Pre       [MaxHarmonic + 1]int
	// LatencySamples is the lag of the linear impulse response's peak
	// (parabolic interpolation of |IR|): with a reference, after the
	// reference's own latency, RefLatencySamples, is taken out.
	LatencySamples    float64
	RefLatencySamples float64
	HasRef            bool
	PeakDBFS          float64 // the peak's level, 20·log10|IR[peak]|
	SNRDB             float64 // the peak over the RMS of the IR's last tenth (+Inf when that is 0)
	Polarity          int     // the peak's sign: +1 or −1
	Distortion        *Distortion
	CSD               *CSD
}

// LatencyMs is LatencySamples in milliseconds.
func (r Result) LatencyMs() float64 { return r.LatencySamples / float64(r.Rate) * 1000 }

// InputError is a recording the sweep cannot be found in (too short, a
// different rate, silent).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Analyze deconvolves rec, a recording at spec.Rate of the sweep spec
// describes (Signal played from the recording's start), into the linear
// and harmonic impulse responses and their summary, on the engines with
// package engine's one GPU→CPU fallback (the notice says so). ref, when
// not nil, is a loopback channel of the same recording (the same length):
// the timing reference. Bad input is an *InputError.
func Analyze(ctx context.Context, eng engine.Pair, spec Spec, rec, ref []float32, o Options) (Result, string, error) {
	if err := spec.Check(); err != nil {
		return Result{}, "", &InputError{err}
	}
	if ref != nil && len(ref) != len(rec) {
		return Result{}, "", &InputError{fmt.Errorf("sweep: the reference has %d samples, the measurement %d", len(ref), len(rec))}
	}
	need := spec.LeadSamples() + spec.SweepSamples() + 1
	if len(rec) < need {
		return Result{}, "", &InputError{fmt.Errorf("sweep: the recording has %d samples (%.3f s); the sweep with its lead-in needs %d (%.3f s)",
			len(rec), float64(len(rec))/float64(spec.Rate), need, float64(need)/float64(spec.Rate))}
	}
	return engine.WithFallback(ctx, eng, func(e gpufft.Engine) (Result, error) {
		return analyze(ctx, e, spec, rec, ref, o)
	})
}

// layout is where things are in the deconvolution.
type layout struct {
	zero  int     // the index of lag 0: SweepSamples−1 + LeadSamples
	lead  float64 // L·Rate: harmonic k's impulse is lead·ln k samples early
	irLen int     // lags 0…irLen−1 are covered whole by the recording
}

func newLayout(spec Spec, recLen int) layout {
	return layout{zero: spec.SweepSamples() - 1 + spec.LeadSamples(), lead: spec.Exp().L() * float64(spec.Rate),
		irLen: recLen - spec.LeadSamples() - spec.SweepSamples() + 1}
}

// pre is how far before harmonic k's impulse its window starts: a tenth
// of the way to harmonic k+1's.
func (l layout) pre(k int) int {
	return int(math.Ceil(0.1 * l.lead * math.Log(float64(k+1)/float64(k))))
}

// harmonicAt is the index of harmonic k's impulse for a linear one at lag d.
func (l layout) harmonicAt(k, d int) int {
	return l.zero + d - int(math.Round(l.lead*math.Log(float64(k))))
}

func analyze(ctx context.Context, e gpufft.Engine, spec Spec, rec, ref []float32, o Options) (Result, error) {
	l := newLayout(spec, len(rec))
	c, err := newConvolver(e, spec.Inverse(), len(rec))
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	// the lags needed: from before the highest harmonic's window at lag 0
	// to the end of the linear response
	from := max(0, l.harmonicAt(MaxHarmonic, 0)-l.pre(MaxHarmonic)-1)
	to := l.zero + l.irLen
	res := Result{Rate: spec.Rate, HasRef: ref != nil}
	shift := 0
	if ref != nil {
		d, err := c.convolve(ref, l.zero, to)
		if err != nil {
			return Result{}, err
		}
		p, ok := peak(d)
		if !ok {
			return Result{}, &InputError{errors.New("sweep: the reference channel is silent")}
		}
		res.RefLatencySamples = p.lag
		shift = int(math.Round(p.lag))
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	y, err := c.convolve(rec, from, to)
	if err != nil {
		return Result{}, err
	}
	if err := res.describe(y, from, l, shift); err != nil {
		return Result{}, err
	}
	if o.Distortion {
		if res.Distortion, err = distortion(e, spec, res); err != nil {
			return Result{}, err
		}
	}
	if o.CSD {
		if res.CSD, err = csd(e, spec, res.IR, res.Peak); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// describe fills the responses and the summary from y, the deconvolution
// from index from, the reference's latency being shift samples.
func (r *Result) describe(y []float32, from int, l layout, shift int) error {
	lin := y[l.zero-from:]
	p, ok := peak(lin)
	if !ok {
		return &InputError{errors.New("sweep: the recording is silent")}
	}
	r.LatencySamples = p.lag - r.RefLatencySamples
	r.Peak = int(math.Round(p.lag)) - shift + l.pre(1)
	r.PeakDBFS = 20 * math.Log10(math.Abs(p.value))
	r.Polarity = 1
	if p.value < 0 {
		r.Polarity = -1
	}
	r.Zero = l.pre(1)
	irLen := max(1, len(lin)-shift) + r.Zero
	r.IR = make([]float64, irLen)
	for i := range r.IR {
		if j := l.zero - from + shift - r.Zero + i; j >= 0 && j < len(y) {
			r.IR[i] = float64(y[j])
		}
	}
	tail := r.IR[irLen-max(1, irLen/10):]
	var s float64
	for _, v := range tail {
		s += v * v
	}
	r.SNRDB = 20*math.Log10(math.Abs(p.value)) - 10*math.Log10(s/float64(len(tail)))
	d := int(math.Round(p.lag))
	for k := 1; k <= MaxHarmonic; k++ {
		r.Pre[k] = l.pre(k)
	}
	r.Harmonics = make([][]float64, MaxHarmonic-1)
	for k := 2; k <= MaxHarmonic; k++ {
		lo := l.harmonicAt(k, d) - r.Pre[k] - from
		hi := l.harmonicAt(k-1, d) - r.Pre[k-1] - from
		h := make([]float64, hi-lo)
		for i := range h {
			if j := lo + i; j >= 0 && j < len(y) {
				h[i] = float64(y[j])
			}
		}
		r.Harmonics[k-2] = h
	}
	return nil
}

// peakOf is a response's largest |value| and its lag (parabolic).
type peakOf struct {
	lag   float64
	value float64
}

// peak finds x's largest magnitude; false when x is silent.
func peak(x []float32) (peakOf, bool) {
	best, at := float32(0), -1
	for i, v := range x {
		if a := float32(math.Abs(float64(v))); a > best {
			best, at = a, i
		}
	}
	if at < 0 || best == 0 || math.IsNaN(float64(best)) || math.IsInf(float64(best), 0) {
		return peakOf{}, false
	}
	p := peakOf{lag: float64(at), value: float64(x[at])}
	if at > 0 && at < len(x)-1 {
		a, b, c := math.Abs(float64(x[at-1])), float64(best), math.Abs(float64(x[at+1]))
		if den := a - 2*b + c; den < 0 {
			p.lag += 0.5 * (a - c) / den
		}
	}
	return p, true
}
