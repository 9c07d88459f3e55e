package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/ui/internal/uitest"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// TestHarmonicReadout: on a spectrum with known harmonics (0.1 %, 0.05 %
// and 0.02 % at 2, 3 and 5 × 1 kHz, noise 120 dB under the fundamental)
// the window's readout gives the fundamental's frequency and level and
// THD within 0.002 % of the truth, marks the harmonics, and is measured
// again only after view.HarmonicEvery, not per frame.
func TestHarmonicReadout(t *testing.T) {
	const rate, n, a1, f0 = 48000, 8192, 0.5, 1000.0
	amps := map[int]float64{2: 0.001 * a1, 3: 0.0005 * a1, 5: 0.0002 * a1}
	truth := 100 * math.Sqrt(0.001*0.001+0.0005*0.0005+0.0002*0.0002) // %
	e := newFakeEngine()
	e.fft = n
	e.spectrum = uitest.DistortedSpectrum(t, "blackman-harris", n, rate, a1, f0, amps, 1e-6, 8)
	w, _ := newTestWindow(t, e)
	w.c.window.SetSelected("blackman-harris")
	w.c.avg.SetSelected("Off")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return clock }
	harmonicsCheck(t, w).SetChecked(true)
	if !w.harm.On() {
		t.Fatal("the check box did not turn the harmonics on")
	}
	w.Pull()
	waitFor(t, func() bool { return !w.harm.Busy() }) // the measurement runs on its own goroutine
	d, line, err := w.distortion()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d.THDPercent-truth) > 0.002 {
		t.Errorf("THD %.5f %%, want %.5f ± 0.002", d.THDPercent, truth)
	}
	if math.Abs(d.FundamentalHz-f0) > 0.01 || math.Abs(d.FundamentalDBFS-20*math.Log10(a1)) > 0.01 {
		t.Errorf("fundamental %.4f Hz %.4f dBFS, want %g Hz %.4f", d.FundamentalHz, d.FundamentalDBFS, f0, 20*math.Log10(a1))
	}
	for _, h := range d.Harmonics {
		if a, ok := amps[h.N]; ok && math.Abs(h.LevelDB-20*math.Log10(a)) > 0.05 {
			t.Errorf("harmonic %d: %.3f dBFS, want %.3f", h.N, h.LevelDB, 20*math.Log10(a))
		}
	}
	for _, s := range []string{"F 1000.00 Hz  −6.02 dBFS", "THD 0.1136 % (−58.89 dB)", "THD+N", "SNR", "SINAD"} {
		if !strings.Contains(line, s) {
			t.Errorf("readout %q lacks %q", line, s)
		}
	}
	t.Logf("blackman-harris: THD %.5f %% (truth %.5f), %s", d.THDPercent, truth, line)
	// the markers: the band colour above the spectrum at each harmonic
	capture(w.win)
	img := w.spec.Image()
	pal := view.ColorsFor(true)
	a := w.spec.Area()
	for _, f := range []float64{f0, 2 * f0, 3 * f0, 5 * f0} {
		x := a.Min.X + int(w.spec.Axis().Pos(f)*float64(a.Dx()))
		found := false
		for y := a.Min.Y; y < a.Max.Y && !found; y++ {
			found = near(img.RGBAAt(x, y), pal.Band, 2)
		}
		if !found {
			t.Errorf("no marker at %g Hz (x %d)", f, x)
		}
	}
	// within view.HarmonicEvery the readout stays; after it, it follows
	e.mu.Lock()
	e.offset = 10
	e.mu.Unlock()
	clock = clock.Add(view.HarmonicEvery / 2)
	w.Pull()
	if w.harm.Busy() {
		t.Error("measuring again within view.HarmonicEvery")
	}
	if d2, _, _ := w.distortion(); d2.FundamentalDBFS != d.FundamentalDBFS {
		t.Errorf("measured again within %v", view.HarmonicEvery)
	}
	clock = clock.Add(view.HarmonicEvery)
	w.Pull()
	waitFor(t, func() bool { return !w.harm.Busy() }) // the measurement runs on its own goroutine
	if d2, _, _ := w.distortion(); math.Abs(d2.FundamentalDBFS-d.FundamentalDBFS-10) > 0.01 {
		t.Errorf("after %v: fundamental %.3f dBFS, want %.3f", view.HarmonicEvery, d2.FundamentalDBFS, d.FundamentalDBFS+10)
	}
	// calibrated, the readout measures the spectrum shown in dB SPL and
	// says so
	if err := w.cal.CalibrateFullScale(100); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(view.HarmonicEvery)
	w.Pull()
	waitFor(t, func() bool { return !w.harm.Busy() })
	d3, line3, _ := w.distortion()
	if math.Abs(d3.FundamentalDBFS-d.FundamentalDBFS-110) > 0.01 || !strings.Contains(line3, " dB SPL") || strings.Contains(line3, "dBFS") {
		t.Errorf("in dB SPL: fundamental %.3f, readout %q; want %.3f dB SPL", d3.FundamentalDBFS, line3, d.FundamentalDBFS+110)
	}
	w.typedRune('d')
	if w.harm.On() || harmonicsCheck(t, w).Checked {
		t.Error("D did not turn the harmonics off")
	}
}

// TestMeasureFrameDoesNotAllocate pins the steady-state live frame with
// references drawn, harmonics marked and the difference to a reference
// shown: pulling and drawing allocate nothing.
func TestMeasureFrameDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.Pull()
	for _, name := range []string{"a", "b"} {
		if err := w.rp.Store(name); err != nil {
			t.Fatal(err)
		}
	}
	w.harmonics(true)
	clock := time.Now()
	w.now = func() time.Time { return clock }
	w.statusDue = clock.Add(time.Hour)
	w.Pull()                                          // measures once; the clock stands still from here
	waitFor(t, func() bool { return !w.harm.Busy() }) // the measurement runs on its own goroutine
	if _, _, err := w.distortion(); err != nil {
		t.Fatal(err)
	}
	spectrum := func() {
		w.Pull()
		w.spec.Render(640, 240)
	}
	for range 3 {
		spectrum()
	}
	if n := testing.AllocsPerRun(20, spectrum); n != 0 {
		t.Errorf("a frame with references and harmonics allocates %v times", n)
	}
	w.rp.SetDifference(1)
	difference := func() {
		w.Pull()
		w.diff.Render(640, 240)
	}
	for range 3 {
		difference()
	}
	if n := testing.AllocsPerRun(20, difference); n != 0 {
		t.Errorf("a frame of the difference allocates %v times", n)
	}
}

// TestFileViewMeasures: in the file tab the spectrum under the cursor is
// what a reference stores, what the difference is taken of and what the
// harmonics are measured on (with the file analysis's window).
func TestFileViewMeasures(t *testing.T) {
	const rate, n, a1, f0 = 48000, 8192, 0.25, 1500.0
	amps := map[int]float64{2: 0.002 * a1, 4: 0.001 * a1}
	truth := 100 * math.Sqrt(0.002*0.002+0.001*0.001)
	db := uitest.DistortedSpectrum(t, "flattop", n, rate, a1, f0, amps, 1e-5, 4)
	e := newFakeEngine()
	e.file = syntheticFile()
	e.file.Window, _ = window.Parse("flattop")
	w, _ := newTestWindow(t, e)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return clock }
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	if err := w.rp.Store("early"); err == nil || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("storing before the cursor was over the file: %v", err)
	}
	w.harmonics(true)
	w.fview.OnCursor(&live.Spectrum{Current: db, BinHz: float64(rate) / n}, 1, true)
	waitFor(t, func() bool { return !w.fharm.Busy() })
	d, line, err := w.distortion()
	if err != nil || math.Abs(d.THDPercent-truth) > 0.002 || math.Abs(d.FundamentalHz-f0) > 0.01 {
		t.Errorf("file: THD %.5f %% at %.3f Hz (%v), want %.5f %% at %g Hz", d.THDPercent, d.FundamentalHz, err, truth, f0)
	}
	if strings.Contains(line, "leaks") {
		t.Errorf("flat-top readout warns: %q", line)
	}
	if err := w.rp.Store("file"); err != nil {
		t.Fatal(err)
	}
	if lv := w.rp.Refs()[0].Trace.Level; len(lv) != len(db) || lv[100] != float64(db[100]) {
		t.Fatalf("the file's reference is not the spectrum under the cursor")
	}
	w.rp.SetDifference(0)
	louder := make([]float32, len(db))
	for k, v := range db {
		louder[k] = v + 2
	}
	w.fview.OnCursor(&live.Spectrum{Current: louder, BinHz: float64(rate) / n}, 2, true)
	if w.difference() != w.fdiff || !w.fdiff.Visible() || w.fspec.Visible() {
		t.Fatal("the file tab does not show the difference")
	}
	for k, v := range w.fdiff.Lines()[0].DB {
		if want := float64(louder[k]) - float64(db[k]); math.Abs(float64(v)-want) > 1e-4 {
			t.Fatalf("bin %d: difference %g, want %g", k, v, want)
		}
	}
	// the cursor moved within view.HarmonicEvery: measured at the next frame
	// after it, not at once
	if w.fharm.Busy() {
		t.Errorf("measuring again within %v of the last", view.HarmonicEvery)
	}
	if d2, _, _ := w.distortion(); d2.FundamentalDBFS != d.FundamentalDBFS {
		t.Errorf("measured again within %v of the last", view.HarmonicEvery)
	}
	clock = clock.Add(view.HarmonicEvery)
	w.Pull()
	waitFor(t, func() bool { return !w.fharm.Busy() })
	if d2, _, _ := w.distortion(); math.Abs(d2.FundamentalDBFS-d.FundamentalDBFS-2) > 0.01 {
		t.Errorf("after %v: fundamental %.3f dBFS, want %.3f", view.HarmonicEvery, d2.FundamentalDBFS, d.FundamentalDBFS+2)
	}
}
