// Reference traces: the spectrum shown, stored under a name, drawn over
// the live and file spectra in its own colour, saved and loaded as the
// CSV `prism spectrum` writes and `prism spectrum --ref` reads (dsp.Trace),
// and the difference of the spectrum shown to one of them.

package ui

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
)

// MaxReferences is how many reference traces the window keeps.
const MaxReferences = 8

// refColors are the references' colours, distinct from the channels'.
var refColors = [MaxReferences]color.RGBA{
	{255, 215, 0, 255}, {255, 105, 180, 255}, {0, 206, 209, 255}, {173, 255, 47, 255},
	{255, 127, 80, 255}, {147, 112, 219, 255}, {210, 180, 140, 255}, {135, 206, 250, 255},
}

// diffRangeDB is the half-height of the difference plot's dB axis.
const diffRangeDB = 30

// Reference is one stored trace: its levels (in the unit of the spectrum
// it came from), whether it is drawn, and its colour.
type Reference struct {
	Trace *dsp.Trace
	Shown bool
	Color color.RGBA
	file  string // where it is kept between sessions ("" nowhere: refstore.go)
}

// refSet holds the window's references, shared by the live and file
// spectrum views. ver changes with every change, so the views know to
// resample and redraw their legends. Only the Fyne goroutine uses it.
type refSet struct {
	refs   []*Reference
	diffTo int // the reference the difference is taken to; −1: none
	ver    int
}

// add keeps t, shown, in the first colour not in use.
func (s *refSet) add(t *dsp.Trace) error {
	if len(s.refs) >= MaxReferences {
		return fmt.Errorf("prism: at most %d references: delete one first", MaxReferences)
	}
	if t.Name == "" {
		return errors.New("prism: a reference needs a name")
	}
	used := make([]bool, MaxReferences)
	for _, r := range s.refs {
		if r.Trace.Name == t.Name {
			return fmt.Errorf("prism: a reference named %q exists: choose another name", t.Name)
		}
		used[slices.Index(refColors[:], r.Color)] = true
	}
	c := refColors[slices.Index(used, false)]
	s.refs = append(s.refs, &Reference{Trace: t, Shown: true, Color: c})
	s.ver++
	return nil
}

// remove forgets reference i (the difference to it ends).
func (s *refSet) remove(i int) {
	if i < 0 || i >= len(s.refs) {
		return
	}
	s.refs = slices.Delete(s.refs, i, i+1)
	switch {
	case s.diffTo == i:
		s.diffTo = -1
	case s.diffTo > i:
		s.diffTo--
	}
	s.ver++
}

// refGrid holds the references resampled onto one spectrum geometry
// (bins × binHz) as float32 dB, remade when the geometry or the set
// changes, so drawing them and taking differences each frame allocate
// nothing.
type refGrid struct {
	ver   int
	bins  int
	binHz float64
	at    [][]float32
}

// levels is reference i at bins 0…bins−1, binHz apart (dsp.Trace.At:
// linear in log-frequency between its points).
func (g *refGrid) levels(s *refSet, i, bins int, binHz float64) []float32 {
	if g.ver != s.ver || g.bins != bins || g.binHz != binHz || len(g.at) != len(s.refs) {
		g.ver, g.bins, g.binHz = s.ver, bins, binHz
		for len(g.at) < len(s.refs) {
			g.at = append(g.at, nil)
		}
		g.at = g.at[:len(s.refs)]
		for j, r := range s.refs {
			g.at[j] = slices.Grow(g.at[j][:0], bins)[:bins]
			for k := range bins {
				g.at[j][k] = float32(r.Trace.At(float64(k) * binHz))
			}
		}
	}
	return g.at[i]
}

// refOverlay draws a refSet over a SpectrumView's spectra.
type refOverlay struct {
	set    *refSet
	grid   refGrid
	legend []legendItem
}

// key says what the references' legend shows (for the background cache).
func (o *refOverlay) key() int {
	if o.set == nil {
		return 0
	}
	return o.set.ver
}

// SetReferences draws the shown references of s over the spectra.
func (v *SpectrumView) SetReferences(s *refSet) { v.refs.set = s }

// geometry is the bins and bin width of the spectrum shown (the view's
// configuration before any).
func (v *SpectrumView) geometry() (bins int, binHz float64) {
	if v.n > 0 && len(v.spectra[0].Current) > 1 {
		return len(v.spectra[0].Current), v.spectra[0].BinHz
	}
	return v.fft/2 + 1, float64(v.rate) / float64(v.fft)
}

// drawRefs draws the shown references on the spectrum's bin grid.
func (v *SpectrumView) drawRefs() {
	s := v.refs.set
	if s == nil {
		return
	}
	bins, binHz := v.geometry()
	for i, r := range s.refs {
		if r.Shown {
			v.trace(v.refs.grid.levels(s, i, bins, binHz), refColor(r.Color, v.dark), false)
		}
	}
}

// refColor is a reference's colour on the dark or light palette (darker
// on white, where the bright ones fade).
func refColor(c color.RGBA, dark bool) color.RGBA {
	if dark {
		return c
	}
	return blend(c, color.RGBA{0, 0, 0, 255}, 90)
}

// drawRefLegend lists the shown references in the top margin, after the
// title, onto the background.
func (v *SpectrumView) drawRefLegend(pal *palette) {
	o := &v.refs
	o.legend = o.legend[:0]
	if o.set == nil {
		return
	}
	for _, r := range o.set.refs {
		if r.Shown {
			o.legend = append(o.legend, legendItem{Label: r.Trace.Name, Color: refColor(r.Color, v.dark)})
		}
	}
	if len(o.legend) == 0 {
		return
	}
	p := &v.p
	right := v.area.Min.X + p.px(4)
	if v.title != "" {
		right += p.textWidth(v.title) + p.px(12)
	}
	for _, it := range o.legend {
		right += p.px(16) + p.px(4) + it.width(p) + p.px(12)
	}
	drawLegendItems(p, o.legend, right, p.px(2), pal)
}

// RefLegend is the references' legend last drawn.
func (v *SpectrumView) RefLegend() []legendItem { return v.refs.legend }

// shownLevels is the trace of sp that is on screen and that a reference
// stores: the average when one is on (avg AvgExp, AvgLin or AvgLong:
// averageTrace), else the latest spectrum.
func shownLevels(sp *live.Spectrum, avg string) []float32 {
	if t := averageTrace(sp, avg); t != nil {
		return t
	}
	return sp.Current
}

// differenceDB writes cur − ref (dB) per bin into dst, reusing it, and
// returns it: bins silent in both read 0 dB (no difference), never NaN.
func differenceDB(dst, cur, ref []float32) []float32 {
	n := min(len(cur), len(ref))
	dst = slices.Grow(dst[:0], n)[:n]
	for k := range n {
		d := cur[k] - ref[k]
		if d != d { // −Inf − −Inf
			d = 0
		}
		dst[k] = d
	}
	return dst
}

// traceOf makes a reference trace named name from dB levels at bins
// binHz apart.
func traceOf(name string, db []float32, binHz float64) (*dsp.Trace, error) {
	freq := make([]float64, len(db))
	lv := make([]float64, len(db))
	for k, d := range db {
		freq[k], lv[k] = float64(k)*binHz, float64(d)
		if math.IsNaN(lv[k]) {
			lv[k] = math.Inf(-1)
		}
	}
	t, err := dsp.NewTrace(name, freq, lv)
	if err != nil {
		return nil, fmt.Errorf("prism: store reference: %w", err)
	}
	return t, nil
}

// shownSpectrum is the spectrum a reference stores and the averaging
// that picks its trace: the file tab's spectrum under the cursor, or the
// first live spectrum shown.
func (w *Window) shownSpectrum() (*live.Spectrum, string, error) {
	if w.tabs.Selected() == w.fileTab {
		if w.fspec.n == 0 {
			return nil, "", errors.New("prism: no spectrum to store: move the cursor over the file first")
		}
		return &w.fspec.spectra[0], AvgOff, nil
	}
	if w.spec.n == 0 || len(w.spec.spectra[0].Current) < 2 {
		return nil, "", errors.New("prism: no spectrum to store yet")
	}
	if w.set.Averaging == AvgLong && w.spec.spectra[0].LongFrames == 0 {
		return nil, "", errors.New("prism: the long-term average holds no frame yet (it was just reset)")
	}
	return &w.spec.spectra[0], w.set.Averaging, nil
}

// StoreReference stores the spectrum shown (live: the average if one is
// on, else the latest, of the first channel shown; file: the spectrum
// under the cursor) as a reference named name.
func (w *Window) StoreReference(name string) error {
	sp, avg, err := w.shownSpectrum()
	if err != nil {
		return err
	}
	t, err := traceOf(name, shownLevels(sp, avg), sp.BinHz)
	if err != nil {
		return err
	}
	return w.addReference(t)
}

// LoadReference reads a reference CSV (freq_hz,level, as `prism
// spectrum` writes it), named after the file ("NAME (2)" if a reference
// has that name).
func (w *Window) LoadReference(path string) error {
	t, err := dsp.ReadTraceFile(path)
	if err != nil {
		return fmt.Errorf("prism: load reference: %w", err)
	}
	// a file loaded again, or one named like a stored reference: the
	// name with a number
	base := t.Name
	for n := 2; w.refIndex(t.Name) >= 0; n++ {
		t.Name = base + " (" + strconv.Itoa(n) + ")"
	}
	return w.addReference(t)
}

// SaveReference writes reference i to path as CSV (freq_hz,level, every
// value exact), through a temporary file renamed into place.
func (w *Window) SaveReference(i int, path string) error {
	if i < 0 || i >= len(w.refs.refs) {
		return fmt.Errorf("prism: no reference %d", i)
	}
	if err := writeTrace(w.refs.refs[i].Trace, path); err != nil {
		return fmt.Errorf("prism: save reference: %w", err)
	}
	return nil
}

// DeleteReference forgets reference i, and removes its file from the
// reference directory (the error says if that failed).
func (w *Window) DeleteReference(i int) error {
	if i < 0 || i >= len(w.refs.refs) {
		return fmt.Errorf("prism: no reference %d", i)
	}
	r := w.refs.refs[i]
	w.refs.remove(i)
	w.referencesChanged()
	return w.forgetKept(r)
}

// ShowReference draws reference i over the spectra or hides it.
func (w *Window) ShowReference(i int, on bool) {
	if i >= 0 && i < len(w.refs.refs) && w.refs.refs[i].Shown != on {
		w.refs.refs[i].Shown = on
		w.refs.ver++
		w.referencesChanged()
	}
}

// References are the stored references, in order.
func (w *Window) References() []*Reference { return w.refs.refs }

// SetDifference shows the spectrum shown less reference i (−1: the
// spectra again) in the spectrum's place, live and in the file tab.
func (w *Window) SetDifference(i int) {
	if i >= len(w.refs.refs) {
		i = -1
	}
	w.refs.diffTo = i
	w.refs.ver++
	w.referencesChanged()
}

// Difference is the difference plot shown (live or file), or nil when no
// difference is shown.
func (w *Window) Difference() *LinePlot {
	if w.refs.diffTo < 0 {
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
	if i := w.refs.diffTo; i >= 0 {
		name, c := w.refs.refs[i].Trace.Name, refColor(w.refs.refs[i].Color, w.set.Theme != "light")
		for _, d := range []*LinePlot{w.diff, w.fdiff} {
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
	w.showFileLower()
	w.spec.Refresh()
	w.fspec.Refresh()
	w.updateDiff(w.spec, w.diff, &w.diffGrid, w.set.Averaging)
	w.updateDiff(w.fspec, w.fdiff, &w.fdiffGrid, AvgOff)
	w.syncRefControls()
}

// updateDiff recomputes the difference plot d from the spectrum view's
// first spectrum (its shown trace, by avg) and redraws it. It does not
// allocate once the difference has its size.
func (w *Window) updateDiff(v *SpectrumView, d *LinePlot, g *refGrid, avg string) {
	if w.refs.diffTo < 0 || v.n == 0 {
		return
	}
	sp := &v.spectra[0]
	cur := shownLevels(sp, avg)
	if len(cur) < 2 {
		return
	}
	ref := g.levels(&w.refs, w.refs.diffTo, len(cur), sp.BinHz)
	l := &d.SetLines(1)[0]
	l.DB = differenceDB(l.DB, cur, ref)
	fft := 2 * (len(cur) - 1)
	d.SetConfig(int(math.Round(sp.BinHz*float64(fft))), fft, v.scale)
	d.raster.Refresh()
}
