package sweep

import (
	"math"

	"github.com/prismaudio/prism/gpufft"
)

// The cumulative spectral decay's slices: CSDSlices spectra of the linear
// response from CSDStepSec apart start times, the first CSDPreSec before
// the peak, each to the same end, CSDSpanSec after the first start
// (Fincham's cumulative decay: what is left to come after each start).
const (
	CSDSlices  = 40
	CSDStepSec = 0.005
	CSDPreSec  = 0.001
	CSDSpanSec = 0.3
	// csdRiseSec is each slice's raised-cosine rise; the end falls over
	// the span's last tenth.
	csdRiseSec = 0.0005
)

// CSD is the cumulative spectral decay.
type CSD struct {
	FreqHz   []float64   // 1/24 octave apart, From…To
	StartSec []float64   // each slice's start, seconds after the peak
	LevelDB  [][]float64 // [slice][frequency]: 20·log10|H| (0 dB: unity gain)
}

// csd computes the decay of ir (its peak at index peak) in one batch.
func csd(e gpufft.Engine, spec Spec, ir []float64, peak int) (*CSD, error) {
	rate := float64(spec.Rate)
	first := peak - int(math.Round(CSDPreSec*rate))
	span := int(math.Round(CSDSpanSec * rate))
	step := CSDStepSec * rate
	rise := max(1, int(math.Round(csdRiseSec*rate)))
	size := max(gpufft.MinSize, 2*nextPow2(span)) // zero-padded to twice: finer bins to read a sharp resonance
	out := &CSD{StartSec: make([]float64, CSDSlices)}
	sp, err := transform(e, CSDSlices, size, rate, func(s int, row []float32) {
		start := int(math.Round(float64(first) + float64(s)*step))
		out.StartSec[s] = float64(start-peak) / rate
		n := max(0, span-(start-first)) // to the common end
		for i := range n {
			if j := start + i; j >= 0 && j < len(ir) {
				row[i] = float32(ir[j])
			}
		}
		tukey(row[:n], rise, 0)
		// the span's last tenth falls, at the same samples of every slice
		for i := range min(n, span/10) {
			row[n-1-i] *= float32(0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(span/10)))
		}
	})
	if err != nil {
		return nil, err
	}
	out.FreqHz = logGrid(spec.From, min(spec.To, 0.99*rate/2), 24)
	out.LevelDB = make([][]float64, CSDSlices)
	for s := range out.LevelDB {
		lv := make([]float64, len(out.FreqHz))
		for i, f := range out.FreqHz {
			lv[i] = 20 * math.Log10(sp.at(s, f))
		}
		out.LevelDB[s] = lv
	}
	return out, nil
}
