package dsp

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Fractional-octave bands per IEC 61260-1 (base 10) and frequency
// weightings per IEC 61672-1, for the RTA: band levels computed from an FFT
// power spectrum.

// octaveRatio is G = 10^(3/10), the base-10 octave ratio of IEC 61260-1.
var octaveRatio = math.Pow(10, 0.3)

// Band is one fractional-octave band.
type Band struct {
	Nominal float64 // nominal mid-band frequency, Hz (labels)
	Exact   float64 // exact mid-band frequency fm, Hz
	Lower   float64 // lower edge f1 = fm·G^(−1/2b)
	Upper   float64 // upper edge f2 = fm·G^(1/2b)
}

// Bands returns the 1/fraction-octave bands (fraction 1, 2, 3, 6, 12, 24
// or 48)
// whose nominal mid-band frequencies lie in [lo, hi] (so 20 selects the
// band named 20 Hz, exactly 19.95 Hz) and whose upper edges stay below
// maxUpper (Nyquist).
func Bands(fraction int, lo, hi, maxUpper float64) ([]Band, error) {
	if err := CheckFraction(fraction); err != nil {
		return nil, err
	}
	b := float64(fraction)
	var out []Band
	for x := -20 * fraction; x <= 20*fraction; x++ {
		var fm float64
		if fraction%2 == 1 {
			fm = 1000 * math.Pow(octaveRatio, float64(x)/b)
		} else {
			fm = 1000 * math.Pow(octaveRatio, float64(2*x+1)/(2*b))
		}
		band := Band{Nominal: nominal(fm, fraction), Exact: fm, Lower: fm * math.Pow(octaveRatio, -1/(2*b)), Upper: fm * math.Pow(octaveRatio, 1/(2*b))}
		if band.Nominal < lo || band.Nominal > hi || band.Upper >= maxUpper {
			continue
		}
		out = append(out, band)
	}
	return out, nil
}

// Fractions are the band widths Bands makes, in bands per octave.
var Fractions = []int{1, 2, 3, 6, 12, 24, 48}

// CheckFraction says whether Bands makes 1/fraction-octave bands.
func CheckFraction(fraction int) error {
	if !slices.Contains(Fractions, fraction) {
		return fmt.Errorf("fraction %d: want 1, 2, 3, 6, 12, 24 or 48", fraction)
	}
	return nil
}

// r10 is the R10 preferred-number series that names octave and third-octave
// bands (IEC 61260-1 Annex E: 31.5, 63, 125, … and 25, 31.5, 40, …).
var r10 = []float64{1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8}

// nominal names a band: the nearest R10 value for octaves and thirds; three
// significant figures for finer fractions.
func nominal(fm float64, fraction int) float64 {
	if fraction == 1 || fraction == 3 {
		dec := math.Pow(10, math.Floor(math.Log10(fm)))
		best := 0.0
		for _, m := range append(r10, 10) {
			if v := m * dec; best == 0 || math.Abs(math.Log(v/fm)) < math.Abs(math.Log(best/fm)) {
				best = v
			}
		}
		return best
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(fm, 'g', 3, 64), 64)
	return v
}

// BandAccumulator sums weighted power into bands from one-sided power
// spectra (|X|², as the engines' Power output), splitting each bin's power between the bands its span
// [(k−½)Δf, (k+½)Δf) overlaps in proportion to the overlap (exact
// band-edge weighting of partial bins).
type BandAccumulator struct {
	Bands   []Band
	weights [][]binShare // per band: the bins and fractions feeding it
	sum     []float64    // mean square, accumulated over frames
	Frames  int          // frames added
	norm    float64      // 1/(N·Σw²): |X|² of a one-sided spectrum → mean square
}

type binShare struct {
	k    int
	frac float64 // of the bin's (weighted) power
}

// NewBandAccumulator prepares the bins→bands map for an n-point FFT at
// rate Hz with window sums win and weighting w.
func NewBandAccumulator(bands []Band, n, rate int, win WindowSums, w Weighting) *BandAccumulator {
	binHz := float64(rate) / float64(n)
	acc := &BandAccumulator{Bands: bands, weights: make([][]binShare, len(bands)), sum: make([]float64, len(bands)),
		norm: 1 / (float64(n) * win.SumSq)}
	bins := n/2 + 1
	for i, b := range bands {
		k0 := max(0, int(math.Floor(b.Lower/binHz+0.5)))
		k1 := min(bins-1, int(math.Ceil(b.Upper/binHz+0.5)))
		for k := k0; k <= k1; k++ {
			lo := max(b.Lower, (float64(k)-0.5)*binHz)
			hi := min(b.Upper, (float64(k)+0.5)*binHz)
			if hi <= lo {
				continue
			}
			g := w.GainDB(float64(k) * binHz)
			// one-sided: interior bins carry both halves of the spectrum
			c := 2.0
			if k == 0 || k == bins-1 {
				c = 1
			}
			acc.weights[i] = append(acc.weights[i], binShare{k: k, frac: (hi - lo) / binHz * c * math.Pow(10, g/10)})
		}
	}
	return acc
}

// Shares returns band i's bins and the weights Frame multiplies their
// |X|² by (before the common factor Norm), for an engine that sums the
// bands itself with the same arithmetic.
func (a *BandAccumulator) Shares(i int) (bins []int32, weights []float64) {
	for _, w := range a.weights[i] {
		bins, weights = append(bins, int32(w.k)), append(weights, w.frac)
	}
	return bins, weights
}

// Norm is the factor of every band sum: 1/(N·Σw²), |X|² → mean square.
func (a *BandAccumulator) Norm() float64 { return a.norm }

// Add folds frames of one-sided |X|² spectra (frames×bins) in.
func (a *BandAccumulator) Add(power []float32, bins int) {
	for f := range len(power) / bins {
		row := power[f*bins : (f+1)*bins]
		for i, ws := range a.weights {
			s := 0.0
			for _, w := range ws {
				s += float64(row[w.k]) * w.frac
			}
			a.sum[i] += s * a.norm
		}
		a.Frames++
	}
}

// Frame writes one spectrum's mean square per band into ms (no
// accumulation; the live RTA averages itself). len(ms) is len(Bands); it
// does not allocate.
func (a *BandAccumulator) Frame(row []float32, ms []float64) {
	for i, ws := range a.weights {
		s := 0.0
		for _, w := range ws {
			s += float64(row[w.k]) * w.frac
		}
		ms[i] = s * a.norm
	}
}

// Levels returns each band's average level in dBFS over the frames added:
// mean square relative to a full-scale sine's (0.5), so a sine of
// amplitude A reads 20·log10 A in its band.
func (a *BandAccumulator) Levels() []float64 {
	return a.levels(float64(max(1, a.Frames)))
}

// LevelsOver returns each band's level averaged over samples samples that
// frames hop apart covered with a window whose squares, summed over the
// overlapping frames, are the same at every sample (Hann at hop N/4 and
// the signal padded by N−hop zeros at each end): every sample then counts
// once, wherever it lies, and the level is the band's exact mean square.
func (a *BandAccumulator) LevelsOver(samples int64, hop int) []float64 {
	return a.levels(float64(samples) / float64(hop))
}

func (a *BandAccumulator) levels(frames float64) []float64 {
	out := make([]float64, len(a.sum))
	for i, s := range a.sum {
		out[i] = MeanSquareDBFS(s / frames)
	}
	return out
}

// UnderResolved says whether a band spans fewer than 4 FFT bins, where
// leakage from neighbours and the window's main lobe dominate.
func UnderResolved(b Band, binHz float64) bool { return b.Upper-b.Lower < 4*binHz }

// BandFFTSize is the smallest power of two (≥ 1024, ≤ maxN) whose bins are
// narrow enough that the lowest band spans at least 4 of them.
func BandFFTSize(lowest Band, rate, maxN int) int {
	n := 1024
	for n < maxN && float64(rate)/float64(n) > (lowest.Upper-lowest.Lower)/4 {
		n *= 2
	}
	return n
}

// BandLevel is one row of `prism bands`.
type BandLevel struct {
	Band
	LevelDB       float64
	UnderResolved bool
}
