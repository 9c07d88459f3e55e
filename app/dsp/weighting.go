package dsp

import (
	"fmt"
	"math"
	"strings"
)

// Weighting is a frequency weighting of IEC 61672-1.
type Weighting uint8

// The weightings. Z (zero: flat) is the zero value and every default.
const (
	WeightZ Weighting = iota
	WeightA
	WeightC
)

// DefaultWeighting is the weighting of band levels unless one is asked
// for: `prism bands` and the window's RTA both start from it.
const DefaultWeighting = WeightZ

// Weightings lists the weightings, in the order a picker shows them.
var Weightings = []Weighting{WeightZ, WeightA, WeightC}

func (w Weighting) String() string {
	switch w {
	case WeightA:
		return "A"
	case WeightC:
		return "C"
	}
	return "Z"
}

// ParseWeighting reads "A", "C" or "Z" (either case).
func ParseWeighting(s string) (Weighting, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "Z":
		return WeightZ, nil
	case "A":
		return WeightA, nil
	case "C":
		return WeightC, nil
	}
	return WeightZ, fmt.Errorf("weighting %q: want A, C or Z", s)
}

// Poles of the A and C weightings (IEC 61672-1, Hz).
const (
	poleF1 = 20.598997057568145
	poleF2 = 107.65264864304628
	poleF3 = 737.86223074017
	poleF4 = 12194.21714799801
)

func weightC(f float64) float64 {
	f2q := f * f
	return 20 * math.Log10(poleF4*poleF4*f2q/((f2q+poleF1*poleF1)*(f2q+poleF4*poleF4)))
}

func weightA(f float64) float64 {
	f2q := f * f
	return 20 * math.Log10(poleF4*poleF4*f2q*f2q/((f2q+poleF1*poleF1)*math.Sqrt(f2q+poleF2*poleF2)*
		math.Sqrt(f2q+poleF3*poleF3)*(f2q+poleF4*poleF4)))
}

// GainDB is the weighting's gain in dB at f Hz, from IEC 61672-1's
// analytic definitions (poles at 20.60, 107.7, 737.9 and 12194 Hz;
// normalised to 0 dB at 1 kHz); −Inf at 0 Hz for A and C.
func (w Weighting) GainDB(f float64) float64 {
	switch w {
	case WeightA:
		if f <= 0 {
			return math.Inf(-1)
		}
		return weightA(f) - weightA(1000)
	case WeightC:
		if f <= 0 {
			return math.Inf(-1)
		}
		return weightC(f) - weightC(1000)
	}
	return 0
}
