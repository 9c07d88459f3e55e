package view

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// TestLongLabel: the legend's time reads tenths below 10 s, whole seconds
// from there.
func TestLongLabel(t *testing.T) {
	for _, c := range []struct {
		secs float64
		want string
	}{{0, "long-term average (0.0 s)"}, {9.94, "long-term average (9.9 s)"}, {9.96, "long-term average (10 s)"},
		{3725.4, "long-term average (3725 s)"}} {
		if got := string(appendLongLabel(nil, c.secs)); got != c.want {
			t.Errorf("%g s: %q, want %q", c.secs, got, c.want)
		}
	}
	if s := longSeconds(&live.Spectrum{LongFrames: 10}); s != 0 {
		t.Errorf("without a geometry: %g s", s)
	}
}

// TestPullDoesNotAllocateLongTerm: the steady-state frame allocates
// nothing in the long-term mode either, with the time it has averaged
// (and so its legend label) changing every frame.
func TestPullDoesNotAllocateLongTerm(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var v *SpectrumView
	step := liveFrameWith(t, func(sv *SpectrumView, e *fakeSource) {
		sv.SetTraces(AvgLong, true)
		sv.SetChannels("L", "R", "mix")
		e.longStep = 47 // 1 s of frames at hop 1024: the label changes every frame
		v = sv
	})
	before := avgLegend(v)
	if n := testing.AllocsPerRun(50, step); n != 0 {
		t.Errorf("a frame allocates %v times", n)
	}
	if after := avgLegend(v); !strings.HasPrefix(before, "long-term average (") || after == before {
		t.Errorf("the legend read %q, then %q: it did not follow the frames", before, after)
	}
}

// BenchmarkFrameLegend is BenchmarkFrame with the channels' legend, in
// the exponential and the long-term mode (its seconds changing every
// frame): the legend is drawn over every frame.
func BenchmarkFrameLegend(b *testing.B) {
	for _, avg := range []string{AvgExp, AvgLong} {
		b.Run(avg, func(b *testing.B) {
			b.ReportAllocs()
			step := liveFrameWith(b, func(v *SpectrumView, e *fakeSource) {
				v.SetTraces(avg, true)
				v.SetChannels("L", "R", "mix")
				e.longStep = 47
			})
			for b.Loop() {
				step()
			}
		})
	}
}

// legendText is the legend label of the average trace ("" none).
func avgLegend(v *SpectrumView) string {
	for _, it := range v.Legend() {
		if strings.Contains(it.Text(), "average") {
			return it.Text()
		}
	}
	return ""
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

// TestLegend: the spectrum names its channels and traces in their colours.
func TestLegend(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	v.SetChannels("L", "R")
	win := showIn(t, v, 900, 300)
	v.Pull(e, []int{0, 1})
	img := capture(win)
	var labels []string
	for _, it := range v.Legend() {
		labels = append(labels, it.Label)
		c := img.RGBAAt(it.Swatch.Min.X+1, it.Swatch.Min.Y)
		if !near(c, it.Color, 1) {
			t.Errorf("%s's swatch is %v, want %v", it.Label, c, it.Color)
		}
		if it.Swatch.Max.Y > v.area.Min.Y {
			t.Errorf("%s's swatch %v is in the plot (top %d)", it.Label, it.Swatch, v.area.Min.Y)
		}
	}
	if got := strings.Join(labels, ","); got != "L,R,live,average,peak hold" {
		t.Errorf("legend %s", got)
	}
	pal := paletteFor(true)
	if v.Legend()[0].Color != pal.traces[0] || v.Legend()[1].Color != pal.traces[1] {
		t.Error("channel colours are not the traces'")
	}
	v.SetTraces(AvgOff, false)
	capture(win)
	if n := len(v.Legend()); n != 3 {
		t.Errorf("without average and hold the legend has %d entries", n)
	}
	// the peak-hold trace is drawn in its legend colour, not faint
	v.SetTraces(AvgOff, true)
	img = capture(win)
	// (both channels are the same here: R's hold lies over L's)
	hold := holdColor(pal.traces[1], pal)
	found := 0
	for x := v.area.Min.X; x < v.area.Max.X; x++ {
		for y := v.area.Min.Y; y < v.area.Max.Y; y++ {
			if near(img.RGBAAt(x, y), hold, 1) {
				found++
			}
		}
	}
	if found < v.area.Dx()/3 {
		t.Errorf("the peak-hold trace covers %d pixels across %d columns", found, v.area.Dx())
	}
}

// TestReadoutClearsPeak: with the cursor right at the peak, the readout
// does not cover the peak's marker or its label.
func TestReadoutClearsPeak(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	win := showIn(t, v, 800, 300)
	v.Pull(e, []int{0})
	capture(win)
	for _, f := range []float64{1000, 900, 1100, 700} {
		x := v.XFor(f)
		v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, 100)}})
		capture(win)
		if v.Readout() == "" || v.peakRects[0].Empty() {
			t.Fatalf("no readout or no peak marker")
		}
		for _, r := range v.peakRects {
			if v.readoutRect.Overlaps(r) {
				t.Errorf("cursor at %g Hz: readout %v covers the peak's %v", f, v.readoutRect, r)
			}
		}
		if !v.readoutRect.In(v.area) {
			t.Errorf("readout %v outside the plot %v", v.readoutRect, v.area)
		}
	}
}
