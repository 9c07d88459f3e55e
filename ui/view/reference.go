// Reference traces: the spectrum shown, stored under a name with its
// unit, drawn over the live and file spectra in its own colour (converted
// to the axis's unit where that is exact, else not drawn, with the
// reason), saved and loaded as dsp.Trace files, and the difference of the
// spectrum shown to one of them. Transfer-function references share the
// set and its colours but are drawn by the transfer view, never over
// spectra.

package view

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

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

// DiffRangeDB is the half-height of the difference plot's dB axis.
const DiffRangeDB = 30

// Reference is one stored trace: its levels (in the unit of the spectrum
// it came from, Trace.Unit), whether it is drawn, its colour, and how it
// goes on the spectrum axis: the offset that converts it to the axis's
// unit, or why it cannot (RefSet.SetAxis).
type Reference struct {
	Trace *dsp.Trace
	Shown bool
	Color color.RGBA
	File  string // where the window keeps it between sessions ("" nowhere)
	// OffsetDB is added to the trace's levels on the spectrum axis.
	OffsetDB float64
	// NotDrawn says, in a sentence, why the trace is not drawn on the
	// spectrum axis ("" it is): another unit with no exact conversion,
	// or a transfer function.
	NotDrawn string
}

// OnSpectra says whether r is drawn over the spectra: shown, a spectrum,
// and in a unit the axis converts.
func (r *Reference) OnSpectra() bool { return r.Shown && r.NotDrawn == "" }

// IsTransfer says whether r is a transfer function's.
func (r *Reference) IsTransfer() bool { return r.Trace.IsTransfer() }

// RefSet holds the window's references, shared by the live and file
// spectrum views. ver changes with every change, so the views know to
// resample and redraw their legends. Only the Fyne goroutine uses it.
type RefSet struct {
	refs   []*Reference
	diffTo int // the reference the difference is taken to; −1: none
	ver    int
	axis   RefAxis // the spectrum axis the references are drawn on
}

// SetAxis converts the references for a spectrum axis of a's unit,
// calibration and microphone (RefOffset): each gets its offset, or the
// reason it is not drawn.
func (s *RefSet) SetAxis(a RefAxis) {
	if a == s.axis {
		return
	}
	s.axis = a
	for _, r := range s.refs {
		s.convert(r)
	}
	s.ver++
}

// SetUnit says the unit of reference i, whose file did not (old files,
// `prism spectrum`'s): it is converted onto the axis from now on.
func (s *RefSet) SetUnit(i int, unit string) {
	if i >= 0 && i < len(s.refs) {
		s.refs[i].Trace.Unit = unit
		s.convert(s.refs[i])
		s.ver++
	}
}

// Axis is the spectrum axis the references are converted for.
func (s *RefSet) Axis() RefAxis { return s.axis }

// convert sets r's offset onto the axis, or why it is not drawn.
func (s *RefSet) convert(r *Reference) { r.OffsetDB, r.NotDrawn = RefOffset(r.Trace, s.axis) }

// Add keeps t, shown, in the first colour not in use.
func (s *RefSet) Add(t *dsp.Trace) error {
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
	r := &Reference{Trace: t, Shown: true, Color: c}
	s.convert(r)
	s.refs = append(s.refs, r)
	s.ver++
	return nil
}

// Remove forgets reference i (the difference to it ends).
func (s *RefSet) Remove(i int) {
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

// RefGrid holds the references resampled onto one spectrum geometry
// (bins × binHz) as float32 dB, remade when the geometry or the set
// changes, so drawing them and taking differences each frame allocate
// nothing.
type RefGrid struct {
	ver   int
	bins  int
	binHz float64
	table *float64 // the bins' centre frequencies' first (an analysis mode's); nil: uniform
	at    [][]float32
}

// Levels is reference i at bins 0…bins−1, binHz apart (dsp.Trace.At:
// linear in log-frequency between its points), in the axis's unit (its
// OffsetDB added).
func (g *RefGrid) Levels(s *RefSet, i, bins int, binHz float64) []float32 {
	return g.LevelsAt(s, i, bins, binHz, nil)
}

// LevelsAt is Levels at the bins' centre frequencies freqs when they are
// an analysis mode's (freqs of length bins; nil: k·binHz).
func (g *RefGrid) LevelsAt(s *RefSet, i, bins int, binHz float64, freqs []float64) []float32 {
	freqs = tableFor(freqs, bins)
	var table *float64
	if freqs != nil {
		table = &freqs[0]
	}
	if g.ver != s.ver || g.bins != bins || g.binHz != binHz || g.table != table || len(g.at) != len(s.refs) {
		g.ver, g.bins, g.binHz, g.table = s.ver, bins, binHz, table
		for len(g.at) < len(s.refs) {
			g.at = append(g.at, nil)
		}
		g.at = g.at[:len(s.refs)]
		for j, r := range s.refs {
			g.at[j] = slices.Grow(g.at[j][:0], bins)[:bins]
			for k := range bins {
				g.at[j][k] = float32(r.Trace.At(binFreq(freqs, binHz, k)) + r.OffsetDB)
			}
		}
	}
	return g.at[i]
}

// refOverlay draws a RefSet over a SpectrumView's spectra.
type refOverlay struct {
	set    *RefSet
	grid   RefGrid
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
func (v *SpectrumView) SetReferences(s *RefSet) { v.refs.set = s }

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
		if r.OnSpectra() {
			v.trace(v.refs.grid.LevelsAt(s, i, bins, binHz, v.shownFreqs(bins)), RefColor(r.Color, v.dark), false)
		}
	}
}

// RefColor is a reference's colour on the dark or light palette (darker
// on white, where the bright ones fade).
func RefColor(c color.RGBA, dark bool) color.RGBA {
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
		if r.OnSpectra() {
			o.legend = append(o.legend, legendItem{Label: r.Trace.Name, Color: RefColor(r.Color, v.dark)})
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

// ShownLevels is the trace of sp that is on screen and that a reference
// stores: the average when one is on (avg AvgExp, AvgLin or AvgLong:
// AverageTrace), else the latest spectrum.
func ShownLevels(sp *live.Spectrum, avg string) []float32 {
	if t := AverageTrace(sp, avg); t != nil {
		return t
	}
	return sp.Current
}

// DifferenceDB writes cur − ref (dB) per bin into dst, reusing it, and
// returns it: bins silent in both read 0 dB (no difference), never NaN.
func DifferenceDB(dst, cur, ref []float32) []float32 {
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

// TraceOf makes a reference trace named name from dB levels at bins
// binHz apart.
func TraceOf(name string, db []float32, binHz float64) (*dsp.Trace, error) {
	return TraceAt(name, db, binHz, nil)
}

// TraceAt is TraceOf for levels at the bins' centre frequencies freqs
// when they are an analysis mode's (freqs of db's length; nil: k·binHz).
func TraceAt(name string, db []float32, binHz float64, freqs []float64) (*dsp.Trace, error) {
	freqs = tableFor(freqs, len(db))
	freq := make([]float64, len(db))
	lv := make([]float64, len(db))
	for k, d := range db {
		freq[k], lv[k] = binFreq(freqs, binHz, k), float64(d)
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

// Refs are the references, in the order kept. The slice is the set's:
// valid until the next change.
func (s *RefSet) Refs() []*Reference { return s.refs }

// DiffTo is the reference the difference is taken to; −1: none.
func (s *RefSet) DiffTo() int { return s.diffTo }

// SetDiffTo takes the difference to reference i (−1: none).
func (s *RefSet) SetDiffTo(i int) {
	s.diffTo = i
	s.ver++
}

// SetShown shows or hides reference i.
func (s *RefSet) SetShown(i int, on bool) {
	if i >= 0 && i < len(s.refs) && s.refs[i].Shown != on {
		s.refs[i].Shown = on
		s.ver++
	}
}

// Version changes with every change of the set.
func (s *RefSet) Version() int { return s.ver }
