package ui

import (
	"math"

	"github.com/prismaudio/prism/app/plot"
)

// binMap maps the pixel columns of a plot's frequency axis to FFT bins.
// Where a column spans one bin or more it shows their maximum, so a narrow
// peak is never lost between pixels; where it is narrower than a bin it
// interpolates between the two nearest bins, so low frequencies on a log
// axis draw as a smooth curve, not steps.
type binMap struct {
	lo, hi []int32   // bins [lo, hi) for columns wider than a bin
	pos    []float32 // fractional bin at the column's centre; < 0: use lo…hi
	bins   int
}

// newBinMap maps `width` columns of axis to the bins of an n-point FFT at
// rate.
func newBinMap(axis plot.FreqAxis, width, n, rate int) binMap {
	m := binMap{bins: n/2 + 1}
	m.lo, m.hi = axis.RowBins(width, n, rate)
	m.pos = make([]float32, width)
	binHz := float64(rate) / float64(n)
	for x := range width {
		f0, f1 := axis.Freq(float64(x)/float64(width)), axis.Freq(float64(x+1)/float64(width))
		m.pos[x] = -1
		if f1-f0 < binHz {
			m.pos[x] = float32(axis.Freq((float64(x)+0.5)/float64(width)) / binHz)
		}
	}
	return m
}

// value is column x's level from a spectrum of m.bins values.
func (m *binMap) value(x int, db []float32) float32 {
	if p := m.pos[x]; p >= 0 {
		k := int(p)
		if k >= len(db)-1 {
			return db[len(db)-1]
		}
		t := p - float32(k)
		return db[k] + t*(db[k+1]-db[k])
	}
	v := float32(math.Inf(-1))
	for _, d := range db[m.lo[x]:m.hi[x]] {
		v = max(v, d)
	}
	return v
}

// width is the number of columns mapped.
func (m *binMap) width() int { return len(m.pos) }
