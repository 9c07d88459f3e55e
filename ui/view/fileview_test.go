package view

import (
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// TestFileView: the overview renders, zooming and panning keep the span
// inside the file, the readout names time, frequency and level, and the
// spectrum under the cursor is the column there.
func TestFileView(t *testing.T) {
	test.NewTempApp(t)
	fs := syntheticFile()
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	var got *live.Spectrum
	var gotT float64
	v.OnCursor = func(sp *live.Spectrum, t float64, ok bool) {
		if ok {
			got, gotT = sp, t
		}
	}
	win := showIn(t, v, 700, 300)
	v.SetFile(fs)
	test.AssertImageMatches(t, "fileview.png", capture(win))

	// the click at 2 s shows as a full-height bright column
	img := capture(win)
	x2 := v.area.Min.X + int(2.0/4*float64(v.area.Dx()))
	bright := 0
	for y := v.area.Min.Y; y < v.area.Max.Y; y++ {
		if c := img.RGBAAt(x2, y); int(c.R)+int(c.G)+int(c.B) > 300 {
			bright++
		}
	}
	if bright < v.area.Dy()*9/10 {
		t.Errorf("the 10 ms click at 2 s lights %d of %d rows", bright, v.area.Dy())
	}

	// hover at 1 s, at the tone's frequency then: 500·8^(t/4) Hz, roughly
	// (the frame's centre is where ColumnTime puts it)
	x := float32(v.area.Min.X) + float32(1.0/4*float64(v.area.Dx()))
	fTone := 500 * math.Pow(8, 1.0/4)
	y := float32(v.area.Max.Y-1) - float32(v.axis.Pos(fTone)*float64(v.area.Dy()))
	test.MoveMouse(win.Canvas(), fyne.NewPos(x, y))
	if got == nil || math.Abs(gotT-1) > 4.0/float64(v.area.Dx())*2 {
		t.Fatalf("cursor spectrum %v at %g s", got != nil, gotT)
	}
	if math.Abs(got.Peak.Freq-500*math.Pow(8, gotT/4)) > 2*fs.BinHz() {
		t.Errorf("spectrum under the cursor peaks at %.1f Hz, want %.1f", got.Peak.Freq, 500*math.Pow(8, gotT/4))
	}
	if r := v.Readout(); !strings.HasPrefix(r, "1") || !strings.Contains(r, "Hz") || !strings.Contains(r, "dBFS") {
		t.Errorf("readout %q", r)
	}

	// zoom in around 2 s, then pan: the span shrinks and stays inside the file
	v.Zoom(0.1, 2)
	t0, t1 := v.View()
	if math.Abs((t1-t0)-0.4) > 1e-9 || t0 > 2 || t1 < 2 {
		t.Errorf("zoom ×0.1 around 2 s: %g…%g", t0, t1)
	}
	test.Drag(win.Canvas(), fyne.NewPos(x, y), -float32(v.area.Dx())/2, 0)
	t0b, t1b := v.View()
	if math.Abs((t0b-t0)-0.2) > 0.01 || math.Abs((t1b-t1)-0.2) > 0.01 {
		t.Errorf("dragging half the width left: %g…%g → %g…%g", t0, t1, t0b, t1b)
	}
	v.Pan(100)
	if t0, t1 := v.View(); t1 != 4 || math.Abs(t1-t0-0.4) > 1e-9 {
		t.Errorf("panning past the end: %g…%g", t0, t1)
	}
	v.Zoom(1000, 1)
	if t0, t1 := v.View(); t0 != 0 || t1 != 4 {
		t.Errorf("zooming out past the file: %g…%g", t0, t1)
	}
	v.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, y)}, Scrolled: fyne.Delta{DY: 10}})
	if t0, t1 := v.View(); math.Abs(t1-t0-3.2) > 1e-9 {
		t.Errorf("one wheel step in: span %g, want 3.2", t1-t0)
	}
}

// TestTimeAxis: the file view's ticks step 1-2-5 down to milliseconds
// with labels that differ from each other at every zoom.
func TestTimeAxis(t *testing.T) {
	for _, c := range []struct {
		t0, t1 float64
		maxT   float64
		want   string
	}{
		{0, 129.5, 129.5, "0:00,0:30,1:00,1:30,2:00"},
		{129.0, 129.5, 129.5, "2:09.0,2:09.1,2:09.2,2:09.3,2:09.4,2:09.5"},
		{129.1, 129.13, 129.5, "2:09.10,2:09.11,2:09.12,2:09.13"},
		{129.1, 129.102, 129.5, "2:09.100,2:09.101,2:09.102"},
		{0, 4, 4, "0 s,1 s,2 s,3 s,4 s"},
		{1.2, 1.25, 4, "1.20 s,1.21 s,1.22 s,1.23 s,1.24 s,1.25 s"},
		{0, 4000, 4000, "0:00:00,0:15:00,0:30:00,0:45:00,1:00:00"},
	} {
		step := timeStep(c.t0, c.t1, 600, 100)
		var labels []string
		for _, t := range ticksEvery(c.t0, c.t1, step) {
			labels = append(labels, FormatTime(t, step, c.maxT))
		}
		if got := strings.Join(labels, ","); got != c.want {
			t.Errorf("%g…%g s on 600 px: %s, want %s", c.t0, c.t1, got, c.want)
		}
	}
	// the file view at several zooms: distinct labels that do not overlap
	test.NewTempApp(t)
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetFile(syntheticFile())
	for _, span := range []float64{4, 0.4, 0.04, 0.008} {
		v.SetView(2-span/2, 2+span/2)
		capture(win)
		ls := v.TimeLabels()
		if len(ls) < 2 {
			t.Errorf("span %g s: labels %q", span, ls)
		}
		seen := map[string]bool{}
		for _, l := range ls {
			if seen[l] {
				t.Errorf("span %g s: label %q twice in %q", span, l, ls)
			}
			seen[l] = true
		}
		if gap := float64(v.area.Dx()) * v.TimeStep() / span; gap < float64(v.timeGap(v.TimeStep())) {
			t.Errorf("span %g s: ticks %g px apart, labels need %d", span, gap, v.timeGap(v.TimeStep()))
		}
	}
}

// TestFileReadoutFollowsKeyboardZoom: zooming with the cursor still keeps
// the readout in step with the time now under it, and a refined analysis
// says so.
func TestFileReadoutFollowsKeyboardZoom(t *testing.T) {
	test.NewTempApp(t)
	fs := syntheticFile()
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetFile(fs)
	capture(win)
	x := float32(v.area.Min.X + v.area.Dx()/4)
	test.MoveMouse(win.Canvas(), fyne.NewPos(x, 100))
	before := v.Readout()
	v.Zoom(0.5, 2) // the keyboard's zoom: no mouse event
	after := v.Readout()
	if before == after || !strings.HasPrefix(after, "1.5") {
		t.Errorf("readout %q before, %q after zooming to 1…3 s (cursor at a quarter: 1.5 s)", before, after)
	}
	if a := v.Analysis(); a != "N=1024 hop 256" {
		t.Errorf("analysis %q", a)
	}
	d := *fs // the same columns four times as often: hop 64
	d.Hop = 64
	d.Columns = nil
	for _, c := range fs.Columns {
		d.Columns = append(d.Columns, c, c, c, c)
	}
	v.SetDetail(&d)
	if a := v.Analysis(); a != "N=1024 hop 64 (refined)" {
		t.Errorf("with a detail: %q", a)
	}
}
