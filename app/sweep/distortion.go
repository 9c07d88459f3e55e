package sweep

import (
	"math"

	"github.com/prismaudio/prism/gpufft"
)

// Distortion is the harmonic distortion versus the fundamental's
// frequency, from the separated harmonic impulse responses.
type Distortion struct {
	FreqHz []float64 // fundamentals, 1/24 octave apart, From…To/2
	// THDPercent is 100·√(Σ_k |H_k(k·f)|²)/|H_1(f)| over the harmonics
	// measured at f (k·f ≤ To).
	THDPercent []float64
	// HarmonicDB[k−2][i] is harmonic k's level relative to the
	// fundamental, 20·log10(|H_k(k·f)|/|H_1(f)|); NaN where k·f is above
	// the sweep.
	HarmonicDB [][]float64
}

// maxWindowSec bounds the windows the distortion is read through (the
// second harmonic's of a 30-s sweep is 2.9 s long): 0.5 s resolves 2 Hz.
const maxWindowSec = 0.5

// distortion reads each harmonic's response at k times the fundamental:
// harmonic k of the excitation at fundamental f is at k·f, and the
// deconvolution maps it there with the level it has (the inverse filter
// weighs each frequency by the time the sweep spends on it, the same for
// the harmonic's sweep, which passes k·f at the rate the sweep does: no
// level correction). Each response is read through its whole window,
// tapered (a raised-cosine rise over its lead, a fall over its last
// fifth); the fundamental's is as long as the second harmonic's, from
// Pre[1] before the peak.
func distortion(e gpufft.Engine, spec Spec, r Result) (*Distortion, error) {
	longest := min(len(r.Harmonics[0]), int(maxWindowSec*float64(spec.Rate)))
	size := max(gpufft.MinSize, min(gpufft.MaxSize, 2*nextPow2(longest)))
	sp, err := transform(e, MaxHarmonic, size, float64(spec.Rate), func(i int, row []float32) {
		w := row[:longest]
		if i == 0 { // the fundamental: from Pre[1] before the peak
			for j := range w {
				if k := r.Peak - r.Pre[1] + j; k >= 0 && k < len(r.IR) {
					w[j] = float32(r.IR[k])
				}
			}
		} else {
			h := r.Harmonics[i-1]
			w = row[:min(len(h), longest)]
			for j := range w {
				w[j] = float32(h[j])
			}
		}
		tukey(w, r.Pre[i+1], len(w)/5)
	})
	if err != nil {
		return nil, err
	}
	top := min(spec.To, 0.99*float64(spec.Rate)/2)
	out := &Distortion{FreqHz: logGrid(spec.From, top/2, 24)}
	out.THDPercent = make([]float64, len(out.FreqHz))
	out.HarmonicDB = make([][]float64, MaxHarmonic-1)
	for k := range out.HarmonicDB {
		out.HarmonicDB[k] = make([]float64, len(out.FreqHz))
	}
	for i, f := range out.FreqHz {
		h1 := sp.at(0, f)
		var sum float64
		for k := 2; k <= MaxHarmonic; k++ {
			if float64(k)*f > top {
				out.HarmonicDB[k-2][i] = math.NaN()
				continue
			}
			hk := sp.at(k-1, float64(k)*f)
			sum += hk * hk
			out.HarmonicDB[k-2][i] = 20 * math.Log10(hk/h1)
		}
		out.THDPercent[i] = 100 * math.Sqrt(sum) / h1
	}
	return out, nil
}
