package ui

import (
	"encoding/csv"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/view"
)

// uiQueue stands in for the Fyne goroutine: the window's background work
// queues its results here and the test goroutine runs them (waitFor).
var uiQueue = make(chan func(), 64)

func newTestWindow(t *testing.T, e *fakeEngine) (*Window, fyne.App) {
	t.Helper()
	return newTestWindowWith(t, e, Options{})
}

// newTestWindowWith is newTestWindow with opts (Manual and Do set here).
func newTestWindowWith(t *testing.T, e *fakeEngine, opts Options) (*Window, fyne.App) {
	t.Helper()
	a := test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	opts.Manual, opts.Do = true, func(f func()) { uiQueue <- f }
	w := New(a, win, e, opts)
	w.pullShare = 0 // every Pull pulls: TestPullShare tests the limit on a clock of its own
	e.settle = func() { settle(t, w) }
	t.Cleanup(func() {
		w.Close()
		for {
			select {
			case <-uiQueue:
			default:
				return
			}
		}
	})
	w.statusDue = time.Time{}
	w.Pull()
	return w, a
}

// TestControlsDriveTheEngine: each analysis control changes the settings
// the engine gets; display controls change the views; the engine toggle
// switches engines; everything is remembered in the preferences.
func TestControlsDriveTheEngine(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	if got := e.lastApplied(); got.FFT != 4096 || got.Hop != 1024 {
		t.Fatalf("initial settings %+v, want FFT 4096 hop 1024", got)
	}
	c := w.c
	c.fft.SetSelected("8192")
	if got := e.lastApplied(); got.FFT != 8192 || got.Hop != 2048 {
		t.Errorf("FFT 8192: engine got FFT %d hop %d", got.FFT, got.Hop)
	}
	c.overlap.SetSelected("93.75 %")
	if got := e.lastApplied(); got.Hop != 512 {
		t.Errorf("93.75 %% overlap at 8192: hop %d, want 512", got.Hop)
	}
	c.window.SetSelected("blackman-harris")
	if got := e.lastApplied(); got.Window.String() != "blackman-harris" {
		t.Errorf("window: engine got %v", got.Window)
	}
	c.avg.SetSelected("Exponential 4 s")
	if got := e.lastApplied(); got.AvgTau != 4*time.Second {
		t.Errorf("averaging: engine got tau %v", got.AvgTau)
	}
	c.hold.SetSelected("10 s")
	if got := e.lastApplied(); got.PeakHold != 10*time.Second {
		t.Errorf("peak hold: engine got %v", got.PeakHold)
	}
	c.band.SetSelected("bandpass:500-2000")
	if got := e.lastApplied(); got.Band.String() != "bandpass:500-2000" {
		t.Errorf("band: engine got %q", got.Band)
	}
	if bandLo(w.spec) != 500 || bandHi(w.spec) != 2000 {
		t.Errorf("band marked at %g…%g Hz, want 500…2000", bandLo(w.spec), bandHi(w.spec))
	}
	// the monitor output plays the band, and follows it
	c.monitor.SetChecked(true)
	waitFor(t, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.monitorOn && e.monitorBand == "bandpass:500-2000"
	})
	c.band.SetSelected("speech")
	waitFor(t, func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.monitorBand == "speech" })
	w.statusDue = time.Time{}
	w.Pull()
	if !strings.Contains(w.statusText(), "monitor → fake output, speech") {
		t.Errorf("status lacks the monitor output: %q", w.statusText())
	}
	c.band.SetSelected("bandpass:500-2000")
	c.lower.SetSelected("RTA bars")
	c.fraction.SetSelected("1/6")
	c.weighting.SetSelected("C")
	if got := e.lastApplied(); got.Fraction != 6 || got.Weighting != dsp.WeightC {
		t.Errorf("RTA: engine got 1/%d %s", got.Fraction, got.Weighting)
	}
	if w.wf.Visible() || !w.rta.Visible() {
		t.Errorf("RTA chosen: waterfall visible %v, RTA visible %v", w.wf.Visible(), w.rta.Visible())
	}
	c.scale.SetSelected("mel")
	if w.spec.Axis().Scale != plot.Mel {
		t.Errorf("frequency scale: spectrum on %s", w.spec.Axis().Scale)
	}
	c.dbFloor.SetSelected("-80")
	c.dbTop.SetSelected("-20")
	if specMin(w.spec) != -80 || specMax(w.spec) != -20 {
		t.Errorf("dB range %g…%g, want −80…−20", specMin(w.spec), specMax(w.spec))
	}
	c.cmap.SetSelected("magma")
	if w.wf.Colormap().String() != "magma" {
		t.Errorf("colormap %s", w.wf.Colormap())
	}

	// the engine toggle, by the radio and by the key
	c.engine.SetSelected("CPU")
	e.settle()
	w.statusDue = time.Time{}
	w.Pull()
	if e.engine != "cpu" || !strings.Contains(w.statusText(), "CPU (fake device)") {
		t.Errorf("CPU chosen: engine %s, status %q", e.engine, w.statusText())
	}
	w.typedRune('g')
	e.settle()
	w.statusDue = time.Time{}
	w.Pull()
	if e.engine != "opencl" || !strings.Contains(w.statusText(), "GPU (fake device)") || c.engine.Selected != "GPU" {
		t.Errorf("after G: engine %s, radio %s, status %q", e.engine, c.engine.Selected, w.statusText())
	}
	if !strings.Contains(w.statusText(), "GPU 0.250 ms · CPU 2.000 ms → GPU 8.0× faster") {
		t.Errorf("status lacks the side-by-side times: %q", w.statusText())
	}

	// the source: the generator with a spec
	c.gen.SetText("sine:440:-20")
	c.gen.OnSubmitted("sine:440:-20")
	waitFor(t, func() bool { return e.Source().Generator == "sine:440:-20" && w.notice == "" })
	if s := e.Source(); s.Kind != session.SourceGenerator || s.Generator != "sine:440:-20" {
		t.Errorf("generator source: engine has %+v", s)
	}

	// remembered: a new window on the same preferences starts the same
	got := LoadSettings(a.Preferences())
	if got.FFT != 8192 || got.Overlap != 0.9375 || got.Window.String() != "blackman-harris" || got.FreqScale.String() != "mel" ||
		got.DBMin != -80 || got.DBMax != -20 || got.Colormap.String() != "magma" || got.Lower != "rta" || got.Fraction != 6 ||
		got.Band.String() != "bandpass:500-2000" || got.Engine != "gpu" || got.AvgSeconds != 4 || got.PeakHold != 10 {
		t.Errorf("saved settings %+v", got)
	}
}

// TestKeys: the keyboard shortcuts change what they say.
func TestKeys(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	w.typedKey(fyne.KeySpace)
	if !w.paused || !strings.Contains(w.statusText(), "PAUSED") {
		t.Errorf("Space: paused %v, status %q", w.paused, w.statusText())
	}
	// paused: the views do not pull
	before := e.latestN
	w.Pull()
	if e.latestN != before {
		t.Error("a paused window pulled spectra")
	}
	w.typedKey(fyne.KeySpace)
	if w.paused {
		t.Error("Space again did not resume")
	}
	w.typedRune('f')
	if w.set.FreqScale.String() != "lin" {
		t.Errorf("F: scale %s, want lin", w.set.FreqScale)
	}
	w.typedRune(']')
	if got := e.lastApplied(); got.FFT != 8192 {
		t.Errorf("]: FFT %d", got.FFT)
	}
	w.typedRune('[')
	w.typedRune('[')
	if got := e.lastApplied(); got.FFT != 2048 {
		t.Errorf("[ [: FFT %d", got.FFT)
	}
	w.typedKey(fyne.KeyDown)
	if w.set.DBMin != -130 || w.set.DBMax != -10 {
		t.Errorf("Down: %g…%g", w.set.DBMin, w.set.DBMax)
	}
	// Up and Down stop where the range would leave what the settings
	// accept (a range saved past it would come back as the default)
	for range 30 {
		w.typedKey(fyne.KeyUp)
	}
	if w.set.DBMin != -20 || w.set.DBMax != 100 {
		t.Errorf("Up ×30: %g…%g, want -20…100", w.set.DBMin, w.set.DBMax)
	}
	for range 40 {
		w.typedKey(fyne.KeyDown)
	}
	if w.set.DBMin != -300 || w.set.DBMax != -180 {
		t.Errorf("Down ×40: %g…%g, want -300…-180", w.set.DBMin, w.set.DBMax)
	}
	if got := LoadSettings(a.Preferences()); got.DBMin != -300 || got.DBMax != -180 {
		t.Errorf("saved range %g…%g comes back as %g…%g", w.set.DBMin, w.set.DBMax, got.DBMin, got.DBMax)
	}
	w.change(func(s *Settings) { s.DBMin, s.DBMax = -130, -10 })
	w.typedRune('v')
	if w.set.Lower != "rta" {
		t.Errorf("V: lower view %s", w.set.Lower)
	}
	w.typedRune('t')
	if w.set.Theme != "light" || w.spec.Dark() {
		t.Errorf("T: theme %s", w.set.Theme)
	}
	w.typedRune('a')
	if w.set.Averaging != view.AvgLin {
		t.Errorf("A: averaging %s", w.set.Averaging)
	}
}

// TestNoGPU: without a GPU engine the toggle is off and says why.
func TestNoGPU(t *testing.T) {
	e := newFakeEngine()
	e.hasGPU, e.engine = false, "cpu"
	w, _ := newTestWindow(t, e)
	if !w.c.engine.Disabled() {
		t.Error("the engine toggle is enabled without a GPU")
	}
	w.typedRune('g')
	e.settle()
	w.statusDue = time.Time{}
	w.Pull()
	if e.engine != "cpu" || !strings.Contains(w.statusText(), "no GPU engine") {
		t.Errorf("G without a GPU: engine %s, status %q", e.engine, w.statusText())
	}
}

// TestExports: the PNG of the view, the spectrum traces as CSV and NPY,
// and the file's spectrogram through the engine.
func TestExports(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.win.Canvas().Capture()
	dir := t.TempDir()
	if err := w.exportPNG(filepath.Join(dir, "view.png")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "view.png")); err != nil || fi.Size() < 1000 {
		t.Errorf("view.png: %v", err)
	}
	csvPath := filepath.Join(dir, "spectrum.csv")
	if err := w.exportSpectrum(csvPath); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(csvPath)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 2050 || strings.Join(rows[0], ",") != "freq_hz,current_dbfs,average_dbfs,peak_hold_dbfs" {
		t.Fatalf("spectrum.csv: %d rows, header %v, %v", len(rows), rows[0], err)
	}
	// 1 kHz is not a bin: the bin 85 (996.09 Hz) holds the fake's level there
	f85, _ := strconv.ParseFloat(rows[86][0], 64)
	l85, _ := strconv.ParseFloat(rows[86][1], 64)
	if f85 != 85*48000.0/4096 || math.Abs(l85-float64(fakeLevel(f85))) > 0.005 {
		t.Errorf("row of bin 85: %v", rows[86])
	}
	if err := w.exportSpectrum(filepath.Join(dir, "spectrum.npy")); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "spectrum.npy"))
	if len(raw) != 128+4*4*2049 || !strings.Contains(string(raw[:128]), "'shape': (4, 2049)") {
		t.Errorf("spectrum.npy: %d bytes, header %q", len(raw), raw[:min(128, len(raw))])
	}
	if err := w.exportSpectrum(filepath.Join(dir, "spectrum.txt")); err == nil {
		t.Error("a .txt spectrum export did not fail")
	}
	// the file's spectrogram goes through the engine
	e.file = syntheticFile()
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	var exportErr error
	exported := false
	w.fp.ExportSpectrogram(filepath.Join(dir, "whole.npy"), func(err error) { exportErr, exported = err, true })
	waitFor(t, func() bool { return exported })
	if exportErr != nil || len(e.exported) != 1 {
		t.Errorf("spectrogram export: %v, %v", exportErr, e.exported)
	}
}

// settle waits until the window's applier has handed the engine all the
// settings posted (it works on a goroutine of its own and posts nothing
// to the queue).
func settle(t *testing.T, w *Window) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !w.ap.Idle() {
		if time.Now().After(deadline) {
			t.Fatal("the settings were not applied within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// waitFor runs the window's queued work on the test goroutine until cond
// holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.After(60 * time.Second) // a hang guard only: a loaded 2-core machine under -race takes seconds
	for !cond() {
		select {
		case f := <-uiQueue:
			f()
		case <-deadline:
			t.Fatal("timed out")
		}
	}
}

// TestOpenFileAndZoom: a file opens in the File tab with its info; zooming
// in past the overview's resolution asks the engine for the region at a
// finer hop.
func TestOpenFileAndZoom(t *testing.T) {
	e := newFakeEngine()
	e.file = syntheticFile()
	w, _ := newTestWindow(t, e)
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	if w.tabs.Selected() != w.fileTab || !strings.Contains(w.fp.Info(), "synthetic.wav · 48000 Hz × 1") {
		t.Errorf("file tab: %q", w.fp.Info())
	}
	if o := e.views[0]; o.FFT != 4096 || o.Hop != 1024 || o.MaxColumns != 4096 || o.Channel != -1 {
		t.Errorf("overview asked with %+v", o)
	}
	w.win.Canvas().Capture()
	w.fview.Zoom(0.05, 2) // 0.2 s: 37 frames of hop 256 across hundreds of pixels
	waitFor(t, func() bool { return w.fview.Detail() != nil })
	o := e.views[1]
	if o.Start > 1.9 || o.End < 2.1 || o.Hop >= 256 || o.Hop < 1024/64 || o.FFT != 1024 {
		t.Errorf("detail asked with %+v", o)
	}
}

// TestGPUFallbackShown: when the analysis falls back to the CPU, the status
// bar says why and the engine toggle shows the CPU.
func TestGPUFallbackShown(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	if w.c.engine.Selected != "GPU" {
		t.Fatalf("engine toggle %q at start", w.c.engine.Selected)
	}
	e.mu.Lock()
	e.engine, e.status = "cpu", "GPU failed: CL_OUT_OF_RESOURCES — using the CPU"
	e.mu.Unlock()
	w.statusDue = time.Time{}
	w.Pull()
	if !strings.Contains(w.statusText(), "⚠ GPU failed: CL_OUT_OF_RESOURCES — using the CPU") || w.c.engine.Selected != "CPU" {
		t.Errorf("after a fallback: toggle %q, status %q", w.c.engine.Selected, w.statusText())
	}
}

// TestBadFile: a file that cannot be analyzed says why and leaves the
// previous file shown.
func TestBadFile(t *testing.T) {
	e := newFakeEngine()
	e.file = syntheticFile()
	w, _ := newTestWindow(t, e)
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	e.mu.Lock()
	e.fileErr = errors.New("broken.wav: not a RIFF/WAVE file")
	e.mu.Unlock()
	w.fp.OpenFile("broken.wav")
	waitFor(t, func() bool { return strings.HasPrefix(w.fp.Info(), "Could not analyze") })
	if !strings.Contains(w.fp.Info(), "not a RIFF/WAVE file") || w.fview.File() != e.file || fileBusy(w) {
		t.Errorf("after a bad file: %q, file %v, progress shown %v", w.fp.Info(), w.fview.File() != nil, fileBusy(w))
	}
}

// TestPullSkipsWhenNothingNew: with no frame analyzed since the last tick
// TestPullShare: a slow pull (its traces cost 40 ms a Latest on the
// window's clock) keeps the views from pulling again until pullShare
// times its duration has passed since it began, so the window's ticks
// stay free to draw and answer keys; then they pull again.
func TestPullShare(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	start := time.Unix(1000, 0)
	clock := start
	w.now = func() time.Time { return clock }
	w.pullShare = pullShare
	e.onLatest = func() { clock = clock.Add(40 * time.Millisecond) }
	latest := func() int {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.latestN
	}
	w.Pull()
	n, took := latest(), clock.Sub(start)
	if n == 0 || took < 40*time.Millisecond {
		t.Fatalf("the first pull: %d spectra in %v", n, took)
	}
	clock = start.Add(pullShare*took - time.Millisecond)
	if w.Pull(); latest() != n {
		t.Errorf("pulled again %v after a pull of %v", clock.Sub(start), took)
	}
	clock = start.Add(pullShare * took)
	if w.Pull(); latest() == n {
		t.Errorf("no pull %v after a pull of %v", clock.Sub(start), took)
	}
}

// the window copies and redraws nothing (so Fyne skips the repaint).
func TestPullSkipsWhenNothingNew(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.Pull()
	e.mu.Lock()
	before := e.latestN
	e.frozen = true
	e.mu.Unlock()
	w.Pull()
	w.Pull()
	e.mu.Lock()
	after := e.latestN
	e.frozen = false
	e.mu.Unlock()
	if after != before {
		t.Errorf("%d spectra copied with nothing new", after-before)
	}
	w.Pull()
	if e.latestN == after {
		t.Error("a new frame was not pulled")
	}
}

// The views' settings, one value at a time.
func specMin(v *view.SpectrumView) float64           { lo, _ := v.Range(); return lo }
func specMax(v *view.SpectrumView) float64           { _, hi := v.Range(); return hi }
func wfMin(v *view.Waterfall) float64                { lo, _ := v.Range(); return lo }
func bandLo(v *view.SpectrumView) float64            { lo, _ := v.Band(); return lo }
func bandHi(v *view.SpectrumView) float64            { _, hi := v.Band(); return hi }
func cfgRate(v interface{ Config() (int, int) }) int { r, _ := v.Config(); return r }
func cfgFFT(v interface{ Config() (int, int) }) int  { _, n := v.Config(); return n }

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
