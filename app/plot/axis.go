package plot

import (
	"fmt"
	"math"
)

// Scale is a frequency axis's scale.
type Scale uint8

// The scales.
const (
	Log Scale = iota // the default
	Lin
	Mel
	// Note is the log axis labelled by pitch: C2…C8 (A4 = 440 Hz).
	Note
)

// Scales lists the scales in the order a picker shows them.
var Scales = []Scale{Lin, Log, Mel, Note}

func (s Scale) String() string {
	switch s {
	case Lin:
		return "lin"
	case Mel:
		return "mel"
	case Note:
		return "note"
	}
	return "log"
}

// ParseScale reads "lin", "log", "mel" or "note".
func ParseScale(s string) (Scale, error) {
	switch s {
	case "lin":
		return Lin, nil
	case "log":
		return Log, nil
	case "mel":
		return Mel, nil
	case "note":
		return Note, nil
	}
	return Log, fmt.Errorf("unknown frequency scale %q (want lin, log, mel or note)", s)
}

// FreqAxis maps frequencies to positions along a spectrum's frequency axis
// (lin, log, mel, or note: log with pitch labels) and back. Position 0 is the axis's low end, 1 its high
// end.
type FreqAxis struct {
	Scale      Scale
	Low, High  float64
	lowM, span float64 // in the scale's own units
}

// NewFreqAxis returns the axis for a sample rate and FFT size: linear and
// mel from 0 Hz, log from 20 Hz (or the first bin above DC when bins are
// wider), all up to Nyquist.
func NewFreqAxis(scale Scale, rate, n int) FreqAxis {
	nyq := float64(rate) / 2
	a := FreqAxis{Scale: scale, High: nyq}
	if scale == Log || scale == Note {
		a.Low = max(20, float64(rate)/float64(n))
		if a.Low >= nyq {
			a.Low = nyq / 2
		}
	}
	a.lowM = a.warp(a.Low)
	a.span = a.warp(a.High) - a.lowM
	return a
}

func (a FreqAxis) warp(f float64) float64 {
	switch a.Scale {
	case Log, Note:
		return math.Log(f)
	case Mel:
		return 2595 * math.Log10(1+f/700)
	}
	return f
}

func (a FreqAxis) unwarp(m float64) float64 {
	switch a.Scale {
	case Log, Note:
		return math.Exp(m)
	case Mel:
		return 700 * (math.Pow(10, m/2595) - 1)
	}
	return m
}

// Pos returns f's position in [0, 1] (outside for f outside the axis).
func (a FreqAxis) Pos(f float64) float64 { return (a.warp(f) - a.lowM) / a.span }

// Freq returns the frequency at position p.
func (a FreqAxis) Freq(p float64) float64 { return a.unwarp(a.lowM + p*a.span) }

// RowBins maps rows (0 = low end) to FFT bins: row r shows bins
// [lo, hi), those whose centres fall in its frequency span, or, where a row
// is narrower than a bin, the bin nearest its centre frequency.
func (a FreqAxis) RowBins(rows, n, rate int) (lo, hi []int32) {
	binHz := float64(rate) / float64(n)
	bins := n/2 + 1
	lo, hi = make([]int32, rows), make([]int32, rows)
	clamp := func(k float64) int { return min(bins-1, max(0, int(k))) }
	for r := range rows {
		f0, f1 := a.Freq(float64(r)/float64(rows)), a.Freq(float64(r+1)/float64(rows))
		k0, k1 := clamp(math.Ceil(f0/binHz-0.5)), clamp(math.Ceil(f1/binHz-0.5))
		if r == rows-1 {
			k1 = bins
		}
		if k1 <= k0 {
			k0 = clamp(math.Round(a.Freq((float64(r)+0.5)/float64(rows)) / binHz))
			k1 = k0 + 1
		}
		lo[r], hi[r] = int32(k0), int32(k1)
	}
	return lo, hi
}
