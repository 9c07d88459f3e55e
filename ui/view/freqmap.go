package view

import (
	"math"
	"math/bits"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
)

// binMap maps the pixel columns of a plot's frequency axis to FFT bins.
// Where a column spans one bin or more it shows their maximum, so a narrow
// peak is never lost between pixels; where it is narrower than a bin it
// interpolates between the two nearest bins, so low frequencies on a log
// axis draw as a smooth curve, not steps — and shows the bin whose centre
// falls in it, if one does and is higher: a peak on a column about a bin
// wide is drawn at its level, not interpolated away between two column
// centres (2.7 dB of a Hann main lobe's top, where columns and bins are
// near the same width).
type binMap struct {
	lo, hi []int32   // bins [lo, hi): those whose centres fall in the column
	pos    []float32 // fractional bin at the column's centre; < 0: use lo…hi alone
	bins   int
	table  *float64 // the first of the bins' centre frequencies (an analysis mode's, modes.go); nil: uniform
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
			// the bin whose centre is in [f0, f1), if any
			k := math.Ceil(f0 / binHz)
			m.lo[x], m.hi[x] = 0, 0
			if k*binHz < f1 && int(k) < m.bins {
				m.lo[x], m.hi[x] = int32(k), int32(k)+1
			}
		}
	}
	return m
}

// value is column x's level from a spectrum of m.bins values (a spectrum of
// another length is clipped to what both have: callers look maps up by
// the spectrum's length, binMaps.get, so this is only a guard).
func (m *binMap) value(x int, db []float32) float32 {
	if len(db) == 0 {
		return float32(math.Inf(-1))
	}
	if p := m.pos[x]; p >= 0 {
		k := int(p)
		if k >= len(db)-1 {
			return db[len(db)-1]
		}
		t := p - float32(k)
		v := db[k] + t*(db[k+1]-db[k])
		if lo, hi := int(m.lo[x]), int(m.hi[x]); hi > lo && hi <= len(db) {
			v = plot.MaxOf(v, db[lo])
		}
		return v
	}
	lo, hi := min(int(m.lo[x]), len(db)), min(int(m.hi[x]), len(db))
	return plot.MaxLevel(float32(math.Inf(-1)), db[lo:hi])
}

// width is the number of columns mapped.
func (m *binMap) width() int { return len(m.pos) }

// binMaps keeps the bin maps of one frequency axis and plot width, one per
// spectrum geometry (bin count) met. A view looks up the map for each
// spectrum or column by that spectrum's own length, so a spectrum that
// arrives with another FFT size than the view was last told about (the
// analysis changed it between frames) is re-mapped, never indexed out of
// range. The maps are remade when the axis, the width or the rate change.
type binMaps struct {
	axis  plot.FreqAxis
	width int
	rate  int
	maps  []binMap
}

// maxBinMaps bounds the geometries kept: every FFT size the window offers.
var maxBinMaps = bits.TrailingZeros(uint(engine.MaxFFT/engine.MinFFT)) + 1

// get is the map for spectra of `bins` values (bins = N/2+1 of an N-point
// FFT) on axis, width columns and rate; nil when bins < 2 or width < 1.
// It allocates only when it meets a new geometry.
func (c *binMaps) get(axis plot.FreqAxis, width, rate, bins int) *binMap {
	return c.getFor(axis, width, rate, bins, nil)
}

// getFor is get for spectra whose bins are at the centre frequencies
// freqs (an analysis mode's, modes.go), uniform where freqs is not of
// their length.
func (c *binMaps) getFor(axis plot.FreqAxis, width, rate, bins int, freqs []float64) *binMap {
	freqs = tableFor(freqs, bins)
	var table *float64
	if freqs != nil {
		table = &freqs[0]
	}
	if bins < 2 || width < 1 || rate < 1 {
		return nil
	}
	if axis != c.axis || width != c.width || rate != c.rate {
		c.axis, c.width, c.rate = axis, width, rate
		c.maps = c.maps[:0]
	}
	for i := range c.maps {
		if c.maps[i].bins == bins && c.maps[i].table == table {
			return &c.maps[i]
		}
	}
	if len(c.maps) == maxBinMaps {
		c.maps = append(c.maps[:0], c.maps[1:]...)
	}
	if freqs != nil {
		c.maps = append(c.maps, newFreqsBinMap(axis, width, freqs))
	} else {
		c.maps = append(c.maps, newBinMap(axis, width, 2*(bins-1), rate))
	}
	return &c.maps[len(c.maps)-1]
}
