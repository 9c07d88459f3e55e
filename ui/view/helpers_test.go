package view

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
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
