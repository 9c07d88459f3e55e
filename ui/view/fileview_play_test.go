package view

import (
	"image"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/selection"
)

// toneLane is syntheticFile's shape with a steady tone at f Hz: a second
// channel.
func toneLane(f float64) *analysis.FileSpectrogram {
	fs := syntheticFile()
	binHz := fs.BinHz()
	for _, col := range fs.Columns {
		for k := range col {
			d := math.Abs(float64(k)*binHz-f) / binHz
			col[k] = float32(math.Max(-90, -10-20*d))
		}
	}
	return fs
}

// TestFileViewPlayhead: the playhead is a full-height line at the
// position's column (over the plot and into the time axis), a click seeks
// to the time under it, and a drag on the time axis selects the time
// range dragged over and hands it on when it ends.
func TestFileViewPlayhead(t *testing.T) {
	test.NewTempApp(t)
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetFile(syntheticFile())
	v.SetPlayhead(1.25, true)
	var sel selection.Range
	v.OnSelection(func(r selection.Range) { sel = r })
	var seek float64 = -1
	v.OnSeek(func(t float64) { seek = t })
	img := capture(win)
	x := v.PlayheadX()
	a := v.area
	if want := a.Min.X + int(1.25/4*float64(a.Dx()-1)+0.5); x != want {
		t.Fatalf("playhead at x %d, want %d", x, want)
	}
	for _, y := range []int{a.Min.Y, (a.Min.Y + a.Max.Y) / 2, a.Max.Y - 1, a.Max.Y + 1} {
		if c := img.RGBAAt(x, y); !near(c, playColour, 2) {
			t.Errorf("playhead pixel (%d, %d) is %v, want %v", x, y, c, playColour)
		}
	}
	test.AssertImageMatches(t, "fileview_playhead.png", img)

	// a click at 3 s seeks there
	px := func(t float64) float32 { return float32(float64(a.Min.X)+t/4*float64(a.Dx())) / v.p.scale }
	test.TapAt(v, fyne.NewPos(px(3), float32(a.Min.Y+10)/v.p.scale))
	if math.Abs(seek-3) > 4.0/float64(a.Dx())*2 {
		t.Errorf("a click at 3 s seeks to %g s", seek)
	}
	// a drag on the time axis from 0.5 s to 1.5 s selects them
	y := float32(a.Max.Y+v.p.px(6)) / v.p.scale
	// as the desktop driver sends it: the button down, drag events with
	// the pointer's position and the move since the last, the button up
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(px(0.5), y)}})
	for _, tt := range []float64{0.6, 1.0, 1.5} {
		v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(px(tt), y)}, Dragged: fyne.Delta{DX: 4}})
	}
	v.DragEnd()
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(px(1.5), y)}})
	got := v.Selection()
	if math.Abs(got.T0-0.5) > 0.01 || math.Abs(got.T1-1.5) > 0.01 || got.HasBand() {
		t.Errorf("dragging the time axis 0.5…1.5 s selects %+v", got)
	}
	if sel != got {
		t.Errorf("the drag handed on %+v, shows %+v", sel, got)
	}
	if t0, t1 := v.View(); t0 != 0 || t1 != 4 {
		t.Errorf("the selecting drag panned the view to %g…%g", t0, t1)
	}
}

// TestFileViewSelectionBox: a time×frequency box is drawn over its times
// and band (brighter inside than the same pixels without it), the
// colour scale runs from the top of the range to the bottom, and Z's
// zoom shows the box's times and band.
func TestFileViewSelectionBox(t *testing.T) {
	test.NewTempApp(t)
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetFile(syntheticFile())
	plain := capture(win)
	box := selection.Range{T0: 1, T1: 3, LoHz: 1000, HiHz: 4000}
	v.SetSelection(box)
	img := capture(win)
	test.AssertImageMatches(t, "fileview_box.png", img)
	a := v.area
	xIn := a.Min.X + int(2.0/4*float64(a.Dx())) + 3
	yIn := a.Max.Y - int(v.axis.Pos(3000)*float64(a.Dy()))
	yOut := a.Max.Y - int(v.axis.Pos(200)*float64(a.Dy()))
	lum := func(im *image.RGBA, x, y int) int { c := im.RGBAAt(x, y); return int(c.R) + int(c.G) + int(c.B) }
	if lum(img, xIn, yIn) <= lum(plain, xIn, yIn) {
		t.Errorf("inside the box (3 kHz, 2 s) the pixel is not lighter: %v vs %v", img.RGBAAt(xIn, yIn), plain.RGBAAt(xIn, yIn))
	}
	if img.RGBAAt(xIn, yOut) != plain.RGBAAt(xIn, yOut) {
		t.Errorf("below the box (200 Hz) the pixel changed: %v vs %v", img.RGBAAt(xIn, yOut), plain.RGBAAt(xIn, yOut))
	}
	// the colour scale: the top is the colour map at 0 dB, the bottom at −100
	lut := plot.Magma.LUT()
	xs := a.Max.X + v.p.px(8)
	top, bot := img.RGBAAt(xs, a.Min.Y), img.RGBAAt(xs, a.Max.Y-1)
	if c := lut[255]; int(top.R) != int(c[0]) || int(top.G) != int(c[1]) || int(top.B) != int(c[2]) {
		t.Errorf("the colour scale's top is %v, want the map's 0 dB %v", top, c)
	}
	if c := lut[0]; int(bot.R) != int(c[0]) || int(bot.G) != int(c[1]) || int(bot.B) != int(c[2]) {
		t.Errorf("the colour scale's bottom is %v, want the map's −100 dB %v", bot, c)
	}

	v.ZoomToSelection()
	if t0, t1 := v.View(); t0 != 1 || t1 != 3 {
		t.Errorf("zoomed to the box: %g…%g s", t0, t1)
	}
	if ax := v.Axis(); ax.Low != 1000 || ax.High != 4000 {
		t.Errorf("zoomed to the box: %g…%g Hz", ax.Low, ax.High)
	}
	// Shift+wheel: the span around 2 kHz halves in octaves, 2 kHz stays
	v.ZoomFreq(0.5, 2000)
	if ax := v.Axis(); math.Abs(math.Log2(ax.High/ax.Low)-1) > 1e-9 || math.Abs(math.Log2(2000/ax.Low)-0.5) > 1e-9 {
		t.Errorf("zooming 1–4 kHz by half around 2 kHz: %g…%g Hz, want 1414…2828", ax.Low, ax.High)
	}
	v.ZoomFreq(1000, 2000)
	if ax, full := v.Axis(), plot.NewFreqAxis(plot.Log, 48000, 1024); ax.Low != full.Low || ax.High != full.High {
		t.Errorf("zooming out past the axis: %g…%g Hz", ax.Low, ax.High)
	}
	v.SetFreqRange(1000, 4000)
	v.SetSelection(selection.Range{})
	v.ZoomToSelection()
	if ax, full := v.Axis(), plot.NewFreqAxis(plot.Log, 48000, 1024); ax.Low != full.Low || ax.High != full.High {
		t.Errorf("Z without a selection: %g…%g Hz, want the whole axis", ax.Low, ax.High)
	}
}

// TestFileViewLanes: with lanes on, each channel is drawn in its own
// strip, its tone at its own frequency there, and the readout follows the
// lane under the cursor.
func TestFileViewLanes(t *testing.T) {
	test.NewTempApp(t)
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 360)
	v.SetFile(syntheticFile())
	v.SetLanes([]*analysis.FileSpectrogram{toneLane(300), toneLane(6000)})
	if n := v.LanesShown(); n != 0 {
		t.Fatalf("lanes shown before ShowLanes: %d", n)
	}
	v.ShowLanes(true)
	img := capture(win)
	test.AssertImageMatches(t, "fileview_lanes.png", img)
	rs := v.laneRects()
	if len(rs) != 2 {
		t.Fatalf("%d lanes", len(rs))
	}
	x := (rs[0].Min.X + rs[0].Max.X) / 2
	for i, f := range []float64{300, 6000} {
		r := rs[i]
		// the brightest row of the lane is the tone's
		best, by := -1, 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			c := img.RGBAAt(x, y)
			if l := int(c.R) + int(c.G) + int(c.B); l > best {
				best, by = l, y
			}
		}
		if got := v.freqAtY(r, by); math.Abs(math.Log2(got/f)) > 0.1 {
			t.Errorf("lane %d: brightest at %.0f Hz, want %.0f", i, got, f)
		}
	}
	v.ShowLanes(false)
	if n := v.LanesShown(); n != 0 {
		t.Errorf("lanes shown after ShowLanes(false): %d", n)
	}
}
