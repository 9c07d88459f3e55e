package view

import (
	"slices"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/window"
)

// The spectrum's units in the controls, in the order of dsp's Unit
// (DBFS, DBFSPerHz, DBSPL).
var UnitLabels = []string{"dBFS", "dBFS/Hz", "dB SPL"}

// DisplayCal turns the engine's spectra (dBFS: sine level) into the unit
// shown: per bin, an offset computed once per unit, calibration, window
// and geometry (dsp's rule for noise density, the level calibration for
// dB SPL) less the microphone's response at the bin's frequency; the band
// levels get the calibration less the response at the band's centre.
// Only the Fyne goroutine uses it; applying it does not allocate once the
// offsets are computed.
type DisplayCal struct {
	unit   dsp.Unit
	offset float64 // dB SPL − dBFS
	mic    *dsp.MicResponse
	window window.Func
	binHz  float64   // what off was computed for (0: nothing yet)
	off    []float32 // per bin
	table  *float64  // an analysis mode's bins off was computed for (modes.go); nil: uniform
}

// Set changes what the conversion does (and forgets the offsets when
// that changes).
func (d *DisplayCal) Set(u dsp.Unit, offset float64, mic *dsp.MicResponse, window window.Func) {
	if u != d.unit || offset != d.offset || mic != d.mic || window != d.window {
		d.unit, d.offset, d.mic, d.window = u, offset, mic, window
		d.binHz, d.table = 0, nil
	}
}

// identity says whether the spectra are shown as they come.
func (d *DisplayCal) identity() bool { return d.unit == dsp.DBFS && d.mic == nil }

// offsets are the per-bin offsets for spectra of `bins` bins binHz apart.
func (d *DisplayCal) offsets(binHz float64, bins int) []float32 {
	if binHz == d.binHz && bins == len(d.off) && d.table == nil {
		return d.off
	}
	fft := 2 * (bins - 1)
	base := 0.0
	switch d.unit {
	case dsp.DBFSPerHz:
		base = dsp.SumsOf(d.window.Values(fft)).UnitOffsetDB(dsp.DBFSPerHz, binHz*float64(fft))
	case dsp.DBSPL:
		base = d.offset
	}
	d.off = slices.Grow(d.off[:0], bins)[:bins]
	for k := range d.off {
		o := base
		if d.mic != nil {
			o -= d.mic.ResponseDB(float64(k) * binHz)
		}
		d.off[k] = float32(o)
	}
	d.binHz, d.table = binHz, nil
	return d.off
}

// apply converts a spectrum in place: every trace it holds, the peak and
// the bands (a spectrum of bands only, live.WantBandsOnly, has no trace).
func (d *DisplayCal) Apply(sp *live.Spectrum) {
	table := tableFor(sp.Freqs, len(sp.Current))
	if d.identity() || !(sp.BinHz > 0) && table == nil {
		return
	}
	if len(sp.Current) >= 2 {
		var off []float32
		if table != nil {
			off = d.modeOffsets(table, sp.ENBW)
		} else {
			off = d.offsets(sp.BinHz, len(sp.Current))
		}
		for _, s := range [...][]float32{sp.Current, sp.ExpAvg, sp.LinAvg, sp.LongAvg, sp.PeakHold, sp.MinHold} {
			if len(s) == len(off) {
				for k := range s {
					s[k] += off[k]
				}
			}
		}
		if sp.Peak.Freq > 0 {
			sp.Peak.LevelDB += levelOf(off, sp.BinHz, table, sp.Peak.Freq)
		}
	}
	for i := range sp.Bands {
		sp.Bands[i].LevelDB += d.bandOffset(sp.Bands[i].Band)
	}
}

// bandOffset is a band level's offset: the level calibration in dB SPL
// (band levels are sine-level powers, never densities) less the
// microphone's response at the band's centre.
func (d *DisplayCal) bandOffset(b dsp.Band) float64 {
	o := 0.0
	if d.unit == dsp.DBSPL {
		o = d.offset
	}
	if d.mic != nil {
		o -= d.mic.ResponseDB(b.Exact)
	}
	return o
}

// CalSource is the engine's spectra in the unit shown.
type CalSource struct {
	Src SpectrumSource
	Cal *DisplayCal
}

// Latest implements SpectrumSource.
func (s *CalSource) Latest(c int, dst *live.Spectrum) {
	s.Src.Latest(c, dst)
	s.Cal.Apply(dst)
}
