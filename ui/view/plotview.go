package view

import "math"

// PlotView is how the spectra are shown beyond the dB range (the window's
// dB range, which a zoom changes freely): the frequency range (0 for
// an end: the full axis's, 20 Hz or 0 … Nyquist) and the 1/N-octave
// smoothing of the traces (0 off; SmoothingFractions).
type PlotView struct {
	FreqMin, FreqMax float64 // Hz
	Smoothing        int
}

// Sane is v without what no longer makes sense: a frequency range out of
// order or out of bounds reads as the full axis, a smoothing not among
// SmoothingFractions as none.
func (v PlotView) Sane() PlotView {
	ok := func(f float64) bool { return f >= 0 && f < 1e7 && !math.IsNaN(f) }
	if !ok(v.FreqMin) || !ok(v.FreqMax) || (v.FreqMax > 0 && v.FreqMin >= v.FreqMax) {
		v.FreqMin, v.FreqMax = 0, 0
	}
	found := false
	for _, f := range SmoothingFractions {
		found = found || f == v.Smoothing
	}
	if !found {
		v.Smoothing = 0
	}
	return v
}
