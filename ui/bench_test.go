package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// BenchmarkFrame is one display frame of the live views at 800×600:
// pulling three spectra, four columns and the band levels, and drawing.
func BenchmarkFrame(b *testing.B) {
	b.ReportAllocs()
	test.NewTempApp(b)
	e := newFakeEngine()
	v := NewSpectrumView(48000, 4096, "log", -120, 0)
	wf := NewWaterfall(48000, 4096, 1024, "log", "viridis", -120, 0, 10)
	rta := NewRTAView(48000, -120, 0)
	win := test.NewTempWindow(b, container.NewGridWithRows(3, v, wf, rta))
	win.Resize(fyne.NewSize(800, 600))
	win.Canvas().Capture()
	frame := make([]float32, 2049)
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(300, 50)}})
	e.frames = make([][]float32, 0, 4096)
	for b.Loop() {
		e.frames = e.frames[:0]
		e.next = 0
		e.queue(frame, frame, frame, frame)
		v.Pull(e, []int{0, 1, 2})
		wf.Pull(e, 2)
		rta.Pull(e, 2)
		v.draw(v.img.Rect.Dx(), v.img.Rect.Dy())
		wf.draw(wf.img.Rect.Dx(), wf.img.Rect.Dy())
		rta.draw(rta.img.Rect.Dx(), rta.img.Rect.Dy())
	}
}
