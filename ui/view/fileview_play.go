package view

import (
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/selection"
)

// fileOverlay is what the file view draws over the spectrogram and how
// it is selected: the playhead, the selection and the drag making it, the
// lanes (one per channel) and the frequency zoom.
type fileOverlay struct {
	playOn bool
	playT  float64 // the playhead, seconds
	sel    selection.Range
	drag   dragMode
	start  fyne.Position // where the drag began
	down   fyne.Position // where the button went down (MouseDown)
	isDown bool
	onSel  func(selection.Range)
	onSeek func(t float64)

	fLo, fHi float64 // the frequency zoom (0, 0: the whole axis)

	lanes   []*analysis.FileSpectrogram
	lanesOn bool
	laneGen int                       // counts lane changes (the plot's cache key)
	rects   [maxLanes]image.Rectangle // laneRects' storage
	tag     string                    // the background's key for the lanes shown
	label   []byte                    // the colour scale's label being drawn
}

// maxLanes is the most channels drawn as lanes.
const maxLanes = 8

type dragMode int

const (
	dragNone dragMode = iota
	dragPan
	dragTime // on the time axis: a time selection
	dragBox  // Shift on the plot: a time×frequency box
)

// playColour is the playhead's; selColour the selection's.
var (
	playColour = color.RGBA{64, 200, 255, 255}
	selColour  = color.RGBA{255, 255, 255, 255}
)

// SetPlayhead shows the playhead at t seconds (on), or hides it.
func (v *FileView) SetPlayhead(t float64, on bool) {
	if v.play.playOn == on && v.play.playT == t {
		return
	}
	v.play.playOn, v.play.playT = on, t
	v.raster.Refresh()
}

// Playhead is the playhead's time and whether it is shown.
func (v *FileView) Playhead() (float64, bool) { return v.play.playT, v.play.playOn }

// PlayheadX is the playhead's pixel column in the last frame drawn (−1:
// not in view).
func (v *FileView) PlayheadX() int {
	a := v.area
	if !v.play.playOn || v.t1 <= v.t0 || v.play.playT < v.t0 || v.play.playT > v.t1 {
		return -1
	}
	return a.Min.X + int((v.play.playT-v.t0)/(v.t1-v.t0)*float64(a.Dx()-1)+0.5)
}

// SetSelection shows a selection (the zero Range: none).
func (v *FileView) SetSelection(r selection.Range) {
	v.play.sel = r
	v.raster.Refresh()
}

// Selection is the selection shown (T1 ≤ T0: none).
func (v *FileView) Selection() selection.Range { return v.play.sel }

// OnSelection sets what a finished drag's selection is handed to.
func (v *FileView) OnSelection(fn func(selection.Range)) { v.play.onSel = fn }

// OnSeek sets what a click's time is handed to.
func (v *FileView) OnSeek(fn func(t float64)) { v.play.onSeek = fn }

// Tapped implements fyne.Tappable: a click on the plot or the time axis
// seeks there.
func (v *FileView) Tapped(e *fyne.PointEvent) {
	t, ok := v.timeAt(e.Position.X)
	if !ok || v.fs == nil || v.play.onSeek == nil {
		return
	}
	v.play.onSeek(t)
}

// MouseDown implements desktop.Mouseable: it keeps where a drag begins.
func (v *FileView) MouseDown(e *desktop.MouseEvent) { v.play.down, v.play.isDown = e.Position, true }

// MouseUp implements desktop.Mouseable.
func (v *FileView) MouseUp(*desktop.MouseEvent) { v.play.isDown = false }

// shiftHeld says whether Shift is down (false where the driver cannot
// say).
func shiftHeld() bool {
	if app := fyne.CurrentApp(); app != nil {
		if d, ok := app.Driver().(desktop.Driver); ok {
			return d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0
		}
	}
	return false
}

// dragSelect makes the selection of a drag on the time axis (a time
// range) or of a drag with Shift on the plot (a box), and says whether
// the drag selects (else it pans).
func (v *FileView) dragSelect(e *fyne.DragEvent) bool {
	if v.fs == nil {
		return false
	}
	if v.play.drag == dragNone {
		// the drag began where the button went down (the first drag
		// event comes a few pixels later; Position is the pointer now)
		start := fyne.NewPos(e.Position.X-e.Dragged.DX, e.Position.Y-e.Dragged.DY)
		if v.play.isDown {
			start = v.play.down
		}
		py := v.p.px(start.Y)
		switch {
		case py >= v.area.Max.Y:
			v.play.drag = dragTime
		case shiftHeld():
			v.play.drag = dragBox
		default:
			v.play.drag = dragPan
		}
		v.play.start = start
	}
	if v.play.drag == dragPan {
		return false
	}
	end := e.Position
	t0, _ := v.timeAt(v.play.start.X)
	t1, _ := v.timeAt(end.X)
	t0, t1 = math.Min(t0, t1), math.Max(t0, t1)
	r := selection.Range{T0: max(0, t0), T1: min(v.fs.Duration, t1)}
	if v.play.drag == dragBox {
		_, lane, _ := v.laneAt(v.p.px(v.play.start.Y))
		fa, fb := v.freqAtY(lane, v.p.px(v.play.start.Y)), v.freqAtY(lane, v.p.px(end.Y))
		r.LoHz, r.HiHz = math.Min(fa, fb), math.Max(fa, fb)
	}
	v.play.sel = r
	v.raster.Refresh()
	return true
}

// freqAtY is the frequency at pixel row y of lane r (clamped to it).
func (v *FileView) freqAtY(r image.Rectangle, y int) float64 {
	y = min(r.Max.Y-1, max(r.Min.Y, y))
	return v.axis.Freq(1 - (float64(y-r.Min.Y)+0.5)/float64(r.Dy()))
}

// endDrag hands a selecting drag's selection on.
func (v *FileView) endDrag() {
	mode := v.play.drag
	v.play.drag = dragNone
	if mode == dragTime || mode == dragBox {
		if v.play.onSel != nil && v.play.sel.T1 > v.play.sel.T0 {
			v.play.onSel(v.play.sel)
		}
	}
}

// ZoomToSelection shows the selection's time range and, for a box, its
// band; without a selection it shows every frequency again.
func (v *FileView) ZoomToSelection() {
	r := v.play.sel
	if r.T1 <= r.T0 {
		v.SetFreqRange(0, 0)
		return
	}
	if r.HasBand() {
		v.SetFreqRange(r.LoHz, r.HiHz)
	}
	v.SetView(r.T0, r.T1)
}

// drawOverlay draws the selection, the playhead and the colour scale
// over the frame.
func (v *FileView) drawOverlay() {
	a := v.area
	p := &v.p
	if r := v.play.sel; r.T1 > r.T0 && v.t1 > v.t0 {
		x0 := a.Min.X + int(math.Round((r.T0-v.t0)/(v.t1-v.t0)*float64(a.Dx())))
		x1 := a.Min.X + int(math.Round((r.T1-v.t0)/(v.t1-v.t0)*float64(a.Dx())))
		x0, x1 = max(a.Min.X, x0), min(a.Max.X, x1)
		for _, lane := range v.laneRects() {
			y0, y1 := lane.Min.Y, lane.Max.Y
			if r.HasBand() {
				y0 = lane.Max.Y - int(v.axis.Pos(r.HiHz)*float64(lane.Dy())+0.5)
				y1 = lane.Max.Y - int(v.axis.Pos(r.LoHz)*float64(lane.Dy())+0.5)
				y0, y1 = max(lane.Min.Y, y0), min(lane.Max.Y, y1)
			}
			if x1 > x0 && y1 > y0 {
				p.blendFill(image.Rect(x0, y0, x1, y1), selColour, 56)
				p.hline(x0, x1, y0, selColour)
				p.hline(x0, x1, y1-1, selColour)
				p.vline(x0, y0, y1-1, selColour)
				p.vline(x1-1, y0, y1-1, selColour)
			}
		}
		// the time axis shows the selected range too
		if x1 > x0 {
			p.blendFill(image.Rect(x0, a.Max.Y, x1, a.Max.Y+p.px(4)), selColour, 120)
		}
	}
	if x := v.PlayheadX(); x >= 0 {
		w := max(1, p.px(1.5))
		p.fill(image.Rect(x-w/2, a.Min.Y, x-w/2+w, a.Max.Y+p.px(4)), playColour)
		m := p.px(4)
		for i := range m { // a small triangle on the time axis
			p.hline(x-m+i+1, x+m-i, a.Max.Y+p.px(4)+i, playColour)
		}
	}
	v.drawLaneNames()
	v.drawColourScale()
}
