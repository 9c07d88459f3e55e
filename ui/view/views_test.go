package view

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// showIn puts o alone in a test window of w×h units (scale 1: a unit is a
// pixel) and returns the window.
func showIn(t *testing.T, o fyne.CanvasObject, w, h float32) fyne.Window {
	t.Helper()
	win := test.NewTempWindow(t, o)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(w, h))
	return win
}

// capture renders the window and returns its pixels.
func capture(win fyne.Window) *image.RGBA {
	img := win.Canvas().Capture()
	if r, ok := img.(*image.RGBA); ok {
		return r
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out
}

// near says whether c is want within tol per channel.
func near(c color.RGBA, want color.RGBA, tol int) bool {
	ok := func(a, b uint8) bool { return math.Abs(float64(a)-float64(b)) <= float64(tol) }
	return ok(c.R, want.R) && ok(c.G, want.G) && ok(c.B, want.B)
}

// TestSpectrumGolden renders the fake spectrum on log and linear axes.
func TestSpectrumGolden(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	for _, scale := range []string{"log", "lin", "mel"} {
		v := NewSpectrumView(48000, 4096, scaleOf(scale), -120, 0)
		v.SetChannels("mix") // the legend: live, average, peak hold
		win := showIn(t, v, 800, 300)
		v.Pull(e, []int{2})
		test.AssertImageMatches(t, "spectrum_"+scale+".png", capture(win))
	}
}

// TestSpectrumAxes: the grid line of each labelled frequency is drawn
// where the axis puts it, log and linear, and the dB grid where the range
// puts it; the tone's trace peaks at 1 kHz.
func TestSpectrumAxes(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	for _, tc := range []struct {
		scale string
		want  []float64 // labelled frequencies that must be there
	}{
		{"log", []float64{20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000}},
		{"lin", []float64{0, 5000, 10000, 15000, 20000}},
	} {
		v := NewSpectrumView(48000, 4096, scaleOf(tc.scale), -120, 0)
		win := showIn(t, v, 800, 300)
		v.Pull(e, []int{2})
		img := capture(win)
		ticks := plot.FreqTicks(v.Axis(), v.area.Dx())
		for _, f := range tc.want {
			found := false
			for _, tf := range ticks {
				found = found || tf == f
			}
			if !found {
				t.Errorf("%s: no %g Hz label among %v", tc.scale, f, ticks)
			}
		}
		pal := paletteFor(true)
		for _, f := range ticks {
			x := v.area.Min.X + int(v.Axis().Pos(f)*float64(v.area.Dx()-1)+0.5)
			// a grid line: the grid colour near the bottom of the plot area,
			// below every trace
			c := img.RGBAAt(x, v.area.Max.Y-3)
			if !near(c, pal.grid, 2) && !near(c, pal.gridMajor, 2) {
				t.Errorf("%s: %g Hz: no grid line at x=%d (%v)", tc.scale, f, x, c)
			}
			// exact position: log axis position of f, independent of the code
			var pos float64
			if tc.scale == "log" {
				pos = math.Log(f/20) / math.Log(24000.0/20)
			} else {
				pos = f / 24000
			}
			if want := float64(v.area.Min.X) + pos*float64(v.area.Dx()-1); math.Abs(float64(x)-want) > 1 {
				t.Errorf("%s: %g Hz at x=%d, want %.1f", tc.scale, f, x, want)
			}
		}
		for _, db := range []float64{0, -20, -60, -120} {
			y := dbToY(float32(db), -120, 0, v.area.Min.Y, v.area.Max.Y)
			want := float64(v.area.Min.Y) + (-db/120)*float64(v.area.Dy()-1)
			if math.Abs(float64(y)-want) > 1 {
				t.Errorf("%g dB at y=%d, want %.1f", db, y, want)
			}
		}
		// the current trace's highest point is the 1 kHz tone
		top, topX := v.area.Max.Y, -1
		for x := v.area.Min.X; x < v.area.Max.X; x++ {
			for y := v.area.Min.Y; y < v.area.Max.Y; y++ {
				if near(img.RGBAAt(x, y), pal.traces[0], 10) {
					if y < top {
						top, topX = y, x
					}
					break
				}
			}
		}
		wantX := float64(v.area.Min.X) + v.Axis().Pos(1000)*float64(v.area.Dx())
		if math.Abs(float64(topX)-wantX) > 2 {
			t.Errorf("%s: trace peaks at x=%d, want %.1f (1 kHz)", tc.scale, topX, wantX)
		}
		if v.PeakLabel() != "peak 1000.0 Hz  −6.0 dBFS  B5 +21¢" {
			t.Errorf("%s: peak label %q", tc.scale, v.PeakLabel())
		}
	}
}

// TestSpectrumReadout: hovering at the pixel of 1 kHz reads that
// frequency (to a pixel's width), the fake level there and the note.
func TestSpectrumReadout(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	win := showIn(t, v, 800, 300)
	v.Pull(e, []int{2})
	capture(win)
	if v.Readout() != "" {
		t.Fatalf("readout %q before hovering", v.Readout())
	}
	for _, f := range []float64{110, 1000, 12345} {
		x := v.XFor(f)
		test.MoveMouse(win.Canvas(), fyne.NewPos(x, 100))
		capture(win)
		r := v.Readout()
		fields := strings.Fields(r)
		if len(fields) < 6 {
			t.Fatalf("readout %q", r)
		}
		got, _ := strconv.ParseFloat(fields[0], 64)
		if fields[1] == "kHz" {
			got *= 1000
		}
		pixelHz := f * (math.Pow(24000.0/20, 1.0/float64(v.area.Dx())) - 1) // one pixel's width at f
		if math.Abs(got-f) > pixelHz {
			t.Errorf("hover at %g Hz reads %q (%g Hz; a pixel is %.2f Hz)", f, r, got, pixelHz)
		}
		lvl := strings.ReplaceAll(fields[2], "−", "-")
		db, _ := strconv.ParseFloat(lvl, 64)
		if want := levelAt(v.spectra[0].Current, v.spectra[0].BinHz, got); math.Abs(db-want) > 0.051 {
			t.Errorf("hover at %g Hz: level %s, want %.1f", f, fields[2], want)
		}
		note, _ := dsp.NoteName(got)
		if fields[4] != note {
			t.Errorf("hover at %g Hz: note %q, want %q", f, fields[4], note)
		}
	}
	v.MouseOut()
	capture(win)
	if v.Readout() != "" {
		t.Errorf("readout %q after the mouse left", v.Readout())
	}
}

// TestWaterfallKeepsShortEvents: with four frames per pixel row, one
// frame's tone still shows in the row that covers it, at its frequency's
// column, and nowhere else.
func TestWaterfallKeepsShortEvents(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	// 48 kHz, hop 1024: 46.875 frames/s; a span of 4·H/46.875 s gives 4 frames per row
	wf := NewWaterfall(48000, 4096, 1024, plot.Log, plot.Gray, -120, 0, 1)
	win := showIn(t, wf, 600, 200)
	capture(win) // lays out: the ring exists now
	H := wf.area.Dy()
	wf.SetSpan(4 * float64(H) / 46.875)
	capture(win)
	if got := wf.rowsPerFrame(); math.Abs(got-0.25) > 1e-9 {
		t.Fatalf("rows per frame %g, want 0.25", got)
	}
	bins := 4096/2 + 1
	quiet := make([]float32, bins)
	for k := range quiet {
		quiet[k] = -120
	}
	tone := append([]float32(nil), quiet...)
	k5 := 426 // about 5 kHz
	tone[k5] = 0
	for i := range 40 {
		if i == 17 {
			e.queue(tone)
		} else {
			e.queue(quiet)
		}
	}
	wf.Pull(e, 2)
	img := capture(win)
	x := wf.area.Min.X + int(wf.axis.Pos(float64(k5)*48000/4096)*float64(wf.area.Dx()))
	lit := 0
	for y := wf.area.Min.Y; y < wf.area.Min.Y+10; y++ {
		if img.RGBAAt(x, y).R > 200 {
			lit++
		}
	}
	if lit != 1 {
		t.Errorf("the one-frame tone lights %d rows of the 10 drawn, want 1", lit)
	}
	if wf.rows != 10 {
		t.Errorf("%d rows from 40 frames at 4 per row", wf.rows)
	}
	for xx := wf.area.Min.X; xx < wf.area.Max.X; xx++ {
		if xx < x-3 || xx > x+3 {
			if img.RGBAAt(xx, wf.area.Min.Y+5).R > 100 {
				t.Fatalf("column %d lit (only %d should be)", xx, x)
			}
		}
	}
	test.AssertImageMatches(t, "waterfall.png", img)
}

// TestRTAGolden renders the fake third-octave levels.
func TestRTAGolden(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewRTAView(48000, -120, 0)
	win := showIn(t, v, 800, 250)
	v.Pull(e, 2)
	if len(v.Levels()) != 31 {
		t.Errorf("%d bands, want 31 (20 Hz … 20 kHz)", len(v.Levels()))
	}
	test.AssertImageMatches(t, "rta.png", capture(win))
}

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

// liveFrame sets up the three live views at 800×600 on a fake engine and
// returns one display frame: four new columns, three spectra pulled, the
// band levels, and each view drawn.
func liveFrame(tb testing.TB) func() { return liveFrameWith(tb, nil) }

// liveFrameWith is liveFrame with setup run on the spectrum view and the
// fake before the first frame (nil: none).
func liveFrameWith(tb testing.TB, setup func(v *SpectrumView, e *fakeSource)) func() {
	test.NewTempApp(tb)
	e := newFakeSource()
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	if setup != nil {
		setup(v, e)
	}
	wf := NewWaterfall(48000, 4096, 1024, plot.Log, plot.Viridis, -120, 0, 10)
	rta := NewRTAView(48000, -120, 0)
	win := test.NewTempWindow(tb, container.NewGridWithRows(3, v, wf, rta))
	win.SetPadded(false)
	win.Resize(fyne.NewSize(800, 600))
	capture(win)
	frame := make([]float32, 2049)
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(300, 50)}})
	e.frames = make([][]float32, 0, 4096) // queue without growing
	step := func() {
		e.frames, e.next = e.frames[:0], 0
		e.queue(frame, frame, frame, frame)
		v.Pull(e, []int{0, 1, 2})
		wf.Pull(e, 2)
		rta.Pull(e, 2)
		v.draw(v.img.Rect.Dx(), v.img.Rect.Dy())
		wf.draw(wf.img.Rect.Dx(), wf.img.Rect.Dy())
		rta.draw(rta.img.Rect.Dx(), rta.img.Rect.Dy())
	}
	for range 5 {
		step()
	}
	return step
}

// TestPullDoesNotAllocate pins the steady-state frame: pulling spectra and
// columns and drawing the spectrum, waterfall and RTA allocate nothing.
func TestPullDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	step := liveFrame(t)
	if n := testing.AllocsPerRun(50, step); n != 0 {
		t.Errorf("a frame allocates %v times", n)
	}
}
