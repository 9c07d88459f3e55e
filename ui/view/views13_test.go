package view

import (
	"image"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// waterfallWithTone fills a waterfall with 60 frames of a 5 kHz tone
// (as a colormap's top colour) and returns it and its window.
func waterfallWithTone(t *testing.T) (*Waterfall, fyne.Window, *fakeSource) {
	test.NewTempApp(t)
	e := newFakeSource()
	wf := NewWaterfall(48000, 4096, 1024, plot.Log, plot.Gray, -120, 0, 2)
	win := showIn(t, wf, 600, 240)
	capture(win)
	for range 60 {
		e.queue(column(4096, 5000))
	}
	wf.Pull(e, 0)
	capture(win)
	return wf, win, e
}

// toneX is the pixel column of 5 kHz (bin 427 of 4096) on wf's axis.
func toneX(wf *Waterfall) int {
	return wf.area.Min.X + int(wf.axis.Pos(math.Round(5000*4096/48000.0)*48000/4096)*float64(wf.area.Dx()))
}

// brightest is the column within ±40 of x where row y is brightest.
func brightest(img *image.RGBA, x, y int) int {
	best, bx := -1, 0
	for xx := x - 40; xx <= x+40; xx++ {
		c := img.RGBAAt(xx, y)
		if v := int(c.R) + int(c.G) + int(c.B); v > best {
			best, bx = v, xx
		}
	}
	return bx
}

// TestWaterfallKeepsHistory: a colormap, dB-range, frequency-axis, FFT or
// size change re-renders the rows already there instead of wiping them.
func TestWaterfallKeepsHistory(t *testing.T) {
	wf, win, _ := waterfallWithTone(t)
	rows := wf.Rows()
	if rows < 20 {
		t.Fatalf("%d rows from 60 frames", rows)
	}
	x := toneX(wf)
	y := wf.area.Min.Y + rows/2
	img := capture(win)
	if bx := brightest(img, x, y); bx < x-1 || bx > x+1 || img.RGBAAt(bx, y).R < 250 {
		t.Fatalf("the tone's row %d is brightest at %d (%v), want %d±1 in white", y, bx, img.RGBAAt(bx, y), x)
	}
	x = brightest(img, x, y)
	// colormap: the old rows take the new colours (magma's top colour)
	wf.SetColormap(plot.Magma)
	img = capture(win)
	lut := plot.Magma.LUT()
	if c := img.RGBAAt(x, y); !near(c, rgb(lut[255]), 2) {
		t.Errorf("after the colormap change the tone is %v, want magma's %v", c, lut[255])
	}
	// dB range: 0 dBFS now sits halfway up a −120…120 range
	wf.SetRange(-120, 120)
	img = capture(win)
	if c := img.RGBAAt(x, y); !near(c, rgb(lut[127]), 3) {
		t.Errorf("after the range change the tone is %v, want %v", c, lut[127])
	}
	wf.SetRange(-120, 0)
	// frequency axis: the rows move to the tone's place on a linear axis
	wf.SetConfig(48000, 4096, 1024, plot.Lin)
	img = capture(win)
	if got, want := brightest(img, toneX(wf), y), toneX(wf); got < want-1 || got > want+1 {
		t.Errorf("on a linear axis the old rows' tone is at %d, want %d", got, want)
	}
	if wf.Rows() != rows {
		t.Errorf("the axis change left %d rows of %d", wf.Rows(), rows)
	}
	// FFT: the rows stay, mapped by their own geometry
	wf.SetConfig(48000, 16384, 4096, plot.Lin)
	img = capture(win)
	if wf.Rows() != rows || brightest(img, toneX(wf), y) < toneX(wf)-1 {
		t.Errorf("after an FFT change: %d rows (had %d)", wf.Rows(), rows)
	}
	// size: twice the height holds the same time in twice the rows
	H := wf.area.Dy()
	win.Resize(fyne.NewSize(600, float32(240+H)))
	img = capture(win)
	if got := wf.Rows(); got < 2*rows-2 || got > 2*rows {
		t.Errorf("after doubling the height %d rows, want about %d", got, 2*rows)
	}
	if c := img.RGBAAt(brightest(img, toneX(wf), wf.area.Min.Y+rows), wf.area.Min.Y+rows); c.R < 200 {
		t.Errorf("after the resize the tone is %v", c)
	}
	// time span: half the span, the same time in twice the rows (clipped)
	wf.SetSpan(1)
	if got := wf.Rows(); got < min(wf.area.Dy(), 4*rows-4) {
		t.Errorf("after halving the span %d rows", got)
	}
	// rate: a new source clears it
	wf.SetConfig(44100, 4096, 1024, plot.Lin)
	if wf.Rows() != 0 {
		t.Errorf("a rate change kept %d rows", wf.Rows())
	}
}

// TestWaterfallColorbar: the colour scale runs from the colormap's bottom
// colour (left) to its top (right).
func TestWaterfallColorbar(t *testing.T) {
	wf, win, _ := waterfallWithTone(t)
	wf.SetColormap(plot.Viridis)
	img := capture(win)
	r := wf.ColorbarRect()
	if r.Dx() < 50 || r.Max.Y > wf.area.Min.Y {
		t.Fatalf("colour bar %v above the plot at %d", r, wf.area.Min.Y)
	}
	lut := plot.Viridis.LUT()
	mid := (r.Min.Y + r.Max.Y) / 2
	if c := img.RGBAAt(r.Min.X, mid); !near(c, rgb(lut[0]), 2) {
		t.Errorf("left end %v, want %v", c, lut[0])
	}
	if c := img.RGBAAt(r.Max.X-1, mid); !near(c, rgb(lut[255]), 2) {
		t.Errorf("right end %v, want %v", c, lut[255])
	}
	if c := img.RGBAAt((r.Min.X+r.Max.X)/2, mid); !near(c, rgb(lut[127]), 4) {
		t.Errorf("middle %v, want %v", c, lut[127])
	}
}

// TestWaterfallPooledColumns: columns of a 65536-point FFT are stored
// max-pooled, and a one-bin tone survives the pooling at its frequency.
func TestWaterfallPooledColumns(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	wf := NewWaterfall(48000, 65536, 16384, plot.Lin, plot.Gray, -120, 0, 2)
	win := showIn(t, wf, 600, 240)
	capture(win)
	for range 20 {
		e.queue(column(65536, 12000))
	}
	wf.Pull(e, 0)
	img := capture(win)
	newest := wf.hist[(wf.head-1+len(wf.hist))%len(wf.hist)]
	if len(newest) != MaxStoredBins {
		t.Fatalf("stored %d bins, want %d", len(newest), MaxStoredBins)
	}
	x := wf.area.Min.X + int(wf.axis.Pos(12000)*float64(wf.area.Dx()))
	if got := brightest(img, x, wf.area.Min.Y+2); got < x-1 || got > x+1 {
		t.Errorf("12 kHz at %d, want %d", got, x)
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

// TestRTAResolutionCapsReadout: bands narrower than four FFT bins are
// hatched and say so; the caps hold the highest level and then fall;
// hovering a band reads it out; the default weighting is Z.
func TestRTAResolutionCapsReadout(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewRTAView(48000, -120, 0)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v.now = func() time.Time { return clock }
	win := showIn(t, v, 900, 300)
	v.Pull(e, 0)
	img := capture(win)
	binHz := 48000.0 / 4096
	ur := v.UnderResolved()
	pal := paletteFor(true)
	for i, b := range v.Levels() {
		want := b.Upper-b.Lower < 4*binHz
		if ur[i] != want {
			t.Errorf("band %g Hz (%.1f Hz wide): under-resolved %v, want %v", b.Nominal, b.Upper-b.Lower, ur[i], want)
		}
		// an under-resolved bar shows the plot background between stripes
		x0 := v.area.Min.X + int(v.axis.Pos(b.Lower)*float64(v.area.Dx()))
		x1 := v.area.Min.X + int(v.axis.Pos(b.Upper)*float64(v.area.Dx()))
		if x1-x0 < 8 || b.Nominal < 25 {
			continue
		}
		y := v.area.Max.Y - 3
		bg := 0
		for x := x0 + (x1-x0)/4; x < x1-(x1-x0)/4; x++ {
			if near(img.RGBAAt(x, y), pal.plotBg, 1) {
				bg++
			}
		}
		if hatched := bg > 0; hatched != want {
			t.Errorf("band %g Hz: hatched %v, under-resolved %v", b.Nominal, hatched, want)
		}
	}
	// caps: the levels drop 20 dB; the caps stay for capHold, then fall
	// at capFall dB/s
	first := append([]float64(nil), v.Caps()...)
	drop := &droppedLevels{e, -20}
	clock = clock.Add(time.Second)
	v.Pull(drop, 0)
	for i, c := range v.Caps() {
		if c != first[i] {
			t.Fatalf("band %d: cap %g moved within the hold (was %g)", i, c, first[i])
		}
	}
	clock = clock.Add(capHold - 500*time.Millisecond) // 2 s after the peak: 0.5 s past the hold, 10 dB down
	v.Pull(drop, 0)
	for i, c := range v.Caps() {
		want := max(first[i]-capFall*0.5, v.Levels()[i].LevelDB)
		if math.Abs(c-want) > 1e-9 {
			t.Fatalf("band %d: cap %g, want %g", i, c, want)
		}
	}
	// hover over 1 kHz
	x := float32(v.area.Min.X+int(v.axis.Pos(1000)*float64(v.area.Dx()))) / win.Canvas().Scale()
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, 100)}})
	capture(win)
	if r := v.Readout(); !strings.HasPrefix(r, "1k Hz band (891–1122 Hz)") || !strings.Contains(r, "dBFS") {
		t.Errorf("readout %q", r)
	}
}

// droppedLevels is a SpectrumSource whose band levels are the fake's
// shifted by d dB.
type droppedLevels struct {
	e *fakeSource
	d float64
}

func (s *droppedLevels) Latest(c int, dst *live.Spectrum) {
	s.e.Latest(c, dst)
	for i := range dst.Bands {
		dst.Bands[i].LevelDB += s.d
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

// TestMelTicks: no tick under 20 Hz on a mel axis (the stray "1"), and the
// labels on every axis leave room between them.
func TestMelTicks(t *testing.T) {
	test.NewTempApp(t)
	for _, scale := range []string{"mel", "log", "lin"} {
		for _, px := range []int{300, 700, 1200} {
			a := plot.NewFreqAxis(scaleOf(scale), 48000, 4096)
			ticks := plot.FreqTicks(a, px)
			if scale == "mel" && len(ticks) > 0 && ticks[0] < 20 {
				t.Errorf("mel at %d px: tick at %g Hz", px, ticks[0])
			}
			width := func(s string) int { return 7*len(s) + 8 }
			labels := placeLabels(a, px, ticks, width)
			for i := 1; i < len(labels); i++ {
				x0 := a.Pos(labels[i-1]) * float64(px-1)
				x1 := a.Pos(labels[i]) * float64(px-1)
				need := float64(width(plot.FormatHz(labels[i-1]))+width(plot.FormatHz(labels[i]))) / 2
				if x1-x0 < need-1 {
					t.Errorf("%s at %d px: %g and %g Hz labels %0.f px apart, need %.0f", scale, px, labels[i-1], labels[i], x1-x0, need)
				}
			}
			if scale != "lin" && px >= 700 {
				for _, d := range []float64{100, 1000, 10000} {
					if !slices.Contains(labels, d) {
						t.Errorf("%s at %d px: %g Hz unlabelled (labels %v)", scale, px, d, labels)
					}
				}
			}
		}
	}
}

// TestWaterfallPullIsBounded: at 2^20 points a Pull reads pullBins bins of
// columns at most (the window's tick stays short), and the next Pulls go
// on where it stopped: no column is lost or read twice, so a tone in one
// column of 40 reaches the history.
func TestWaterfallPullIsBounded(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	const n = 1 << 20
	wf := NewWaterfall(48000, n, 256, plot.Lin, plot.Gray, -120, 0, 2) // 40 columns: ~20 rows
	capture(showIn(t, wf, 600, 240))                                   // laid out: rows to fill
	for i := range 40 {
		f := 3000.0
		if i == 37 {
			f = 15000
		}
		e.queue(column(n, f))
	}
	per := pullBins / (n/2 + 1)
	for pulls := 1; wf.after < 40; pulls++ {
		wf.Pull(e, 0)
		if want := uint64(min(40, pulls*per)); wf.after != want || pulls > 40 {
			t.Fatalf("after pull %d: %d columns read, want %d", pulls, wf.after, want)
		}
	}
	found := false
	for _, row := range wf.hist {
		if k := int(math.Round(15000 * float64(len(row)-1) / 24000)); len(row) > 1 && row[k] == 0 {
			found = true
		}
	}
	if !found {
		t.Error("column 37's 15 kHz tone is in no row")
	}
}
