package ui

import (
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/ui/view"
)

// harmonics turns the harmonic markers and the distortion readout on or
// off (live and file spectra).
func (w *Window) harmonics(on bool) {
	w.harm.SetOn(on)
	w.fharm.SetOn(on)
	w.measureFileDue(w.now())
	w.rp.ShowHarmonics(on)
	w.spec.Refresh()
	w.fspec.Refresh()
}

// distortion is the last measurement of the spectrum shown (live, or the
// file's spectrum under the cursor) and its readout (with the note on
// the window, if any).
func (w *Window) distortion() (dsp.Distortion, string, error) {
	h := &w.harm
	if w.tabs.Selected() == w.fileTab {
		h = &w.fharm
	}
	return h.Result()
}

// measureLive starts a measurement of the live spectrum shown (the
// average if one is on) when view.HarmonicEvery has passed since the last.
func (w *Window) measureLive(now time.Time) {
	h := &w.harm
	sp := w.spec.Shown()
	if !h.Due(now) || sp == nil {
		return
	}
	if lv := view.ShownLevels(sp, w.set.Averaging); len(lv) > 1 {
		// the spectrum shown is in the unit shown
		h.Start(lv, sp.BinHz, w.set.Window, view.UnitLabels[w.set.Unit], now, w.do, w.spec.Refresh)
	}
}

// measureFileDue starts a measurement of the file's spectrum under the
// cursor if it changed and view.HarmonicEvery has passed since the last (the
// cursor moves far more often than a measurement is worth; the per-frame
// pull calls it so that the last position is measured too).
func (w *Window) measureFileDue(now time.Time) {
	h := &w.fharm
	fs := w.fview.File()
	sp := w.fspec.Shown()
	if !h.Stale() || !h.Due(now) || sp == nil || fs == nil {
		return
	}
	if len(sp.Current) > 1 && sp.Freqs == nil { // the distortion readout is the STFT's (not a mode's bins)
		h.Start(sp.Current, sp.BinHz, fs.Window, view.UnitLabels[w.set.Unit], now, w.do, w.fspec.Refresh)
	}
}
