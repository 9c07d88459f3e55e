package dual

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Fractional-octave smoothing of a spectrum of N/2+1 bins (bin k at
// k·binHz): each bin k ≥ 1 becomes the mean of the bins whose frequencies
// lie within a band one 1/fraction octave wide centred on it (on a log
// scale), [f_k·2^(−1/(2·fraction)), f_k·2^(1/(2·fraction))], never fewer
// than the bin itself; bin 0 stays as it is. Magnitudes are smoothed as
// power (|H|²), phase as the complex response (so it averages as vectors
// do, without wrapping steps). The means come from prefix sums: O(bins)
// per call, whatever the fraction.

// Smoothing fractions: 1/48 octave is the narrowest. A Smoother takes
// 1/1 octave up (the spectrum view offers 1/1 and 1/2, as REW does); the
// commands' --smoothing takes 1/3 up (ParseSmoothing: their contract).
const (
	MinSmoothFraction = 3 // the commands' --smoothing
	MaxSmoothFraction = 48
)

// Smoother smooths spectra of a fixed bin count by 1/Fraction octave.
// Power and Complex do not allocate. One goroutine at a time.
type Smoother struct {
	fraction int
	lo, hi   []int32 // bin k's band is bins [lo, hi)
	ps       []float64
	pc       []complex128
}

// NewSmoother makes a smoother for bins bins at 1/fraction octave,
// fraction in 1…MaxSmoothFraction.
func NewSmoother(bins, fraction int) (*Smoother, error) {
	if fraction < 1 || fraction > MaxSmoothFraction {
		return nil, fmt.Errorf("dual: smoothing 1/%d octave (want 1/%d…1/1)", fraction, MaxSmoothFraction)
	}
	if bins < 1 {
		return nil, fmt.Errorf("dual: smoothing %d bins", bins)
	}
	s := &Smoother{fraction: fraction, lo: make([]int32, bins), hi: make([]int32, bins),
		ps: make([]float64, bins+1), pc: make([]complex128, bins+1)}
	r := math.Pow(2, 1/(2*float64(fraction)))
	s.lo[0], s.hi[0] = 0, 1
	for k := 1; k < bins; k++ {
		// bins j ≥ 1 with k/r ≤ j ≤ k·r (the band edges in bins, binHz
		// cancels); a small tolerance keeps exact edges inside
		lo := int32(math.Ceil(float64(k)/r - 1e-9))
		hi := int32(math.Floor(float64(k)*r+1e-9)) + 1
		s.lo[k], s.hi[k] = max(1, min(lo, int32(k))), min(int32(bins), max(hi, int32(k+1)))
	}
	return s, nil
}

// Fraction is the smoother's 1/Fraction octave.
func (s *Smoother) Fraction() int { return s.fraction }

// Power writes the smoothed powers of src into dst (Bins values each; dst
// may be src). It panics if either is short.
func (s *Smoother) Power(dst, src []float64) {
	n := len(s.lo)
	src, dst = src[:n], dst[:n]
	s.ps[0] = 0
	for k, v := range src {
		s.ps[k+1] = s.ps[k] + v
	}
	for k := range n {
		lo, hi := s.lo[k], s.hi[k]
		dst[k] = (s.ps[hi] - s.ps[lo]) / float64(hi-lo)
	}
}

// Complex writes the smoothed complex values of src into dst (as Power).
func (s *Smoother) Complex(dst, src []complex128) {
	n := len(s.lo)
	src, dst = src[:n], dst[:n]
	s.pc[0] = 0
	for k, v := range src {
		s.pc[k+1] = s.pc[k] + v
	}
	for k := range n {
		lo, hi := s.lo[k], s.hi[k]
		dst[k] = (s.pc[hi] - s.pc[lo]) / complex(float64(hi-lo), 0)
	}
}

// ParseSmoothing reads "1/N" (or "N") as a smoothing fraction N in
// MinSmoothFraction…MaxSmoothFraction; "off", "none" or "0" is 0 (no
// smoothing).
func ParseSmoothing(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "off", "none", "0", "":
		return 0, nil
	}
	t = strings.TrimPrefix(t, "1/")
	n, err := strconv.Atoi(t)
	if err != nil || n < MinSmoothFraction || n > MaxSmoothFraction {
		return 0, fmt.Errorf("dual: smoothing %q (want 1/N octave, N in %d…%d, or off)", s, MinSmoothFraction, MaxSmoothFraction)
	}
	return n, nil
}
