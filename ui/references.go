package ui

import (
	"errors"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// ShownSpectrum is the spectrum a reference stores and the averaging
// that picks its trace: the file tab's spectrum under the cursor, or the
// first live spectrum shown (panel.RefHost).
func (h *host) ShownSpectrum() (*live.Spectrum, string, error) {
	w := (*Window)(h)
	if w.tabs.Selected() == w.fileTab {
		sp := w.fspec.Shown()
		if sp == nil {
			return nil, "", errors.New("prism: no spectrum to store: move the cursor over the file first")
		}
		return sp, view.AvgOff, nil
	}
	sp := w.spec.Shown()
	if sp == nil || len(sp.Current) < 2 {
		return nil, "", errors.New("prism: no spectrum to store yet")
	}
	if w.set.Averaging == view.AvgLong && sp.LongFrames == 0 {
		return nil, "", errors.New("prism: the long-term average holds no frame yet (it was just reset)")
	}
	return sp, w.set.Averaging, nil
}

// Measured is the unit of the spectrum ShownSpectrum gives and how it was
// measured: the level calibration and microphone of the unit shown, and
// the analysis (live: the panel's window and averaging; file: the file
// view's window, one column) at the spectrum's rate and size
// (panel.RefHost).
func (h *host) Measured() (string, dsp.TraceInfo) {
	w := (*Window)(h)
	s := &w.set
	a := w.refAxis()
	in := dsp.TraceInfo{Mic: a.Mic}
	if a.Calibrated {
		in.CalNote, in.CalOffsetDB = s.CalNote, s.CalOffset
	}
	v, win, avg := w.spec, s.Window, averagingText(s)
	if w.tabs.Selected() == w.fileTab {
		v, avg = w.fspec, "off (the column under the cursor)"
		if fs := w.fview.File(); fs != nil {
			win = fs.Window
		}
	}
	if sp := v.Shown(); sp != nil && len(sp.Current) > 1 {
		in.FFT = 2 * (len(sp.Current) - 1)
		in.SampleRateHz = sp.BinHz * float64(in.FFT)
		in.Window, in.ENBWBins = win.String(), dsp.SumsOf(win.Values(in.FFT)).ENBW()
	}
	in.Averaging = avg
	return a.Unit, in
}

// averagingText says the live averaging as a reference records it.
func averagingText(s *Settings) string {
	switch s.Averaging {
	case view.AvgExp:
		return fmt.Sprintf("exp %g s", s.AvgSeconds)
	case view.AvgLin:
		return fmt.Sprintf("lin %d frames", s.AvgFrames)
	case view.AvgLong:
		return "long-term"
	}
	return "off"
}

// refAxis is the spectrum axis the references are drawn on: the unit
// shown, the calibration set and the microphone response applied.
func (w *Window) refAxis() view.RefAxis {
	s := &w.set
	a := view.RefAxis{Unit: view.UnitLabels[s.Unit]}
	if s.CalNote != "" {
		a.Calibrated, a.CalOffsetDB = true, s.CalOffset
	}
	if w.cal.Mic() != nil {
		a.Mic = w.cal.Mic().Name
	}
	return a
}

// difference is the difference plot shown (live or file), or nil when no
// difference is shown.
func (w *Window) difference() *view.LinePlot {
	if w.refs.DiffTo() < 0 {
		return nil
	}
	if w.tabs.Selected() == w.fileTab {
		return w.fdiff
	}
	return w.diff
}

// ReferencesChanged brings the views and the references panel up to
// date after any change of the set (panel.RefHost).
func (h *host) ReferencesChanged() {
	w := (*Window)(h)
	if i := w.refs.DiffTo(); i >= 0 {
		r := w.refs.Refs()[i]
		name, c := r.Trace.Name, view.RefColor(r.Color, w.set.Theme != "light")
		title := "difference to " + name
		if r.NotDrawn != "" {
			title += ": not in this unit (References says why)"
		}
		for _, d := range []*view.LinePlot{w.diff, w.fdiff} {
			d.SetTitle(title)
			l := &d.SetLines(1)[0]
			l.Name, l.Color = "shown − "+name, c
		}
		w.spec.Hide()
		w.diff.Show()
	} else {
		w.diff.Hide()
		w.spec.Show()
	}
	w.fp.ShowLower()
	w.spec.Refresh()
	w.fspec.Refresh()
	w.updateDiff(w.spec, w.diff, &w.diffGrid, w.set.Averaging)
	w.updateDiff(w.fspec, w.fdiff, &w.fdiffGrid, view.AvgOff)
	w.rp.Sync()
}

// updateDiff recomputes the difference plot d from the spectrum view's
// first spectrum (its shown trace, by avg) and redraws it. It does not
// allocate once the difference has its size.
func (w *Window) updateDiff(v *view.SpectrumView, d *view.LinePlot, g *view.RefGrid, avg string) {
	sp := v.Shown()
	if w.refs.DiffTo() < 0 || sp == nil {
		return
	}
	cur := view.ShownLevels(sp, avg)
	if len(cur) < 2 {
		return
	}
	l := d.FirstLine(sp.Freqs)
	if w.refs.Refs()[w.refs.DiffTo()].NotDrawn != "" {
		l.DB = l.DB[:0] // no difference to a reference the axis cannot show
	} else {
		ref := g.LevelsAt(w.refs, w.refs.DiffTo(), len(cur), sp.BinHz, sp.Freqs)
		l.DB = view.DifferenceDB(l.DB, cur, ref)
	}
	fft := 2 * (len(cur) - 1)
	d.SetConfig(int(math.Round(sp.BinHz*float64(fft))), fft, v.Scale())
	d.Redraw()
}

// buildMeasureViews makes the live difference plot (the file tab makes
// its own) and connects the references and the harmonics to the spectra.
func (w *Window) buildMeasureViews() {
	w.diff = panel.NewDiffPlot()
	w.spec.SetReferences(w.refs)
	w.fspec.SetReferences(w.refs)
	w.spec.SetHarmonics(&w.harm)
	w.fspec.SetHarmonics(&w.fharm)
}

// applyMeasureDisplay follows the frequency scale and theme, and the
// unit, calibration and microphone the references are converted for.
func (w *Window) applyMeasureDisplay(scale plot.Scale, dark bool) {
	w.rp.SetAxis(w.refAxis())
	for _, d := range []*view.LinePlot{w.diff, w.fdiff} {
		d.SetScale(scale)
		d.SetDark(dark)
		if i := w.refs.DiffTo(); i >= 0 && len(d.Lines()) > 0 {
			d.Lines()[0].Color = view.RefColor(w.refs.Refs()[i].Color, dark)
		}
		d.Refresh()
	}
	w.fab.Spectra().SetRange(w.set.DBMin, w.set.DBMax)
	w.fab.SetDisplay(scale, dark)
}
