package dsp

import (
	"fmt"
	"math"
)

// FIR design targets: the stop band holds 60 dB (designed for 65) from one
// transition width beyond each edge; the pass band ripples ≤ 0.1 dB (a
// Kaiser design for 65 dB ripples about 0.005 dB).
const (
	firAttenuationDB = 65
	// MaxFIRTaps is the longest filter PlanFIR designs.
	MaxFIRTaps = 1<<19 - 1
)

// DefaultTransitionOct is the band filters' transition width beyond each
// edge, in octaves, unless `prism filter --transition` says otherwise.
const DefaultTransitionOct = 1.0 / 6

// FIRPlan is a Kaiser-window design of a band filter: its length and the
// window's shape, fixed before the window samples are made. Coefficients
// then gives the taps.
type FIRPlan struct {
	Band BandSpec
	Rate int
	Taps int     // odd; the delay is (Taps−1)/2 samples
	Beta float64 // the Kaiser window's shape parameter
	dw   float64 // the narrowest transition, Hz
}

// PlanFIR designs an odd-length, linear-phase (symmetric) FIR for b at
// rate Hz: a Kaiser-windowed ideal response whose length gives the required
// attenuation over the narrowest transition, a transition being
// transitionOct octaves wide outside a pass band's edge (inside a stop
// band's edge, for bandstop).
func PlanFIR(b BandSpec, rate int, transitionOct float64) (FIRPlan, error) {
	if !(transitionOct > 0 && transitionOct <= 2) {
		return FIRPlan{}, fmt.Errorf("transition %g octaves: want 0 < t ≤ 2", transitionOct)
	}
	if err := b.Check(rate); err != nil {
		return FIRPlan{}, err
	}
	up := func(f float64) float64 { return f * (math.Pow(2, transitionOct) - 1) }    // edge → higher
	down := func(f float64) float64 { return f * (1 - math.Pow(2, -transitionOct)) } // edge → lower
	fs := float64(rate)
	var widths []float64
	switch b.Kind {
	case Lowpass:
		widths = []float64{up(b.Hi)}
	case Highpass:
		widths = []float64{down(b.Lo)}
	case Bandpass:
		widths = []float64{down(b.Lo), up(b.Hi)}
	case Bandstop:
		widths = []float64{up(b.Lo), down(b.Hi)}
		if b.Lo+up(b.Lo) >= b.Hi-down(b.Hi) {
			return FIRPlan{}, fmt.Errorf("band %q: the stop band is narrower than two transitions of %g octave", b.Text, transitionOct)
		}
	default:
		return FIRPlan{}, fmt.Errorf("band %q: no filter", b.Text)
	}
	dw := math.Inf(1)
	for _, w := range widths {
		dw = min(dw, w)
	}
	if b.Hi > 0 && b.Hi+dw >= fs/2 && (b.Kind == Lowpass || b.Kind == Bandpass) {
		dw = min(dw, (fs/2-b.Hi)*0.999)
	}
	m := int(math.Ceil((firAttenuationDB-7.95)/(2.285*2*math.Pi*dw/fs))) + 1
	m |= 1
	if m > MaxFIRTaps {
		return FIRPlan{}, fmt.Errorf("band %q at %d Hz needs %d taps (at most %d): widen --transition or move the edge up", b.Text, rate, m, MaxFIRTaps)
	}
	return FIRPlan{Band: b, Rate: rate, Taps: m, Beta: 0.1102 * (firAttenuationDB - 8.7), dw: dw}, nil
}

// Coefficients returns the taps, given kaiser: the periodic Kaiser window
// of Taps−1 samples with shape Beta (which is the symmetric window of Taps
// samples without its last point; gpufft.Window makes it). It panics if
// len(kaiser) is not Taps−1.
func (p FIRPlan) Coefficients(kaiser []float64) []float64 {
	m := p.Taps
	if len(kaiser) != m-1 {
		panic("dsp: FIRPlan.Coefficients: the window is not Taps−1 samples")
	}
	fs := float64(p.Rate)
	d := float64(m-1) / 2
	lp := func(c float64, n int) float64 { // ideal lowpass at c Hz, centred
		x := float64(n) - d
		if x == 0 {
			return 2 * c / fs
		}
		return math.Sin(2*math.Pi*c*x/fs) / (math.Pi * x)
	}
	delta := func(n int) float64 {
		if float64(n) == d {
			return 1
		}
		return 0
	}
	b, half := p.Band, p.dw/2
	h := make([]float64, m)
	for n := range m {
		var v float64
		switch b.Kind {
		case Lowpass:
			v = lp(b.Hi+half, n)
		case Highpass:
			v = delta(n) - lp(b.Lo-half, n)
		case Bandpass:
			v = lp(b.Hi+half, n) - lp(b.Lo-half, n)
		case Bandstop:
			v = delta(n) - (lp(b.Hi-half, n) - lp(b.Lo+half, n))
		}
		w := kaiser[0] // the symmetric window's last point equals its first
		if n < m-1 {
			w = kaiser[n]
		}
		h[n] = v * w
	}
	return h
}

// FIRResponse is |H(f)| of taps h at rate Hz, evaluated in float64.
func FIRResponse(h []float64, f float64, rate int) float64 {
	var re, im float64
	for n, v := range h {
		s, c := math.Sincos(2 * math.Pi * f * float64(n) / float64(rate))
		re += v * c
		im -= v * s
	}
	return math.Hypot(re, im)
}

// PowerGains returns |H(f_k)|² of taps h at the n-point FFT's bin centres
// (N/2+1 values): the per-bin power gains that show a spectrum as
// filtered.
func PowerGains(h []float64, rate, n int) []float32 {
	g := make([]float32, n/2+1)
	for k := range g {
		a := FIRResponse(h, float64(k)*float64(rate)/float64(n), rate)
		g[k] = float32(a * a)
	}
	return g
}

// BandFIR returns the taps of band's linear-phase filter at rate Hz with
// transition transitionOct (octaves): the one design of `prism filter`,
// the live band display and the playthrough.
func BandFIR(band BandSpec, rate int, transitionOct float64) ([]float64, error) {
	p, err := PlanFIR(band, rate, transitionOct)
	if err != nil {
		return nil, err
	}
	return p.Coefficients(kaiserWindow(p.Taps-1, p.Beta)), nil
}

// BandGains returns the band filter's |H|² at the n-point FFT's bins (nil
// for no band): what the live display multiplies spectra by.
func BandGains(band BandSpec, rate, n int) ([]float32, error) {
	if band.IsZero() {
		return nil, nil
	}
	h, err := BandFIR(band, rate, DefaultTransitionOct)
	if err != nil {
		return nil, err
	}
	return PowerGains(h, rate, n), nil
}

// BandTaps is BandFIR in float32: the taps an engine convolves with
// (DefaultTransitionOct: the filter the live display and the playthrough
// share).
func BandTaps(band BandSpec, rate int, transitionOct float64) ([]float32, error) {
	h, err := BandFIR(band, rate, transitionOct)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(h))
	for i, v := range h {
		out[i] = float32(v)
	}
	return out, nil
}
