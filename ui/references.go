package ui

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/ui/view"
)

// shownSpectrum is the spectrum a reference stores and the averaging
// that picks its trace: the file tab's spectrum under the cursor, or the
// first live spectrum shown.
func (w *Window) shownSpectrum() (*live.Spectrum, string, error) {
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

// store stores the spectrum shown (live: the average if one is
// on, else the latest, of the first channel shown; file: the spectrum
// under the cursor) as a reference named name.
func (p *refPanel) store(name string) error {
	sp, avg, err := p.host.shownSpectrum()
	if err != nil {
		return err
	}
	t, err := view.TraceOf(name, view.ShownLevels(sp, avg), sp.BinHz)
	if err != nil {
		return err
	}
	return p.add(t)
}

// load reads a reference CSV (freq_hz,level, as `prism
// spectrum` writes it), named after the file ("NAME (2)" if a reference
// has that name).
func (p *refPanel) load(path string) error {
	t, err := dsp.ReadTraceFile(path)
	if err != nil {
		return fmt.Errorf("prism: load reference: %w", err)
	}
	// a file loaded again, or one named like a stored reference: the
	// name with a number
	base := t.Name
	for n := 2; p.index(t.Name) >= 0; n++ {
		t.Name = base + " (" + strconv.Itoa(n) + ")"
	}
	return p.add(t)
}

// save writes reference i to path as CSV (freq_hz,level, every
// value exact), through a temporary file renamed into place.
func (p *refPanel) save(i int, path string) error {
	if i < 0 || i >= len(p.set.Refs()) {
		return fmt.Errorf("prism: no reference %d", i)
	}
	if err := writeTrace(p.set.Refs()[i].Trace, path); err != nil {
		return fmt.Errorf("prism: save reference: %w", err)
	}
	return nil
}

// delete forgets reference i, and removes its file from the
// reference directory (the error says if that failed).
func (p *refPanel) delete(i int) error {
	if i < 0 || i >= len(p.set.Refs()) {
		return fmt.Errorf("prism: no reference %d", i)
	}
	r := p.set.Refs()[i]
	p.set.Remove(i)
	p.host.referencesChanged()
	return p.forget(r)
}

// show draws reference i over the spectra or hides it.
func (p *refPanel) show(i int, on bool) {
	if i >= 0 && i < len(p.set.Refs()) && p.set.Refs()[i].Shown != on {
		p.set.SetShown(i, on)
		p.host.referencesChanged()
	}
}

// refs are the stored references, in order.
func (p *refPanel) refs() []*view.Reference { return p.set.Refs() }

// setDifference shows the spectrum shown less reference i (−1: the
// spectra again) in the spectrum's place, live and in the file tab.
func (p *refPanel) setDifference(i int) {
	if i >= len(p.set.Refs()) {
		i = -1
	}
	p.set.SetDiffTo(i)
	p.host.referencesChanged()
}

// difference is the difference plot shown (live or file), or nil when no
// difference is shown.
func (w *Window) difference() *view.LinePlot {
	if w.rp.set.DiffTo() < 0 {
		return nil
	}
	if w.tabs.Selected() == w.fileTab {
		return w.fdiff
	}
	return w.diff
}

// referencesChanged brings the views and the references panel up to
// date after any change of the set.
func (w *Window) referencesChanged() {
	if i := w.rp.set.DiffTo(); i >= 0 {
		name, c := w.rp.set.Refs()[i].Trace.Name, view.RefColor(w.rp.set.Refs()[i].Color, w.set.Theme != "light")
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
	w.rp.sync()
}

// updateDiff recomputes the difference plot d from the spectrum view's
// first spectrum (its shown trace, by avg) and redraws it. It does not
// allocate once the difference has its size.
func (w *Window) updateDiff(v *view.SpectrumView, d *view.LinePlot, g *view.RefGrid, avg string) {
	sp := v.Shown()
	if w.rp.set.DiffTo() < 0 || sp == nil {
		return
	}
	cur := view.ShownLevels(sp, avg)
	if len(cur) < 2 {
		return
	}
	ref := g.Levels(&w.rp.set, w.rp.set.DiffTo(), len(cur), sp.BinHz)
	l := &d.SetLines(1)[0]
	l.DB = view.DifferenceDB(l.DB, cur, ref)
	fft := 2 * (len(cur) - 1)
	d.SetConfig(int(math.Round(sp.BinHz*float64(fft))), fft, v.Scale())
	d.Redraw()
}

// harmonicsOn says whether the harmonic markers and readout are on
// (refHost).
func (w *Window) harmonicsOn() bool { return w.harm.On() }

// clock is the window's time (refHost; tests set it).
func (w *Window) clock() time.Time { return w.now() }
