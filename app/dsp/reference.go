// Reference traces: a named spectrum (frequency, level) or transfer
// function (and phase, coherence) kept to compare others against, with
// its unit and how it was measured (its files: reference_read.go,
// reference_write.go; ui/view converts it onto an axis of another unit).

package dsp

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Trace is a named spectrum: Level[i] (dB, any unit) at FreqHz[i] (≥ 0,
// increasing). A level may be −Inf (a silent bin), never NaN.
//
// A trace of a transfer function (a dual-channel measurement) has Level
// the magnitude in dB and PhaseDeg and Coherence set too (the same
// length as FreqHz; nil for a spectrum). Unit names Level's unit as the
// axes name it ("dBFS", "dBFS/Hz", "dB SPL", "dB" for a transfer
// function); "" is a trace of unknown unit (an old file).
type Trace struct {
	Name      string
	FreqHz    []float64
	Level     []float64
	Unit      string
	PhaseDeg  []float64 // transfer function: phase, degrees; nil for a spectrum
	Coherence []float64 // transfer function: γ² in 0…1; nil for a spectrum (or not known: REW's text)
	// Info is how the trace was measured; nil: not recorded (a file
	// other than a reference Prism wrote).
	Info *TraceInfo
}

// TraceInfo is how a trace was measured: the level calibration and the
// microphone correction its levels carry, and the analysis that made it.
// For the calibration and the microphone the zero value means none; for
// the others, not known.
type TraceInfo struct {
	CalNote      string  // how the level calibration was made; "" none
	CalOffsetDB  float64 // with CalNote: dB SPL − dBFS (sine level)
	Mic          string  // the microphone response corrected for (its file's name); "" none
	SampleRateHz float64 // Hz
	FFT          int     // frame size, samples
	Window       string  // the window's name ("hann", "kaiser(8)", …)
	ENBWBins     float64 // the window's equivalent noise bandwidth, bins
	Averaging    string  // e.g. "exp 1 s", "off"
}

// NoiseBandwidthHz is the trace's equivalent noise bandwidth in Hz,
// ENBW·rate/FFT: what turns its sine levels (dBFS) into densities
// (dBFS/Hz). ok is false when the file did not record it.
func (i *TraceInfo) NoiseBandwidthHz() (hz float64, ok bool) {
	if i == nil || !(i.ENBWBins > 0) || !(i.SampleRateHz > 0) || i.FFT <= 0 {
		return 0, false
	}
	return i.ENBWBins * i.SampleRateHz / float64(i.FFT), true
}

// The units of Trace.Level, as the axes (and ui's view.UnitLabels) name them.
const (
	UnitDBFS      = "dBFS"
	UnitDBFSPerHz = "dBFS/Hz"
	UnitDBSPL     = "dB SPL"
	UnitDB        = "dB" // a transfer function's magnitude
)

// IsTransfer reports whether t is a transfer function's trace.
func (t *Trace) IsTransfer() bool { return t.PhaseDeg != nil }

// NewTrace copies freqHz and level into a trace, checking them.
func NewTrace(name string, freqHz, level []float64) (*Trace, error) {
	if len(freqHz) != len(level) || len(freqHz) == 0 {
		return nil, fmt.Errorf("dsp: trace %s: %d frequencies and %d levels (want the same number, ≥ 1)", name, len(freqHz), len(level))
	}
	for i, f := range freqHz {
		if err := checkTracePoint(freqHz, i, level[i]); err != nil {
			return nil, fmt.Errorf("dsp: trace %s: point %d (%v Hz, %v): %w", name, i, f, level[i], err)
		}
	}
	return &Trace{Name: name, FreqHz: append([]float64(nil), freqHz...), Level: append([]float64(nil), level...)}, nil
}

func checkTracePoint(freqHz []float64, i int, level float64) error {
	f := freqHz[i]
	switch {
	case !(f >= 0) || math.IsInf(f, 0):
		return errors.New("frequency must be finite and ≥ 0")
	case i > 0 && !(f > freqHz[i-1]):
		return errors.New("frequencies must increase")
	case math.IsNaN(level) || math.IsInf(level, 1):
		return errors.New("level must be a number or -Inf")
	}
	return nil
}

// At is the trace's level at freqHz: linear in log-frequency between
// points (in frequency on a segment from 0 Hz), held at the end values
// outside them.
func (t *Trace) At(freqHz float64) float64 { return interpLogFreq(t.FreqHz, t.Level, freqHz) }

// Difference writes level[i] − At(freqHz[i]) into dst: a spectrum against
// the reference interpolated onto its frequencies. dst may be level. It
// does not allocate; it panics if the lengths differ.
func (t *Trace) Difference(dst, freqHz, level []float64) {
	if len(dst) != len(freqHz) || len(level) != len(freqHz) {
		panic(fmt.Sprintf("dsp: Trace.Difference: dst %d, freqHz %d, level %d", len(dst), len(freqHz), len(level)))
	}
	for i, f := range freqHz {
		dst[i] = level[i] - t.At(f)
	}
}

// NewTransferTrace copies a transfer function into a trace of unit
// UnitDB, checking it: magnitudeDB as Level, phaseDeg (finite) and
// coherence (0…1; nil when not known) of the same length as freqHz.
func NewTransferTrace(name string, freqHz, magnitudeDB, phaseDeg, coherence []float64) (*Trace, error) {
	t, err := NewTrace(name, freqHz, magnitudeDB)
	if err != nil {
		return nil, err
	}
	if len(phaseDeg) != len(freqHz) || (coherence != nil && len(coherence) != len(freqHz)) {
		return nil, fmt.Errorf("dsp: trace %s: %d frequencies, %d phases and %d coherences (want the same number)", name, len(freqHz), len(phaseDeg), len(coherence))
	}
	t.Unit, t.PhaseDeg = UnitDB, append([]float64(nil), phaseDeg...)
	if coherence != nil {
		t.Coherence = append([]float64(nil), coherence...)
	}
	for i := range freqHz {
		if err := checkTransferPoint(t, i); err != nil {
			return nil, fmt.Errorf("dsp: trace %s: point %d (%v Hz): %w", name, i, freqHz[i], err)
		}
	}
	return t, nil
}

// checkTransferPoint checks point i's phase and coherence.
func checkTransferPoint(t *Trace, i int) error {
	if p := t.PhaseDeg[i]; math.IsNaN(p) || math.IsInf(p, 0) {
		return errors.New("phase must be a finite number of degrees")
	}
	if t.Coherence != nil {
		if c := t.Coherence[i]; !(c >= 0 && c <= 1) {
			return errors.New("coherence must be between 0 and 1")
		}
	}
	return nil
}

// PhaseAt is a transfer function's phase at freqHz in degrees, wrapped to
// (−180, 180]: interpolated between points as At interpolates levels,
// the shorter way round the circle, held at the end values outside them.
// It panics if t is not a transfer function's.
func (t *Trace) PhaseAt(freqHz float64) float64 {
	if !t.IsTransfer() {
		panic("dsp: Trace.PhaseAt of a spectrum's trace")
	}
	xs, p := t.FreqHz, t.PhaseDeg
	n := len(xs)
	if freqHz <= xs[0] || math.IsNaN(freqHz) {
		return WrapDeg(p[0])
	}
	if freqHz >= xs[n-1] {
		return WrapDeg(p[n-1])
	}
	i := sort.SearchFloat64s(xs, freqHz)
	step := WrapDeg(p[i] - p[i-1])
	// the fraction of the way from point i−1 to i, as At takes it
	frac := interpLogFreq([]float64{xs[i-1], xs[i]}, []float64{0, 1}, freqHz)
	return WrapDeg(p[i-1] + frac*step)
}

// CoherenceAt is a transfer function's coherence at freqHz, interpolated
// as At interpolates levels; NaN where the trace has none (REW's text).
func (t *Trace) CoherenceAt(freqHz float64) float64 {
	if t.Coherence == nil {
		return math.NaN()
	}
	return interpLogFreq(t.FreqHz, t.Coherence, freqHz)
}

// WrapDeg wraps an angle in degrees to (−180, 180].
func WrapDeg(d float64) float64 {
	d = math.Mod(d, 360)
	switch {
	case d > 180:
		d -= 360
	case d <= -180:
		d += 360
	}
	return d
}
