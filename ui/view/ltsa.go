package view

import (
	"image"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/archive/cache"
	"github.com/prismaudio/prism/app/plot"
)

// LTSAView shows an archive's long-term spectral average: absolute time
// (UTC) across, frequency up (linear, as LTSAs are read), the level in
// colour; time with no recording stays the plot's background. The wheel
// zooms around the cursor (from the whole archive down to a fraction of
// a file), dragging pans, and a click hands the instant under the cursor
// to OnPick. A finer LTSA of the region shown (SetDetail) replaces the
// overview where it covers the view. Only the Fyne goroutine uses it.
type LTSAView struct {
	plotBase
	over, detail *cache.LTSA
	origin       time.Time // the archive's start: times below are seconds from it
	dur          float64   // the archive's span, s
	t0, t1       float64   // the span shown
	axis         plot.FreqAxis
	lut          *[256][3]uint8
	dbMin, dbMax float64
	fixedRange   bool // dbMin, dbMax set (SetRange), not from the levels
	message      string

	plot    *image.RGBA
	plotKey ltsaKey
	hover   bool
	cursor  fyne.Position
	readout string

	// OnView is called when the span shown changes.
	OnView func(from, to time.Time)
	// OnPick is called with the instant clicked.
	OnPick func(t time.Time)
}

type ltsaKey struct {
	over, detail *cache.LTSA
	w, h         int
	t0, t1       float64
	lut          *[256][3]uint8
	dbMin, dbMax float64
}

// NewLTSAView makes an empty view that says message.
func NewLTSAView(colormap plot.Colormap, message string) *LTSAView {
	v := &LTSAView{message: message, dbMin: -120, dbMax: -20}
	v.dark = true
	v.lut = colormap.LUT()
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *LTSAView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(320, 160))
}

// SetMessage shows message instead of the LTSA (empty: the LTSA again).
func (v *LTSAView) SetMessage(message string) {
	v.message = message
	v.Refresh()
}

// Message is what the view says instead of the LTSA ("": none).
func (v *LTSAView) Message() string { return v.message }

// SetColormap chooses the colormap.
func (v *LTSAView) SetColormap(c plot.Colormap) { v.lut = c.LUT(); v.Refresh() }

// SetDark chooses the palette.
func (v *LTSAView) SetDark(dark bool) { v.dark = dark }

// SetLTSA shows the overview of the archive from..to, all of it, with a
// colour range from its levels (the 1st to the 99.9th percentile).
func (v *LTSAView) SetLTSA(l *cache.LTSA, from, to time.Time) {
	v.over, v.detail = l, nil
	v.origin, v.dur = from, max(to.Sub(from).Seconds(), 1e-3)
	v.t0, v.t1 = 0, v.dur
	v.message = ""
	if l != nil && len(l.Freqs) > 1 {
		n := len(l.Freqs)
		v.axis = plot.NewFreqAxis(plot.Lin, int(math.Round(2*l.Freqs[n-1])), 2*(n-1))
		if !v.fixedRange {
			v.dbMin, v.dbMax = levelRange(l)
		}
	}
	v.Refresh()
}

// SetRange fixes the colour range to lo…hi dB; auto (lo, hi ignored)
// takes it from the overview's levels again, as SetLTSA does.
func (v *LTSAView) SetRange(lo, hi float64, auto bool) {
	v.fixedRange = !auto
	switch {
	case !auto:
		v.dbMin, v.dbMax = lo, hi
	case v.over != nil:
		v.dbMin, v.dbMax = levelRange(v.over)
	}
	v.Refresh()
}

// levelRange is the 1st and 99.9th percentiles of l's levels (a sample).
func levelRange(l *cache.LTSA) (lo, hi float64) {
	var s []float64
	for i, r := range l.Rows {
		for k := i % 7; k < len(r.Level); k += 7 {
			if x := float64(r.Level[k]); !math.IsNaN(x) {
				s = append(s, x)
			}
		}
	}
	if len(s) == 0 {
		return -120, -20
	}
	slices.Sort(s)
	lo, hi = s[len(s)/100], s[len(s)-1-len(s)/1000]
	if hi-lo < 10 {
		lo = hi - 10
	}
	return math.Floor(lo), math.Ceil(hi)
}

// SetDetail shows a finer LTSA of part of the archive where it covers
// the view.
func (v *LTSAView) SetDetail(l *cache.LTSA) {
	v.detail = l
	v.updateReadout()
	v.Refresh()
}

// LTSA is the overview shown (nil: none).
func (v *LTSAView) LTSA() *cache.LTSA { return v.over }

// Range is the colour range, dB.
func (v *LTSAView) Range() (dbMin, dbMax float64) { return v.dbMin, v.dbMax }

// View is the span shown.
func (v *LTSAView) View() (from, to time.Time) { return v.at(v.t0), v.at(v.t1) }

func (v *LTSAView) at(s float64) time.Time { return v.origin.Add(time.Duration(s * 1e9)) }

// SetView shows from..to, clamped to the archive and to at least a
// second.
func (v *LTSAView) SetView(from, to time.Time) {
	if v.over == nil {
		return
	}
	t0, t1 := from.Sub(v.origin).Seconds(), to.Sub(v.origin).Seconds()
	span := min(v.dur, max(1, t1-t0))
	t0 = min(max(0, t0), v.dur-span)
	if t0 == v.t0 && t0+span == v.t1 {
		return
	}
	v.t0, v.t1 = t0, t0+span
	if v.OnView != nil {
		v.OnView(v.View())
	}
	v.updateReadout()
	v.Refresh()
}

// Zoom scales the span shown by factor (< 1 zooms in) around instant t
// (seconds from the archive's start).
func (v *LTSAView) Zoom(factor, t float64) {
	span := (v.t1 - v.t0) * factor
	f := 0.5
	if v.t1 > v.t0 {
		f = (t - v.t0) / (v.t1 - v.t0)
	}
	v.SetView(v.at(t-f*span), v.at(t-f*span+span))
}

// Cursor is the instant under the mouse, when it is over the plot.
func (v *LTSAView) Cursor() (time.Time, bool) {
	if !v.hover || v.over == nil {
		return time.Time{}, false
	}
	t, ok := v.timeAt(v.cursor.X)
	return v.at(t), ok
}

// Centre is the middle of the span shown.
func (v *LTSAView) Centre() time.Time { return v.at((v.t0 + v.t1) / 2) }

// ZoomCentre zooms around the middle of the span shown.
func (v *LTSAView) ZoomCentre(factor float64) { v.Zoom(factor, (v.t0+v.t1)/2) }

// Pan moves the span shown by a fraction of itself.
func (v *LTSAView) Pan(fraction float64) {
	d := (v.t1 - v.t0) * fraction
	v.SetView(v.at(v.t0+d), v.at(v.t1+d))
}

// Scrolled implements fyne.Scrollable: the wheel zooms around the cursor.
func (v *LTSAView) Scrolled(e *fyne.ScrollEvent) {
	t, _ := v.timeAt(e.Position.X)
	if e.Scrolled.DY > 0 {
		v.Zoom(0.8, t)
	} else if e.Scrolled.DY < 0 {
		v.Zoom(1.25, t)
	}
}

// Dragged implements fyne.Draggable: dragging pans.
func (v *LTSAView) Dragged(e *fyne.DragEvent) {
	if w := float64(v.area.Dx()) / float64(max(v.p.scale, 1e-6)); w > 0 {
		v.Pan(-float64(e.Dragged.DX) / w)
	}
}

// DragEnd implements fyne.Draggable.
func (v *LTSAView) DragEnd() {}

// Tapped implements fyne.Tappable: the instant clicked goes to OnPick.
func (v *LTSAView) Tapped(e *fyne.PointEvent) {
	if t, ok := v.timeAt(e.Position.X); ok && v.over != nil && v.OnPick != nil {
		v.OnPick(v.at(t))
	}
}

// MouseIn implements desktop.Hoverable.
func (v *LTSAView) MouseIn(e *desktop.MouseEvent) { v.MouseMoved(e) }

// MouseMoved implements desktop.Hoverable.
func (v *LTSAView) MouseMoved(e *desktop.MouseEvent) {
	v.hover, v.cursor = true, e.Position
	v.updateReadout()
	v.raster.Refresh()
}

// MouseOut implements desktop.Hoverable.
func (v *LTSAView) MouseOut() {
	v.hover, v.readout = false, ""
	v.raster.Refresh()
}

// Readout is the cursor readout: the instant (UTC), frequency and level.
func (v *LTSAView) Readout() string { return v.readout }

// timeAt is the instant (seconds from the archive's start) at widget x,
// and whether x is over the plot.
func (v *LTSAView) timeAt(x float32) (float64, bool) {
	a := v.area
	if a.Dx() <= 0 {
		return v.t0, false
	}
	px := v.p.px(x) - a.Min.X
	return v.t0 + (float64(px)+0.5)/float64(a.Dx())*(v.t1-v.t0), px >= 0 && px < a.Dx()
}

// Shown is the LTSA drawn: the detail where it covers the view, else the
// overview.
func (v *LTSAView) Shown() *cache.LTSA {
	if v.over == nil {
		return nil
	}
	return v.source()
}

// source is the LTSA that covers the view best.
func (v *LTSAView) source() *cache.LTSA {
	if d := v.detail; d != nil && len(d.Rows) > 0 && d.Average < v.over.Average &&
		!d.Rows[0].Start.After(v.at(v.t0).Add(d.Average)) && !d.Rows[len(d.Rows)-1].Start.Add(2*d.Average).Before(v.at(v.t1)) {
		return d
	}
	return v.over
}

// rowsIn is the index range of l's rows that meet [ta, tb) (seconds).
func (v *LTSAView) rowsIn(l *cache.LTSA, ta, tb float64) (int, int) {
	a, b := v.at(ta), v.at(tb)
	i := sort.Search(len(l.Rows), func(i int) bool { return l.Rows[i].Start.Add(l.Average).After(a) })
	j := i
	for j < len(l.Rows) && l.Rows[j].Start.Before(b) {
		j++
	}
	return i, j
}

func (v *LTSAView) updateReadout() {
	v.readout = ""
	if v.over == nil || !v.hover {
		return
	}
	t, okX := v.timeAt(v.cursor.X)
	py := v.p.px(v.cursor.Y) - v.area.Min.Y
	if !okX || py < 0 || py >= v.area.Dy() {
		return
	}
	src := v.source()
	f := v.axis.Freq(1 - (float64(py)+0.5)/float64(v.area.Dy()))
	s := v.at(t).UTC().Format("2006-01-02 15:04:05") + " UTC   " + plot.FormatHz(f) + " Hz"
	if i, j := v.rowsIn(src, t, t+1e-9); j > i {
		k := min(len(src.Freqs)-1, int(math.Round(f/src.Freqs[1])))
		s += "   " + strconv.FormatFloat(float64(src.Rows[i].Level[k]), 'f', 1, 32) + " " + src.Unit
	} else {
		s += "   no recording"
	}
	v.readout = s
}
