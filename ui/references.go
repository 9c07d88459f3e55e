package ui

import (
	"errors"
	"math"

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
		name, c := w.refs.Refs()[i].Trace.Name, view.RefColor(w.refs.Refs()[i].Color, w.set.Theme != "light")
		for _, d := range []*view.LinePlot{w.diff, w.fdiff} {
			d.SetTitle("difference to " + name)
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
	ref := g.Levels(w.refs, w.refs.DiffTo(), len(cur), sp.BinHz)
	l := &d.SetLines(1)[0]
	l.DB = view.DifferenceDB(l.DB, cur, ref)
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

// applyMeasureDisplay follows the frequency scale and theme.
func (w *Window) applyMeasureDisplay(scale plot.Scale, dark bool) {
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
