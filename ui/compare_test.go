package ui

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/window"
)

// writeFloatWAV writes x times gain as a mono 32-bit float WAV at rate.
func writeFloatWAV(t *testing.T, path string, rate int, x []float32, gain float32) {
	t.Helper()
	o, err := encode.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Discard()
	ww, err := encode.NewWAVWriter(o, rate, 1, 32, true)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = v * gain
	}
	if err := ww.Write(y); err != nil {
		t.Fatal(err)
	}
	if err := ww.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestCompareAB: file B is file A at half the amplitude; the A/B view,
// analysed in the background with the file view's size and window,
// shows both long-term spectra labelled with the files' names and
// B − A = 20·log10(½) = −6.02 dB (± 0.01) at every bin; files of
// different rates are refused with a clear error; Close brings the
// spectrum back.
func TestCompareAB(t *testing.T) {
	const rate = 48000
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float32, 2*rate)
	for i := range x {
		x[i] = float32(0.5*math.Sin(2*math.Pi*1000*float64(i)/rate) + 0.05*rng.NormFloat64())
	}
	pathA, pathB, pathC := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav"), filepath.Join(dir, "c.wav")
	writeFloatWAV(t, pathA, rate, x, 1)
	writeFloatWAV(t, pathB, rate, x, 0.5)
	writeFloatWAV(t, pathC, 44100, x, 1)
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	hann, _ := window.Parse("hann")
	fs := syntheticFile() // shown as file A: its analysis's size (1024) and window are the comparison's
	fs.Path, fs.Window = pathA, hann
	w.fview.SetFile(fs)
	w.tabs.Select(w.fileTab)
	compare := func(path string) error {
		var res error
		finished := false
		w.fp.CompareFile(path, func(err error) { res, finished = err, true })
		if !fileProgress(w) {
			t.Error("no progress and cancel while comparing")
		}
		waitFor(t, func() bool { return finished })
		return res
	}
	if err := compare(pathB); err != nil {
		t.Fatal(err)
	}
	if !w.fab.Active() || !w.fab.Visible() || w.fspec.Visible() {
		t.Fatal("the A/B view is not shown in the spectrum's place")
	}
	lines := w.fab.Spectra().Lines()
	if len(lines) != 2 || lines[0].Name != "A: a.wav" || lines[1].Name != "B: b.wav" {
		t.Errorf("spectra %q %q", lines[0].Name, lines[1].Name)
	}
	diff := w.fab.DiffPlot().Lines()[0].DB
	if len(diff) != 513 {
		t.Fatalf("difference of %d bins, want 513", len(diff))
	}
	want := 20 * math.Log10(0.5)
	for k, d := range diff {
		if math.Abs(float64(d)-want) > 0.01 {
			t.Fatalf("bin %d: B − A = %.4f dB, want %.4f ± 0.01", k, d, want)
		}
	}
	if !strings.Contains(w.fp.Info(), "a.wav") || !strings.Contains(w.fp.Info(), "b.wav") {
		t.Errorf("info %q", w.fp.Info())
	}
	capture(w.win)
	// the readout under the cursor at 1 kHz: both files and B − A
	dp := w.fab.DiffPlot()
	cx := float32(float64(dp.Area().Min.X)+dp.Axis().Pos(1000)*float64(dp.Area().Dx())) / dp.Scale()
	dp.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(cx, 40)}})
	capture(w.win)
	if r := dp.Readout(); !strings.HasPrefix(r, "100") && !strings.HasPrefix(r, "99") || !strings.Contains(r, "B − A −6.02 dB") {
		t.Errorf("difference readout at 1 kHz: %q", r)
	}
	if err := compare(pathC); err == nil || !strings.Contains(err.Error(), "one sample rate") {
		t.Errorf("A at 48 kHz with B at 44.1 kHz: %v", err)
	}
	w.fab.OnClose()
	if w.fab.Visible() || !w.fspec.Visible() {
		t.Error("Close A/B did not bring the spectrum back")
	}
	// Cancel stops a comparison: nothing is shown, the line says so
	e.mu.Lock()
	e.holdAnalyze = true
	e.mu.Unlock()
	var res error
	finished := false
	w.fp.CompareFile(pathB, func(err error) { res, finished = err, true })
	w.fp.Cancel() // the Cancel button
	waitFor(t, func() bool { return finished })
	if !errors.Is(res, context.Canceled) || w.fp.Info() != "Comparison cancelled." || w.fab.Visible() || fileBusy(w) {
		t.Errorf("cancelled: %v, %q, A/B shown %v", res, w.fp.Info(), w.fab.Visible())
	}
}

// fileProgress says whether the file tab shows its progress bar and its
// Cancel button.
func fileProgress(w *Window) bool {
	bar, cancel := w.fp.Progress()
	return bar && cancel
}

// fileBusy says whether the file tab shows its progress bar.
func fileBusy(w *Window) bool {
	bar, _ := w.fp.Progress()
	return bar
}
