// Package bandlimit is the band-limit check of package live's statistics:
// whether an input at a high rate carries nothing above the Nyquist
// frequency of a lower standard rate, so was likely made at that rate and
// upsampled. It is a rule on one spectrum in dBFS, beside package dsp's
// (whose floor it uses): it imports nothing else, allocates nothing and
// keeps no state.
package bandlimit

import (
	"math"
	"slices"

	"github.com/prismaudio/prism/app/dsp"
)

// The band-limit check: an input at a high rate whose spectrum carries
// nothing above the Nyquist frequency of a lower standard rate was
// likely made at that rate and upsampled (some audio APIs accept 250 kHz
// and deliver 48 kHz upsampled). It compares noise floors, not powers: the
// 99.5th-percentile level of the bins from 2 % above the lower rate's
// Nyquist frequency to 2 % below the input's (44.1 and 48 kHz differ by 9 %) (nearly all of the upper
// part) against the median of those from 10 % to 90 % of the lower band
// (its floor: a tone there does not raise it), and calls the upper part
// empty when it lies MarginDB below the lower's floor: an analog input's noise floor (its converter's) is about
// as high above a lower rate's band as in it, an upsampler's stopband
// leaves a hundred dB less, or digital zero.

// MarginDB is how far below the lower band's floor the upper
// band's must lie to be called empty.
const MarginDB = 30

// bandLimitRates are the standard rates whose Nyquist frequencies the
// check tries, ascending.
var bandLimitRates = []int{8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000, 352800, 384000}

// Detect returns the lowest standard Nyquist frequency above which the
// spectrum levelDB (dBFS, bins k·binHz, k = 0…N/2) of an input at rate Hz
// carries nothing, or 0 when the input uses its band (or is silent).
// scratch needs len(levelDB) values; it does not allocate.
func Detect(scratch, levelDB []float32, binHz float64, rate int) float64 {
	for _, low := range bandLimitRates {
		if 2*low > rate { // at least half the band must be empty to say so
			break
		}
		ny := float64(low) / 2
		lower := quantile(scratch, levelDB, 0.1*ny, 0.9*ny, binHz, 0.5)
		upper := quantile(scratch, levelDB, 1.02*ny, 0.98*float64(rate)/2, binHz, 0.995)
		if math.IsNaN(lower) || math.IsNaN(upper) || lower <= dsp.FloorDB+1 {
			continue // too few bins, or nothing below either
		}
		if upper < lower-MarginDB {
			return ny
		}
	}
	return 0
}

// quantile is the q-quantile of levelDB over the bins in [lo, hi] Hz
// (NaN with fewer than 8), using scratch.
func quantile(scratch, levelDB []float32, lo, hi, binHz, q float64) float64 {
	a := max(1, int(math.Ceil(lo/binHz)))
	b := min(len(levelDB)-1, int(math.Floor(hi/binHz)))
	if b-a+1 < 8 {
		return math.NaN()
	}
	s := scratch[:b-a+1]
	copy(s, levelDB[a:b+1])
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1))])
}
