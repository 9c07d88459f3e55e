package view

import (
	"image"
	"math"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/plot"
)

// The spectrum's own view of its data, as REW's and Friture's users
// expect: a frequency range (min/max Hz) within 20 Hz…Nyquist (the full
// axis), zoomed with the wheel around the cursor and dragged; the dB
// range zoomed with the wheel over the dB labels and dragged
// vertically (a free span, not only the controls' presets); a
// double-click goes back to the full frequency range. 1/N-octave
// smoothing of the traces drawn (app/dual's rule, the one the Transfer
// workspace uses), and a marker: a click puts it at the frequency under
// the cursor (a click on it removes it), and the cursor readout then
// says Δf and ΔdB from it.

// Smoothing fractions the view offers (1/N octave; 0 off): REW's
// choices that app/dual's smoother covers.
var SmoothingFractions = []int{0, 48, 24, 12, 6, 3, 2, 1}

// minZoomRatio is the narrowest frequency range, as hi/lo on a log
// axis (a twentieth of an octave), or the fraction of the full axis on
// the others.
const (
	minZoomLog  = 1.035
	minZoomFrac = 0.002
	minDBSpan   = 3
	maxDBSpan   = 400
	wheelFactor = 0.8 // one wheel notch in: the span shown times this
)

// SetFreqRange shows lo…hi Hz (0 for either: that end of the full axis).
func (v *SpectrumView) SetFreqRange(lo, hi float64) {
	v.fLo, v.fHi = lo, hi
	v.axis = v.full.Range(lo, hi)
	v.raster.Refresh()
}

// FreqRange is the frequency range shown (Hz).
func (v *SpectrumView) FreqRange() (lo, hi float64) { return v.axis.Low, v.axis.High }

// DBRange is the dB range shown.
func (v *SpectrumView) DBRange() (lo, hi float64) { return v.dbMin, v.dbMax }

// SetSmoothing smooths the traces drawn by 1/fraction octave (0: off; a
// fraction app/dual does not smooth by is off too).
func (v *SpectrumView) SetSmoothing(fraction int) {
	if !slices.Contains(SmoothingFractions, fraction) {
		fraction = 0
	}
	if fraction != v.smoothing {
		v.smoothing = fraction
		v.smoothers = v.smoothers[:0]
	}
	v.raster.Refresh()
}

// Smoothing is the smoothing's fraction (0: off).
func (v *SpectrumView) Smoothing() int { return v.smoothing }

// Marker is the marker's frequency and whether one is set.
func (v *SpectrumView) Marker() (float64, bool) { return v.markF, v.marked }

// SetMarker puts the marker at f Hz (ok false: removes it).
func (v *SpectrumView) SetMarker(f float64, ok bool) {
	v.markF, v.marked = f, ok
	v.raster.Refresh()
}

// Scrolled implements fyne.Scrollable: the wheel zooms the frequency
// axis around the cursor, or, over the dB labels left of the plot, the
// dB axis around the level under the cursor.
func (v *SpectrumView) Scrolled(e *fyne.ScrollEvent) {
	if v.area.Dx() <= 0 || e.Scrolled.DY == 0 {
		return
	}
	f := wheelFactor
	if e.Scrolled.DY < 0 {
		f = 1 / wheelFactor
	}
	x, y := v.p.px(e.Position.X), v.p.px(e.Position.Y)
	if x < v.area.Min.X {
		u := 1 - float64(y-v.area.Min.Y)/float64(v.area.Dy()) // 0 at the bottom
		v.zoomDB(f, min(1, max(0, u)))
	} else {
		u := float64(x-v.area.Min.X) / float64(v.area.Dx())
		v.zoomFreq(f, min(1, max(0, u)))
	}
	v.rangeChanged()
}

// Dragged implements fyne.Draggable: dragging moves both axes.
func (v *SpectrumView) Dragged(e *fyne.DragEvent) {
	a := v.area
	if a.Dx() <= 0 || a.Dy() <= 0 {
		return
	}
	dx := float64(v.p.px(e.Dragged.DX)) / float64(a.Dx())
	dy := float64(v.p.px(e.Dragged.DY)) / float64(a.Dy())
	if dx != 0 {
		v.panFreq(-dx)
	}
	if dy != 0 {
		d := dy * (v.dbMax - v.dbMin)
		v.dbMin, v.dbMax = v.dbMin+d, v.dbMax+d
	}
	v.dragging = true
	v.raster.Refresh()
}

// DragEnd implements fyne.Draggable.
func (v *SpectrumView) DragEnd() {
	if v.dragging {
		v.dragging = false
		v.rangeChanged()
	}
}

// DoubleTapped implements fyne.DoubleTappable: the full frequency range.
func (v *SpectrumView) DoubleTapped(*fyne.PointEvent) {
	v.SetFreqRange(0, 0)
	v.rangeChanged()
}

// Tapped implements fyne.Tappable: a click sets the marker at the
// frequency under it, or removes the marker when it is clicked.
func (v *SpectrumView) Tapped(e *fyne.PointEvent) {
	px := v.pixelX(e.Position.X)
	if px < 0 {
		return
	}
	if v.marked {
		mx := int(v.axis.Pos(v.markF) * float64(v.area.Dx()))
		if abs(mx-px) <= v.p.px(4) {
			v.SetMarker(0, false)
			return
		}
	}
	v.SetMarker(v.axis.Freq((float64(px)+0.5)/float64(v.area.Dx())), true)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// rangeChanged tells OnRange (if set) the ranges shown.
func (v *SpectrumView) rangeChanged() {
	v.raster.Refresh()
	if v.OnRange != nil {
		v.OnRange(v.fLo, v.fHi, v.dbMin, v.dbMax)
	}
}

// zoomFreq multiplies the frequency range's width (in axis positions of
// the full axis) by f, keeping the frequency at u (0…1 of the plot) in
// place.
func (v *SpectrumView) zoomFreq(f, u float64) {
	full := v.full
	p0, p1 := full.Pos(v.axis.Low), full.Pos(v.axis.High)
	c := p0 + u*(p1-p0)
	w := min(1, (p1-p0)*f)
	if w < minZoomFrac && full.Scale != plot.Log {
		w = minZoomFrac
	}
	p0 = min(1-w, max(0, c-u*w))
	v.setPositions(p0, p0+w)
}

// panFreq moves the frequency range by d of its width.
func (v *SpectrumView) panFreq(d float64) {
	full := v.full
	p0, p1 := full.Pos(v.axis.Low), full.Pos(v.axis.High)
	w := p1 - p0
	p0 = min(1-w, max(0, p0+d*w))
	v.setPositions(p0, p0+w)
}

// setPositions shows the full axis from position p0 to p1 (0…1).
func (v *SpectrumView) setPositions(p0, p1 float64) {
	full := v.full
	lo, hi := full.Freq(p0), full.Freq(p1)
	if full.Scale == plot.Log && hi/lo < minZoomLog {
		return
	}
	if p0 <= 1e-9 {
		lo = 0
	}
	if p1 >= 1-1e-9 {
		hi = 0
	}
	v.fLo, v.fHi = lo, hi
	v.axis = full.Range(lo, hi)
	v.raster.Refresh()
}

// zoomDB multiplies the dB span by f, keeping the level at u (0 the
// bottom, 1 the top) in place; the span stays within minDBSpan…maxDBSpan.
func (v *SpectrumView) zoomDB(f, u float64) {
	span := v.dbMax - v.dbMin
	at := v.dbMin + u*span
	span = min(maxDBSpan, max(minDBSpan, span*f))
	v.dbMin = at - u*span
	v.dbMax = v.dbMin + span
}

// smoothed is db smoothed by the view's fraction into the view's buffer
// slot (db itself when smoothing is off). It allocates only for a new
// geometry or slot.
func (v *SpectrumView) smoothed(db []float32, slot int) []float32 {
	if v.smoothing == 0 || len(db) < 2 || v.shownFreqs(len(db)) != nil { // a mode's bins: not smoothed
		return db
	}
	var s *dual.Smoother
	for _, c := range v.smoothers {
		if c.bins == len(db) {
			s = c.s
		}
	}
	if s == nil {
		var err error
		if s, err = dual.NewSmoother(len(db), v.smoothing); err != nil {
			return db
		}
		if len(v.smoothers) >= 4 {
			v.smoothers = v.smoothers[1:]
		}
		v.smoothers = append(v.smoothers, smootherOf{bins: len(db), s: s})
	}
	for len(v.smoothBuf) <= slot {
		v.smoothBuf = append(v.smoothBuf, nil)
	}
	if cap(v.smoothPow) < len(db) {
		v.smoothPow = make([]float64, len(db))
	}
	pow := v.smoothPow[:len(db)]
	for k, d := range db {
		pow[k] = math.Pow(10, float64(d)/10)
	}
	s.Power(pow, pow)
	out := v.smoothBuf[slot]
	if cap(out) < len(db) {
		out = make([]float32, len(db))
	}
	out = out[:len(db)]
	for k, p := range pow {
		out[k] = float32(10 * math.Log10(p))
	}
	v.smoothBuf[slot] = out
	return out
}

// smootherOf is a smoother for spectra of bins values.
type smootherOf struct {
	bins int
	s    *dual.Smoother
}

// levelShown is the first spectrum's level at f as drawn (smoothed when
// smoothing is on).
func (v *SpectrumView) levelShown(f float64) float64 {
	sp := &v.spectra[0]
	db := sp.Current
	if v.smoothing != 0 && len(v.smoothBuf) > 1 && len(v.smoothBuf[1]) == len(db) {
		db = v.smoothBuf[1]
	}
	return spLevelAt(sp, db, f)
}

// drawMarker draws the marker's line and its label (frequency, level)
// at the top of the plot.
func (v *SpectrumView) drawMarker(pal *palette) {
	v.markLabel = v.markLabel[:0]
	if !v.marked || v.n == 0 {
		return
	}
	pos := v.axis.Pos(v.markF)
	if pos < 0 || pos > 1 {
		return
	}
	a := v.area
	p := &v.p
	x := a.Min.X + int(pos*float64(a.Dx()))
	p.vline(x, a.Min.Y, a.Max.Y-1, pal.marker)
	b := append(v.markLabel, "M "...)
	b = appendHz(b, v.markF)
	b = append(b, "  "...)
	b = appendDBIn(b, v.levelShown(v.markF), v.unit)
	v.markLabel = b
	y := a.Max.Y - p.px(4) - 2*p.textHeight() - p.px(4)
	wid := p.textWidthBytes(b)
	tx := x + p.px(4)
	if tx+wid > a.Max.X {
		tx = x - p.px(4) - wid
	}
	p.blendFill(image.Rect(tx-p.px(2), y-p.px(1), tx+wid+p.px(2), y+p.textHeight()+p.px(1)), pal.plotBg, 200)
	p.textBytes(b, tx, y, 0, 0, pal.marker)
}

// MarkerLabel is the marker's label last drawn ("" none).
func (v *SpectrumView) MarkerLabel() string { return string(v.markLabel) }

// appendSignedHz formats a frequency difference with its sign: +1.23 kHz.
func appendSignedHz(b []byte, d float64) []byte {
	if d < 0 {
		b = append(b, "−"...)
		d = -d
	} else {
		b = append(b, '+')
	}
	return appendHz(b, d)
}

// appendSignedDB formats a level difference with its sign: −3.2 dB.
func appendSignedDB(b []byte, d float64) []byte {
	switch {
	case math.IsNaN(d) || math.IsInf(d, 0):
		return append(b, "— dB"...)
	case d < 0:
		b = append(b, "−"...)
		d = -d
	default:
		b = append(b, '+')
	}
	b = strconv.AppendFloat(b, d, 'f', 1, 64)
	return append(b, " dB"...)
}
