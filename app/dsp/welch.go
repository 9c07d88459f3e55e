// Welch power averaging: the long-term spectrum of a signal as the mean of
// its frames' power spectra, scaled to sine level (dBFS) or noise density
// (dBFS/Hz) from the window's own sums.

package dsp

import (
	"fmt"
	"math"
)

// Unit is the scale of an averaged spectrum.
type Unit int

const (
	// DBFS is sine level: a sine of amplitude 1 centred on a bin reads
	// 0 dBFS at that bin whatever the window and size (coherent-gain corrected).
	DBFS Unit = iota
	// DBFSPerHz is one-sided power spectral density: white noise of RMS σ
	// reads 10·log10(σ²/(fs/2)) dBFS/Hz whatever the window and size (ENBW
	// corrected).
	DBFSPerHz
	// DBSPL is DBFS plus a level calibration offset (see LevelCal); the
	// averager itself reads it as DBFS.
	DBSPL
)

var unitNames = [...]string{DBFS: "dbfs", DBFSPerHz: "dbfs-hz", DBSPL: "dbspl"}

// ParseUnit reads "dbfs", "dbfs-hz" or "dbspl".
func ParseUnit(s string) (Unit, error) {
	for u, n := range unitNames {
		if n == s {
			return Unit(u), nil
		}
	}
	return 0, fmt.Errorf("dsp: unknown unit %q (want dbfs, dbfs-hz or dbspl)", s)
}

func (u Unit) String() string {
	if u < 0 || int(u) >= len(unitNames) {
		return fmt.Sprintf("unit(%d)", int(u))
	}
	return unitNames[u]
}

// Welch accumulates the power spectra of frames and reads their mean, scaled
// to a Unit. The average is taken in power, never in dB. Frames may overlap
// in any way the caller chooses; each added spectrum counts once.
// One goroutine at a time may use a Welch.
type Welch struct {
	sums       WindowSums
	sampleRate float64
	acc        []float64 // Σ over frames of |X_k|², k = 0…N/2
	frames     int
}

// NewWelch makes an averager for frames windowed by window (its N samples,
// as applied before the transform) at sampleRate Hz. The spectra it takes
// have N/2+1 bins.
func NewWelch(window []float64, sampleRate float64) (*Welch, error) {
	if len(window) < 2 {
		return nil, fmt.Errorf("dsp: welch: window of %d samples (want ≥ 2)", len(window))
	}
	if !(sampleRate > 0) || math.IsInf(sampleRate, 0) {
		return nil, fmt.Errorf("dsp: welch: sample rate %v Hz (want > 0)", sampleRate)
	}
	s := SumsOf(window)
	if !(s.Sum > 0) || !(s.SumSq > 0) {
		return nil, fmt.Errorf("dsp: welch: window sums Σw = %v, Σw² = %v (want > 0)", s.Sum, s.SumSq)
	}
	return &Welch{sums: s, sampleRate: sampleRate, acc: make([]float64, len(window)/2+1)}, nil
}

// Bins is the number of bins of each spectrum, N/2+1.
func (w *Welch) Bins() int { return len(w.acc) }

// Frames is the number of spectra added since the last Reset.
func (w *Welch) Frames() int { return w.frames }

// Sums are the window's sums (coherent gain, ENBW).
func (w *Welch) Sums() WindowSums { return w.sums }

// BinHz is the bin spacing, sampleRate/N.
func (w *Welch) BinHz() float64 { return w.sampleRate / float64(w.sums.N) }

// Reset forgets every added spectrum.
func (w *Welch) Reset() {
	clear(w.acc)
	w.frames = 0
}

// Add adds one frame's one-sided power spectrum |X_k|² (unscaled DFT of the
// windowed frame, k = 0…N/2, as gpufft's Power output). It does not
// allocate. It panics if len(power) != Bins().
func (w *Welch) Add(power []float32) {
	if len(power) != len(w.acc) {
		panic(fmt.Sprintf("dsp: Welch.Add: %d bins, want %d", len(power), len(w.acc)))
	}
	for k, p := range power {
		w.acc[k] += float64(p)
	}
	w.frames++
}

// Add64 is Add for float64 spectra.
func (w *Welch) Add64(power []float64) {
	if len(power) != len(w.acc) {
		panic(fmt.Sprintf("dsp: Welch.Add64: %d bins, want %d", len(power), len(w.acc)))
	}
	for k, p := range power {
		w.acc[k] += p
	}
	w.frames++
}

// Power writes the mean power of each bin in linear units of u into dst
// (Bins() values): amplitude² of a sine for DBFS and DBSPL, one-sided
// power per Hz for DBFSPerHz. With no frames added every value is 0.
// It does not allocate; it panics if len(dst) != Bins().
func (w *Welch) Power(dst []float64, u Unit) {
	if len(dst) != len(w.acc) {
		panic(fmt.Sprintf("dsp: Welch.Power: dst of %d, want %d", len(dst), len(w.acc)))
	}
	if w.frames == 0 {
		clear(dst)
		return
	}
	inner := w.scale(u) / float64(w.frames)
	last := len(w.acc) - 1
	for k, p := range w.acc {
		s := inner
		// DC, and Nyquist for even N, have no mirror image: half the
		// factor, so their DBFS reading is twice the mean square as for
		// every other bin (AES17: a full-scale DC reads +3.01 dBFS).
		if k == 0 || (k == last && w.sums.N%2 == 0) {
			s /= 2
		}
		dst[k] = p * s
	}
}

// Levels writes 10·log10 of Power into dst (dB in unit u); silent bins read
// -Inf. It does not allocate; it panics if len(dst) != Bins().
func (w *Welch) Levels(dst []float64, u Unit) {
	w.Power(dst, u)
	for k, p := range dst {
		dst[k] = 10 * math.Log10(p)
	}
}

// scale turns |X_k|² of an interior bin into the unit's linear power.
func (w *Welch) scale(u Unit) float64 { return w.sums.UnitScale(u, w.sampleRate) }

// UnitScale is the factor that turns |X_k|² of an interior bin (the
// unscaled DFT of a frame windowed by s, sampled at sampleRate Hz) into
// unit u's linear power: amplitude² of a sine centred on the bin for DBFS
// and DBSPL (DBSPL's offset is LevelCal's), one-sided power per Hz for
// DBFSPerHz. DC and Nyquist take half of it (they have no mirror image).
// It panics on an invalid unit.
func (s WindowSums) UnitScale(u Unit, sampleRate float64) float64 {
	switch u {
	case DBFSPerHz:
		// E|X|² = σ²Σw² per bin for white noise of variance σ²; one-sided
		// (×2) over fs Hz.
		return 2 / (sampleRate * s.SumSq)
	case DBFS, DBSPL:
		// |X| = A·Σw/2 for a bin-centred sine of amplitude A.
		return 4 / (s.Sum * s.Sum)
	default:
		panic(fmt.Sprintf("dsp: invalid unit %d", int(u)))
	}
}

// UnitOffsetDB is what to add to a bin's sine level (dBFS, the engines'
// spectra) to read it in unit u, the same at every bin: 0 for DBFS and
// DBSPL (whose calibration offset is LevelCal's), and for DBFSPerHz
// −10·log10(2·ENBW·fs/N), ENBW in bins: the ratio of UnitScale's two rules, so a
// display that converts dBFS spectra reads what Welch.Levels does.
func (s WindowSums) UnitOffsetDB(u Unit, sampleRate float64) float64 {
	return 10 * math.Log10(s.UnitScale(u, sampleRate)/s.UnitScale(DBFS, sampleRate))
}
