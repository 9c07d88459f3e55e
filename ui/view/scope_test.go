package view

import (
	"image"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/live/scopetap"
	"github.com/prismaudio/prism/app/pitch"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/scope"
)

// feedTap writes seconds of two channels into tap in 480-frame blocks
// from position pos on: channel 0 is ch0(t), channel 1 a 250 Hz sine at
// 0.3. It returns the position after them.
func feedTap(tap *scopetap.Tap, pos uint64, seconds float64, ch0 func(t float64) float64) uint64 {
	const rate, block = 48000, 480
	buf := make([]float32, 2*block)
	for n := int(seconds * rate / block); n > 0; n-- {
		for i := range block {
			t := float64(pos+uint64(i)) / rate
			buf[2*i] = float32(ch0(t))
			buf[2*i+1] = float32(0.3 * math.Sin(2*math.Pi*250*t))
		}
		tap.Write(buf, 2, rate, pos)
		pos += block
	}
	return pos
}

// The scope of a 1 kHz sine (0.8) triggered rising at 0.2, 0.5 ms/div:
// the golden image, and the trace drawn through the trigger point (the
// middle column) within two rows of the level's row.
func TestScopeViewGolden(t *testing.T) {
	test.NewTempApp(t)
	tap := scopetap.New(1)
	v := NewScopeView(ScopeSettings{Channel: 0, TimeDiv: 0.5e-3, FullScale: 1, Trigger: scope.Trigger{Level: 0.2}})
	win := showIn(t, v, 640, 240)
	feedTap(tap, 0, 0.2, func(t float64) float64 { return 0.8 * math.Sin(2*math.Pi*1000*t+0.5) })
	v.Pull(tap)
	x, trig, triggered, ok := v.Trace()
	if !ok || !triggered || len(x) != 240 || math.Abs(trig-120) > 1 {
		t.Fatalf("trace: %d samples, trigger at %v, triggered %v, ok %v", len(x), trig, triggered, ok)
	}
	img := capture(win)
	test.AssertImageMatches(t, "scope.png", img)
	a := v.area
	mid, ly := (a.Min.X+a.Max.X)/2, ampToY(0.2, 1, a)
	trace := paletteFor(true).traces[0]
	best := 1 << 30
	for y := a.Min.Y; y < a.Max.Y; y++ {
		if near(img.RGBAAt(mid, y), trace, 8) {
			best = min(best, abs(y-ly))
		}
	}
	if best > 2 {
		t.Errorf("the trace's nearest row to the level in the middle column is %d rows off", best)
	}
	if s := string(v.status); !strings.Contains(s, "ch 1") || !strings.Contains(s, "auto, rising at 0.20") || !strings.Contains(s, "500 µs/div") {
		t.Errorf("status %q", s)
	}
}

// The pitch trace of a 220 Hz tone (8 harmonics) for 2 s then a glide
// to 440 Hz over 1 s: the golden image, the readout of the newest
// estimate (A4 within a cent, 440 Hz), and a steady pull and draw that
// allocate nothing.
func TestPitchViewGolden(t *testing.T) {
	test.NewTempApp(t)
	tap := scopetap.New(1)
	v := NewPitchView(PitchSettings{Channel: 0, MinHz: 50, MaxHz: 2000, Seconds: 5})
	win := showIn(t, v, 640, 240)
	phase := 0.0
	f0 := func(t float64) float64 { return 220 * math.Pow(2, min(1, max(0, t-2))) }
	tone := func(t float64) float64 {
		phase += 2 * math.Pi * f0(t) / 48000
		s := 0.0
		for k := 1.0; k <= 8; k++ {
			s += math.Sin(k*phase) / k
		}
		return 0.3 * s
	}
	pos := uint64(0)
	for range 35 { // 3.5 s, pulled every 0.1 s
		pos = feedTap(tap, pos, 0.1, tone)
		v.Pull(tap)
	}
	test.AssertImageMatches(t, "pitch.png", capture(win))
	if r := v.Readout(); !strings.HasPrefix(r, "A4 ") || !strings.Contains(r, "440.") {
		t.Errorf("readout %q, want A4 at 440 Hz", r)
	}
	pts := v.Points()
	if len(pts) < 300 {
		t.Fatalf("%d points", len(pts))
	}
	for _, p := range pts {
		if want := f0(p.TimeS); math.Abs(p.F0Hz/want-1) > 0.005 {
			t.Fatalf("%.3f s: %.2f Hz, want %.2f", p.TimeS, p.F0Hz, want)
		}
	}
	if n := testing.AllocsPerRun(5, func() {
		pos = feedTap(tap, pos, 0.01, func(float64) float64 { return 0 })
		v.Pull(tap)
		v.draw(v.img.Rect.Dx(), v.img.Rect.Dy())
	}); n > 1 { // feedTap's block buffer
		t.Errorf("pull and draw: %v allocs", n)
	}
}

// A pitch track over the file view (FileView.Overlay = PitchOverlay.Draw)
// of the synthetic chirp (500·8^(t/4) Hz): at 1, 2 and 3 s the track's
// white pixel sits on the chirp's row, within a row.
func TestPitchOverlayOnFileView(t *testing.T) {
	test.NewTempApp(t)
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetFile(syntheticFile())
	var o PitchOverlay
	for ts := 0.05; ts < 3.95; ts += 0.01 {
		o.Points = append(o.Points, pitch.Point{TimeS: ts, Estimate: pitch.Estimate{F0Hz: 500 * math.Pow(8, ts/4)}})
	}
	v.Overlay = func(img *image.RGBA, a image.Rectangle, t0, t1 float64, axis plot.FreqAxis, _ float64) {
		o.Draw(img, a, t0, t1, axis)
	}
	img := capture(win)
	a := v.area
	for _, ts := range []float64{1, 2, 3} {
		x := a.Min.X + int(ts/4*float64(a.Dx()-1))
		y := a.Max.Y - 1 - int(v.Axis().Pos(500*math.Pow(8, ts/4))*float64(a.Dy()-1))
		found := false
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				c := img.RGBAAt(x+dx, y+dy)
				found = found || (c.R == 255 && c.G == 255 && c.B == 255)
			}
		}
		if !found {
			t.Errorf("%v s: no track pixel at (%d, %d)", ts, x, y)
		}
	}
}

// The file view's scope at the cursor (FileScope over the file view, a
// 200 Hz sine of 0.5 in the file): the inset shows the trace triggered
// rising at 0 after the cursor, drawn through the inset's middle at its
// 0 row (within two rows); no cursor, no inset.
func TestFileScopeInset(t *testing.T) {
	test.NewTempApp(t)
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetFile(syntheticFile())
	x := make([]float32, 4*48000)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*200*float64(i)/48000+1))
	}
	fs := &FileScope{Samples: x, Rate: 48000, Set: ScopeSettings{TimeDiv: 1e-3, FullScale: 1}, Dark: true}
	var inset image.Rectangle
	v.Overlay = func(img *image.RGBA, a image.Rectangle, _, _ float64, _ plot.FreqAxis, cursor float64) {
		fs.Draw(img, a, cursor)
		w, h := a.Dx()*2/5, a.Dy()*2/5
		inset = image.Rect(a.Max.X-w-6, a.Max.Y-h-6, a.Max.X-6, a.Max.Y-6)
	}
	plain := capture(win)
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(300, 100)}})
	img := capture(win)
	mid, zero := (inset.Min.X+inset.Max.X)/2, ampToY(0, 1, inset)
	trace := paletteFor(true).traces[0]
	best := 1 << 30
	for y := inset.Min.Y; y < inset.Max.Y; y++ {
		if near(img.RGBAAt(mid, y), trace, 8) {
			best = min(best, abs(y-zero))
		}
	}
	if best > 2 {
		t.Errorf("the inset's trace in its middle column is %d rows from 0", best)
	}
	if c := plain.RGBAAt(mid, zero); near(c, trace, 8) {
		t.Errorf("without a cursor the inset is drawn")
	}
	if s := string(fs.label); !strings.HasPrefix(s, "scope at ") || strings.Contains(s, "no trigger") {
		t.Errorf("label %q", s)
	}
}

// TestOverlayFollowsPlayhead: without a hover cursor the overlay is handed
// the playhead's time while it is shown (the file scope follows what is
// heard), and NaN when neither is there.
func TestOverlayFollowsPlayhead(t *testing.T) {
	test.NewTempApp(t)
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetFile(syntheticFile())
	got := math.Inf(1)
	v.Overlay = func(_ *image.RGBA, _ image.Rectangle, _, _ float64, _ plot.FreqAxis, cursor float64) { got = cursor }
	capture(win)
	if !math.IsNaN(got) {
		t.Errorf("no cursor, no playhead: overlay handed %v, want NaN", got)
	}
	v.SetPlayhead(1.25, true)
	capture(win)
	if got != 1.25 {
		t.Errorf("playhead at 1.25 s: overlay handed %v", got)
	}
}
