package view

import (
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/plot"
)

// zoomView is a log spectrum view at 48 kHz, N=4096, 800×300, drawn
// once, with OnRange recording what it is told.
func zoomView(t *testing.T) (*SpectrumView, fyne.Window, *[4]float64) {
	t.Helper()
	test.NewTempApp(t)
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	var told [4]float64
	v.OnRange = func(a, b, c, d float64) { told = [4]float64{a, b, c, d} }
	win := showIn(t, v, 800, 300)
	v.Pull(newFakeSource(), []int{2})
	capture(win)
	return v, win, &told
}

// unitsAt is the widget x (units) of plot fraction u.
func unitsAt(v *SpectrumView, u float64) float32 {
	pos, size := v.PlotArea()
	return pos.X + float32(u)*size.Width
}

// TestSpectrumFreqRange: a frequency range maps its ends to the plot's
// edges on the log, linear and mel axes; 0 is the full axis's end; a
// range outside the axis is clamped to it.
func TestSpectrumFreqRange(t *testing.T) {
	test.NewTempApp(t)
	for _, scale := range []plot.Scale{plot.Log, plot.Lin, plot.Mel} {
		v := NewSpectrumView(48000, 4096, scale, -120, 0)
		v.SetFreqRange(200, 2000)
		if lo, hi := v.FreqRange(); lo != 200 || hi != 2000 {
			t.Errorf("%v: range %g…%g, want 200…2000", scale, lo, hi)
		}
		if p0, p1, pm := v.Axis().Pos(200), v.Axis().Pos(2000), v.Axis().Pos(1000); math.Abs(p0) > 1e-12 || math.Abs(p1-1) > 1e-12 || pm <= 0 || pm >= 1 {
			t.Errorf("%v: 200 Hz at %g, 2000 Hz at %g, 1000 Hz at %g", scale, p0, p1, pm)
		}
		v.SetFreqRange(0, 1e6)
		full := plot.NewFreqAxis(scale, 48000, 4096)
		if lo, hi := v.FreqRange(); lo != full.Low || hi != full.High {
			t.Errorf("%v: range %g…%g, want the full %g…%g", scale, lo, hi, full.Low, full.High)
		}
	}
}

// TestSpectrumWheelZoom: a wheel notch in over the plot narrows the
// frequency range to 0.8 of its width (in axis positions) keeping the
// frequency under the cursor in place, and OnRange is told; out again
// returns to the full axis; over the dB labels the wheel zooms the dB
// span by 0.8 around the level under the cursor; a double-click returns
// to the full frequency range.
func TestSpectrumWheelZoom(t *testing.T) {
	v, win, told := zoomView(t)
	full := v.Axis()
	u := 0.3
	x := unitsAt(v, u)
	before, _ := v.FreqAt(x)
	v.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, 100)}, Scrolled: fyne.NewDelta(0, 1)})
	capture(win)
	after, _ := v.FreqAt(x)
	lo, hi := v.FreqRange()
	if w := full.Pos(hi) - full.Pos(lo); math.Abs(w-0.8) > 1e-9 {
		t.Errorf("zoomed to %.4f of the axis, want 0.8", w)
	}
	// the same pixel column, within one column's width of frequency
	colRatio := math.Pow(hi/lo, 1/float64(v.Area().Dx()))
	if r := after / before; r > colRatio || r < 1/colRatio {
		t.Errorf("the frequency under the cursor moved from %.2f to %.2f Hz", before, after)
	}
	if told[0] != lo || told[1] != hi {
		t.Errorf("OnRange told %v, want %g…%g", told, lo, hi)
	}
	v.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, 100)}, Scrolled: fyne.NewDelta(0, -1)})
	if lo, hi := v.FreqRange(); math.Abs(lo-full.Low) > 1e-6 || math.Abs(hi-full.High) > 1e-6 || told[0] != 0 || told[1] != 0 {
		t.Errorf("zoomed out to %g…%g (told %v), want the full axis", lo, hi, told)
	}
	// the dB axis: over the labels, a quarter from the top (−30 dB)
	pos, size := v.PlotArea()
	y := pos.Y + 0.25*size.Height
	v.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(pos.X/2, y)}, Scrolled: fyne.NewDelta(0, 1)})
	dbLo, dbHi := v.DBRange()
	if math.Abs(dbHi-dbLo-96) > 1e-9 || math.Abs(dbLo+0.75*96-(-30)) > 0.5 || told[2] != dbLo || told[3] != dbHi {
		t.Errorf("dB range %g…%g (told %v): want a 96-dB span keeping −30 dB at a quarter from the top", dbLo, dbHi, told)
	}
	v.SetFreqRange(100, 200)
	v.DoubleTapped(&fyne.PointEvent{})
	if lo, hi := v.FreqRange(); lo != full.Low || hi != full.High {
		t.Errorf("double-click: %g…%g, want the full axis", lo, hi)
	}
}

// TestSpectrumDrag: dragging right by a tenth of the plot shows
// frequencies a tenth of the range lower (axis positions), dragging down
// by a tenth shows levels a tenth of the span higher; at the axis's end
// the range does not move past it; OnRange is told at the drag's end.
func TestSpectrumDrag(t *testing.T) {
	v, _, told := zoomView(t)
	full := v.Axis()
	v.SetFreqRange(full.Freq(0.4), full.Freq(0.6))
	_, size := v.PlotArea()
	v.Dragged(&fyne.DragEvent{Dragged: fyne.NewDelta(size.Width/10, size.Height/10)})
	v.DragEnd()
	lo, hi := v.FreqRange()
	if p0, p1 := full.Pos(lo), full.Pos(hi); math.Abs(p0-0.38) > 0.002 || math.Abs(p1-0.58) > 0.002 {
		t.Errorf("dragged to positions %.4f…%.4f, want 0.38…0.58", p0, p1)
	}
	if dbLo, dbHi := v.DBRange(); math.Abs(dbLo+108) > 0.5 || math.Abs(dbHi-12) > 0.5 {
		t.Errorf("dB range %g…%g, want −108…12", dbLo, dbHi)
	}
	if told[0] != lo || told[1] != hi {
		t.Errorf("OnRange told %v after the drag", told)
	}
	v.SetFreqRange(0, full.Freq(0.5))
	v.Dragged(&fyne.DragEvent{Dragged: fyne.NewDelta(size.Width/2, 0)})
	if lo, hi := v.FreqRange(); lo != full.Low || math.Abs(full.Pos(hi)-0.5) > 1e-9 {
		t.Errorf("dragged past the low end: %g…%g", lo, hi)
	}
}

// TestSpectrumSmoothing: 1/3-octave smoothing draws, at each bin k, the
// mean power of the bins within a third of an octave centred on it
// (computed here in float64 from the definition), in dB.
func TestSpectrumSmoothing(t *testing.T) {
	test.NewTempApp(t)
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	v.SetSmoothing(3)
	db := make([]float32, 2049)
	for k := range db {
		db[k] = float32(-60 + 20*math.Sin(float64(k)*0.37)) // rough, so a mean shows
	}
	db[100] = 0
	got := v.smoothed(db, 0)
	r := math.Pow(2, 1.0/6)
	for _, k := range []int{10, 50, 99, 100, 101, 300, 2000} {
		sum, n := 0.0, 0
		for j := 1; j < len(db); j++ {
			if float64(j) >= float64(k)/r-1e-9 && float64(j) <= float64(k)*r+1e-9 {
				sum += math.Pow(10, float64(db[j])/10)
				n++
			}
		}
		want := 10 * math.Log10(sum/float64(n))
		if math.Abs(float64(got[k])-want) > 1e-3 {
			t.Errorf("bin %d: %.4f dB, want %.4f (%d bins)", k, got[k], want, n)
		}
	}
	v.SetSmoothing(5) // not a fraction offered: off
	if v.Smoothing() != 0 || &v.smoothed(db, 0)[0] != &db[0] {
		t.Error("an unknown fraction smooths")
	}
}

// TestSpectrumMarker: a click sets the marker at the frequency under it
// (its label gives frequency and level); the cursor readout then gives
// Δf and ΔdB from it, the level difference of the trace drawn; a click
// on the marker removes it.
func TestSpectrumMarker(t *testing.T) {
	v, win, _ := zoomView(t)
	x1, x2 := v.XFor(1000), v.XFor(3000)
	v.Tapped(&fyne.PointEvent{Position: fyne.NewPos(x1, 100)})
	f1, ok := v.Marker()
	if !ok || math.Abs(f1/1000-1) > 0.01 {
		t.Fatalf("marker at %g Hz (%v), want about 1000", f1, ok)
	}
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x2, 100)}})
	capture(win)
	f2, _ := v.FreqAt(x2)
	sp := v.Shown()
	dDB := levelAt(sp.Current, sp.BinHz, f2) - levelAt(sp.Current, sp.BinHz, f1)
	wantF := string(appendSignedHz(nil, f2-f1))
	wantDB := string(appendSignedDB(nil, dDB))
	if r := v.Readout(); !strings.Contains(r, "Δf "+wantF) || !strings.Contains(r, "ΔdB "+wantDB) || !strings.HasPrefix(wantDB, "−") {
		t.Errorf("readout %q, want Δf %s and ΔdB %s", r, wantF, wantDB)
	}
	if l := v.MarkerLabel(); !strings.HasPrefix(l, "M ") || !strings.Contains(l, "dBFS") {
		t.Errorf("marker label %q", l)
	}
	v.Tapped(&fyne.PointEvent{Position: fyne.NewPos(v.XFor(f1), 100)})
	if _, ok := v.Marker(); ok {
		t.Error("a click on the marker did not remove it")
	}
}

// TestTraceColours: the mix has a colour of its own, never the first
// channel's; a channel shown alone keeps its colour (R: the second).
func TestTraceColours(t *testing.T) {
	test.NewTempApp(t)
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	pal := paletteFor(true)
	v.SetChannels(MixName)
	if c := v.traceColor(0, pal); c != pal.mix || c == pal.traces[0] {
		t.Errorf("the mix is drawn in %v", c)
	}
	v.SetChannels("L", "R")
	if v.traceColor(0, pal) != pal.traces[0] || v.traceColor(1, pal) != pal.traces[1] {
		t.Error("L and R are not the first two colours")
	}
	v.SetChannels("R")
	v.SetChannelIndex(1)
	if v.traceColor(0, pal) != pal.traces[1] {
		t.Error("R alone is not drawn in R's colour")
	}
}

// TestDBLabels: a dB tick at zero reads "0", never "-0" (the ticks of a
// calibrated axis shifted by −6 dB start at ⌈−6/10⌉·10 = −0).
func TestDBLabels(t *testing.T) {
	ticks := dbTicks(-6, 114, 300)
	found := false
	for _, d := range ticks {
		if d == 0 {
			found = true
			if l := dbLabel(d); l != "0" {
				t.Errorf("the zero tick reads %q", l)
			}
		}
	}
	if !found || dbLabel(math.Copysign(0, -1)) != "0" || dbLabel(-19.9999999) != "-20" || dbLabel(94) != "94" {
		t.Errorf("ticks %v; labels %q %q", ticks, dbLabel(math.Copysign(0, -1)), dbLabel(-19.9999999))
	}
}

// TestSpectrumZoomGolden: the fake spectrum zoomed to 500 Hz…5 kHz and
// −100…−20 dB, smoothed by 1/12 octave, with the marker at 1 kHz and
// the cursor at 2 kHz (its Δ readout).
func TestSpectrumZoomGolden(t *testing.T) {
	test.NewTempApp(t)
	v := NewSpectrumView(48000, 4096, plot.Log, -100, -20)
	v.SetChannels(MixName)
	v.SetFreqRange(500, 5000)
	v.SetSmoothing(12)
	win := showIn(t, v, 800, 300)
	v.Pull(newFakeSource(), []int{2})
	capture(win)
	v.SetMarker(1000, true)
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(v.XFor(2000), 100)}})
	test.AssertImageMatches(t, "spectrum_zoom.png", capture(win))
}

// TestUnitLabelFits: "dB SPL (umik_cal.txt)" over the dB axis is cut to
// "dB SPL" where it would run past the left margin into the references'
// legend; the readouts keep the whole label.
func TestUnitLabelFits(t *testing.T) {
	v, win, _ := zoomView(t)
	v.SetUnit("dB SPL (umik_cal.txt)", "dbspl")
	capture(win)
	if got := v.axisUnit(); got != "dB SPL" || v.p.textWidth(got) > v.area.Min.X {
		t.Errorf("axis label %q (%d px, margin %d)", got, v.p.textWidth(got), v.area.Min.X)
	}
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(v.XFor(1000), 100)}})
	capture(win)
	if !strings.Contains(v.Readout(), "dB SPL (umik_cal.txt)") {
		t.Errorf("readout %q lost the microphone's name", v.Readout())
	}
	v.SetUnit("dBFS", "dbfs")
	if v.axisUnit() != "dBFS" {
		t.Error("a short unit was cut")
	}
}
