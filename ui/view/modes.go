package view

import (
	"math"
	"slices"
	"sort"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// This file draws the analysis modes' spectra (package tfrlive: multi-
// resolution, variable-Q, reassigned), whose bins are not uniform: each
// spectrum carries its bins' centre frequencies (live.Spectrum.Freqs), and
// every mapping of bins to pixels, every level read at a frequency and
// every reference resampled onto the bins goes through that table instead
// of k·binHz.

// newFreqsBinMap maps `width` columns of axis to bins whose centre
// frequencies are freqs (ascending), by binMap's rule: a column that
// holds bin centres shows their maximum; one that holds none (bins wider
// than the column) interpolates between the bins either side of its
// centre frequency.
func newFreqsBinMap(axis plot.FreqAxis, width int, freqs []float64) binMap {
	n := len(freqs)
	m := binMap{bins: n, table: &freqs[0]}
	m.lo, m.hi, m.pos = make([]int32, width), make([]int32, width), make([]float32, width)
	for x := range width {
		f0, f1 := axis.Freq(float64(x)/float64(width)), axis.Freq(float64(x+1)/float64(width))
		lo, hi := sort.SearchFloat64s(freqs, f0), sort.SearchFloat64s(freqs, f1)
		m.lo[x], m.hi[x], m.pos[x] = int32(lo), int32(hi), -1
		if hi > lo {
			continue
		}
		m.pos[x] = float32(fracIndex(freqs, axis.Freq((float64(x)+0.5)/float64(width))))
	}
	return m
}

// fracIndex is f's fractional position in the ascending table freqs:
// k + t where freqs[k] ≤ f < freqs[k+1], t linear in frequency between
// them (clamped to the table's ends).
func fracIndex(freqs []float64, f float64) float64 {
	n := len(freqs)
	k := sort.SearchFloat64s(freqs, f) - 1
	switch {
	case k < 0:
		return 0
	case k >= n-1:
		return float64(n - 1)
	}
	return float64(k) + (f-freqs[k])/(freqs[k+1]-freqs[k])
}

// tableFor is freqs when it describes spectra of `bins` values (an
// analysis mode's), nil otherwise (uniform bins).
func tableFor(freqs []float64, bins int) []float64 {
	if len(freqs) != bins || bins < 2 {
		return nil
	}
	return freqs
}

// levelOf is a spectrum's level db (bins at k·binHz, or at freqs when
// the spectrum carries them) at frequency f, interpolated between bins.
func levelOf(db []float32, binHz float64, freqs []float64, f float64) float64 {
	t := tableFor(freqs, len(db))
	if t == nil {
		return levelAt(db, binHz, f)
	}
	p := fracIndex(t, f)
	k := int(p)
	if k >= len(db)-1 {
		return float64(db[len(db)-1])
	}
	return float64(db[k]) + (p-float64(k))*float64(db[k+1]-db[k])
}

// spLevelAt is sp's level db (one of its traces, or the same length) at f.
func spLevelAt(sp *live.Spectrum, db []float32, f float64) float64 {
	return levelOf(db, sp.BinHz, sp.Freqs, f)
}

// binFreq is bin k's centre frequency: freqs[k] for a mode's table, else
// k·binHz.
func binFreq(freqs []float64, binHz float64, k int) float64 {
	if freqs != nil {
		return freqs[k]
	}
	return float64(k) * binHz
}

// shownFreqs is the bin table of the spectra the view shows when they
// have `bins` bins (nil: uniform bins).
func (v *SpectrumView) shownFreqs(bins int) []float64 {
	if v.n == 0 {
		return nil
	}
	return tableFor(v.spectra[0].Freqs, bins)
}

// ColumnFreqsSource is what a Waterfall's ColumnSource also is when its
// columns may come from an analysis mode (session.Session): the bins'
// centre frequencies of the columns it returns now (nil: uniform).
type ColumnFreqsSource interface {
	ModeFreqs() []float64
}

// isMajor says whether tick f is a major grid line: every tick of a
// linear axis, decades on log and mel axes, every C on a note axis.
func isMajor(axis plot.FreqAxis, f float64) bool {
	switch axis.Scale {
	case plot.Lin:
		return true
	case plot.Note:
		semis := 12 * math.Log2(f/440) // C is 9 semitones under A
		r := math.Round(semis)
		return math.Abs(semis-r) < 1e-6 && (int(r)+9)%12 == 0
	}
	return isDecade(f)
}

// modeOffsets are the per-bin offsets for an analysis mode's bins at
// freqs with noise bandwidths enbw (Hz): dBFS/Hz subtracts
// 10·log10(2·ENBW[k]), the rule UnitOffsetDB gives an FFT's bins (a
// sine's level is A², its power A²/2), so a mode and the STFT read noise
// alike; dB SPL adds the calibration; a microphone's response is
// taken out at each bin's own centre.
func (d *DisplayCal) modeOffsets(freqs, enbw []float64) []float32 {
	if d.table == &freqs[0] && len(d.off) == len(freqs) {
		return d.off
	}
	d.off = slices.Grow(d.off[:0], len(freqs))[:len(freqs)]
	for k, f := range freqs {
		o := 0.0
		switch d.unit {
		case dsp.DBFSPerHz:
			if k < len(enbw) && enbw[k] > 0 {
				o = -10 * math.Log10(2*enbw[k])
			}
		case dsp.DBSPL:
			o = d.offset
		}
		if d.mic != nil {
			o -= d.mic.ResponseDB(f)
		}
		d.off[k] = float32(o)
	}
	d.table, d.binHz = &freqs[0], 0
	return d.off
}

// ScaleCycle is the order the F key cycles the frequency scales in.
var ScaleCycle = []plot.Scale{plot.Log, plot.Lin, plot.Mel, plot.Note}
