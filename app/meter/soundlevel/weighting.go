package soundlevel

import (
	"math"

	"github.com/prismaudio/prism/app/dsp"
)

// The A and C weightings' poles (IEC 61672-1 Annex E, Hz).
const (
	poleF1 = 20.598997057568145
	poleF2 = 107.65264864304628
	poleF3 = 737.86223074017
	poleF4 = 12194.21714799801
)

// maxSections is the most first-order sections a weighting takes (A: 6).
const maxSections = 6

// section is a first-order IIR section y = b0·x + b1·x₁ − a1·y₁.
type section struct{ b0, b1, a1 float64 }

// filter is a frequency weighting as a cascade of first-order sections
// from the analog definition's factors (the high-pass ones by the
// bilinear transform, pre-warped so each corner sits at its analog
// frequency), scaled to 0 dB at 1 kHz. Z is no sections.
type filter struct {
	sec   [maxSections]section
	n     int
	gain  float64
	state [maxSections][2]float64 // x₁, y₁ of each section
}

// newFilter designs weighting w at sampleRate Hz: A is
// s⁴/((s+ω1)²(s+ω2)(s+ω3)(s+ω4)²), C is s²/((s+ω1)²(s+ω4)²).
func newFilter(w dsp.Weighting, sampleRate float64) filter {
	var f filter
	k := 2 * sampleRate
	warp := func(hz float64) float64 { return k * math.Tan(math.Pi*hz/sampleRate) }
	high := func(hz float64) { // s/(s+ω)
		wd := warp(hz)
		f.sec[f.n] = section{k / (k + wd), -k / (k + wd), (wd - k) / (k + wd)}
		f.n++
	}
	// The double low-pass pole (12.2 kHz) is one bilinear section, its
	// corner placed so that it matches the analog section at fitHz, and
	// one matched section (z = e^(−ω/fs), no zero): two bilinear sections
	// (zeros at Nyquist) would read 1.6 dB low at 12.5 kHz and 14 dB at
	// 20 kHz (48 kHz), two matched ones 1.7 and 4.5 dB high; one of each
	// stays within IEC 61672-1's class 1 limits from 44.1 kHz up (pinned
	// by TestWeightingResponse).
	fitHz := min(8000, 0.2*sampleRate)
	lowBilinear := func(hz float64) { // ω/(s+ω)
		wd := warp(fitHz) * hz / fitHz
		f.sec[f.n] = section{wd / (k + wd), wd / (k + wd), (wd - k) / (k + wd)}
		f.n++
	}
	lowMatched := func(hz float64) {
		p := math.Exp(-2 * math.Pi * hz / sampleRate)
		f.sec[f.n] = section{1 - p, 0, -p}
		f.n++
	}
	switch w {
	case dsp.WeightA:
		high(poleF1)
		high(poleF1)
		high(poleF2)
		high(poleF3)
		lowBilinear(poleF4)
		lowMatched(poleF4)
	case dsp.WeightC:
		high(poleF1)
		high(poleF1)
		lowBilinear(poleF4)
		lowMatched(poleF4)
	}
	f.gain = 1
	if g := f.response(1000, sampleRate); g > 0 {
		f.gain = 1 / g
	}
	return f
}

// response is the cascade's magnitude at hz (before the 1-kHz scaling).
func (f *filter) response(hz, sampleRate float64) float64 {
	zr, zi := math.Cos(2*math.Pi*hz/sampleRate), -math.Sin(2*math.Pi*hz/sampleRate) // z⁻¹
	g := 1.0
	for _, s := range f.sec[:f.n] {
		nr, ni := s.b0+s.b1*zr, s.b1*zi
		dr, di := 1+s.a1*zr, s.a1*zi
		g *= math.Hypot(nr, ni) / math.Hypot(dr, di)
	}
	return g
}

// GainDB is the digital weighting's gain at hz, in dB (what the meter
// applies; compare dsp.Weighting.GainDB, the analog definition).
func GainDB(w dsp.Weighting, hz, sampleRate float64) float64 {
	f := newFilter(w, sampleRate)
	return 20 * math.Log10(f.gain*f.response(hz, sampleRate))
}

// run filters x in place, section after section over the whole block
// (each section's state stays in registers through its loop), then
// scales it.
func (f *filter) run(x []float64) {
	for i := range f.n {
		s, st := f.sec[i], &f.state[i]
		x1, y1 := st[0], st[1]
		for k, v := range x {
			y := s.b0*v + s.b1*x1 - s.a1*y1
			x1, y1 = v, y
			x[k] = y
		}
		st[0], st[1] = x1, y1
	}
	for k := range x {
		x[k] *= f.gain
	}
}

func (f *filter) reset() { f.state = [maxSections][2]float64{} }
