package room

import (
	"errors"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
)

// Options choose the bands.
type Options struct {
	// Fraction is 1 (octave bands) or 3 (third-octave bands).
	Fraction int
	// LowHz and HighHz bound the bands' nominal mid-band frequencies
	// (0: 63 Hz…8 kHz for octaves, 50 Hz…10 kHz for thirds); bands
	// whose upper edge reaches Nyquist are left out.
	LowHz, HighHz float64
}

// Evaluation ranges (dB below the start of the Schroeder decay) and the
// impulse-to-noise ratios they need (ISO 3382-1 5.3.3 and A.2).
const (
	edtTop, edtBottom = 0, -10
	t20Top, t20Bottom = -5, -25
	t30Top, t30Bottom = -5, -35
	edtINR, t20INR    = 20, 35
	t30INR            = 45
)

// Params are one band's (or the broadband response's) parameters.
// A time whose evaluation range is not covered is NaN.
type Params struct {
	CenterHz      float64 // nominal mid-band frequency; 0 for broadband
	EDT, T20, T30 float64 // seconds
	C50, C80      float64 // dB
	D50           float64 // percent
	// RT20 and RT30 are the Pearson correlation coefficients of the
	// T20 and T30 regressions (−1 for a perfectly straight decay).
	RT20, RT30 float64
	// INR is the impulse-to-noise ratio, dB: the decay's level at the
	// onset (the whole energy times the late decay's rate) over the noise
	// floor Lundeby's iteration found.
	INR float64
	// CrossS is the truncation point (the late decay meets the noise),
	// seconds after the onset.
	CrossS float64
	// Decay is the Schroeder curve in dB re its start, one value per
	// DecayStep seconds from the onset to the truncation point.
	Decay []float64
}

// DecayStep is the time step of Params.Decay, seconds.
const DecayStep = 0.001

// Result is a response's analysis.
type Result struct {
	Rate      int
	OnsetS    float64 // the onset, seconds from the file's start
	Bands     []Params
	Broadband Params
}

// Analyze computes the parameters of ir (samples at rate Hz).
func Analyze(ir []float64, rate int, o Options) (Result, error) {
	if rate <= 0 {
		return Result{}, fmt.Errorf("room: sample rate %d", rate)
	}
	bands, err := o.bands(rate)
	if err != nil {
		return Result{}, err
	}
	onset, err := Onset(ir)
	if err != nil {
		return Result{}, err
	}
	res := Result{Rate: rate, OnsetS: float64(onset) / float64(rate)}
	res.Broadband = analyzeEnergy(squares(ir[onset:]), rate)
	bp := newBandFilter(len(ir), rate)
	band := make([]float64, len(ir))
	for _, b := range bands {
		bp.apply(band, ir, rate, b.Lower, b.Upper)
		p := analyzeEnergy(squares(band[onset:]), rate)
		p.CenterHz = b.Nominal
		res.Bands = append(res.Bands, p)
	}
	return res, nil
}

// bands are the options' bands at rate.
func (o Options) bands(rate int) ([]dsp.Band, error) {
	lo, hi := o.LowHz, o.HighHz
	switch o.Fraction {
	case 1:
		lo, hi = orDefault(lo, 63), orDefault(hi, 8000)
	case 3:
		lo, hi = orDefault(lo, 50), orDefault(hi, 10000)
	default:
		return nil, fmt.Errorf("room: bands of 1/%d octave (want 1 or 3)", o.Fraction)
	}
	if !(lo > 0 && hi >= lo) {
		return nil, fmt.Errorf("room: band range %g…%g Hz", lo, hi)
	}
	return dsp.Bands(o.Fraction, lo, hi, float64(rate)/2)
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

// Onset is the index where ir² first rises to 20 dB below its peak (ISO
// 3382-1 A.3.4).
func Onset(ir []float64) (int, error) {
	peak := 0.0
	for _, v := range ir {
		peak = max(peak, v*v)
	}
	if !(peak > 0) || math.IsInf(peak, 0) {
		return 0, errors.New("room: the impulse response is silent or not finite")
	}
	for i, v := range ir {
		if v*v >= peak/100 {
			return i, nil
		}
	}
	return 0, nil
}

func squares(x []float64) []float64 {
	e := make([]float64, len(x))
	for i, v := range x {
		e[i] = v * v
	}
	return e
}

// analyzeEnergy computes the parameters of the squared response e (from
// the onset).
func analyzeEnergy(e []float64, rate int) Params {
	nan := math.NaN()
	p := Params{EDT: nan, T20: nan, T30: nan, C50: nan, C80: nan, D50: nan, RT20: nan, RT30: nan, INR: nan, CrossS: nan}
	l, ok := lundeby(e, rate)
	if !ok {
		return p
	}
	fs := float64(rate)
	s := schroeder(e[:l.cross], l.tail)
	// the decay's level at the onset is the one an exponential of the
	// late slope with the whole energy s[0] starts at: robust where the
	// envelope's first values fluctuate
	p.INR, p.CrossS = 10*math.Log10(s[0]*l.rate/fs/l.noise), float64(l.cross)/fs
	if p.INR >= edtINR {
		p.EDT, _ = decayTime(s, fs, edtTop, edtBottom)
	}
	if p.INR >= t20INR {
		p.T20, p.RT20 = decayTime(s, fs, t20Top, t20Bottom)
	}
	if p.INR >= t30INR {
		p.T30, p.RT30 = decayTime(s, fs, t30Top, t30Bottom)
	}
	total := s[0]
	early := func(ms float64) float64 {
		n := min(int(math.Round(ms*fs/1000)), len(s))
		if n == len(s) {
			return total - l.tail
		}
		return total - s[n]
	}
	e50, e80 := early(50), early(80)
	p.C50 = 10 * math.Log10(e50/(total-e50))
	p.C80 = 10 * math.Log10(e80/(total-e80))
	p.D50 = 100 * e50 / total
	step := max(1, int(math.Round(DecayStep*fs)))
	for i := 0; i < len(s); i += step {
		p.Decay = append(p.Decay, 10*math.Log10(s[i]/total))
	}
	return p
}

// schroeder is the backward integral of e plus the energy after it
// (tail): s[n] = tail + Σ_{m ≥ n} e[m].
func schroeder(e []float64, tail float64) []float64 {
	s := make([]float64, len(e))
	acc := tail
	for n := len(e) - 1; n >= 0; n-- {
		acc += e[n]
		s[n] = acc
	}
	return s
}

// decayTime fits a line to the Schroeder curve s (energies) where it lies
// between top and bottom dB re s[0], and returns the time for 60 dB of
// that slope and the fit's correlation coefficient; NaN when fewer than
// two points lie there or the curve never reaches bottom.
func decayTime(s []float64, rate, top, bottom float64) (t60, r float64) {
	var fit linearFit
	reached := false
	for n, v := range s {
		db := 10 * math.Log10(v/s[0])
		if db > top {
			continue
		}
		if db < bottom {
			reached = true
			break
		}
		fit.add(float64(n)/rate, db)
	}
	slope, corr, ok := fit.line()
	if !reached || !ok || !(slope < 0) {
		return math.NaN(), math.NaN()
	}
	return -60 / slope, corr
}
