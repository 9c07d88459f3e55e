package view

import (
	"image"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/plot"
)

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
