package ui

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// column is an N-point FFT's column of levels: −120 dBFS with one bin at
// 0 dBFS nearest f.
func column(n int, f float64) []float32 {
	col := make([]float32, n/2+1)
	for k := range col {
		col[k] = -120
	}
	col[int(math.Round(f*float64(n)/48000))] = 0
	return col
}

// TestSettingsRaceTheViews is the `]`/`[` crash: the analysis changes the
// FFT size between (and within) the window's pulls, so spectra and columns
// arrive in a geometry the views were not told about yet. Over many random
// changes the views never index out of range, every stored waterfall row
// has a geometry the analysis produced, and once the changes stop a tone
// lands at its frequency on the axis of the size finally in use.
func TestSettingsRaceTheViews(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	rng := rand.New(rand.NewSource(13))
	sizes := []int{64, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536, engine.MaxFFT}
	valid := map[int]bool{}
	for _, n := range sizes {
		valid[n/2+1] = true
	}
	valid[view.MaxStoredBins] = true // 32768 and up are stored max-pooled
	for i := range 200 {
		// the analysis switches size (as Apply would, later than the key)
		n := sizes[rng.Intn(len(sizes))]
		e.mu.Lock()
		e.fft, e.hop = n, max(1, n/4)
		e.mu.Unlock()
		// columns of the old and the new size in one batch
		for range rng.Intn(6) {
			e.queue(column(sizes[rng.Intn(len(sizes))], 1000), column(n, 1000))
		}
		if rng.Intn(4) == 0 {
			w.statusDue = time.Time{} // the window learns the new size now, or not
		}
		if rng.Intn(3) == 0 {
			w.typedRune([]rune{']', '[', 'f', 'v'}[rng.Intn(4)])
		}
		if rng.Intn(10) == 0 {
			w.win.Resize(fyne.NewSize(float32(900+rng.Intn(700)), float32(600+rng.Intn(400))))
		}
		w.Pull()
		drawViews(w) // what each raster does on a paint (a whole-window capture is slow)
		for j, row := range w.wf.History() {
			if len(row) != 0 && !valid[len(row)] {
				t.Fatalf("step %d: stored row %d has %d bins", i, j, len(row))
			}
		}
		if w.wf.Rows() > len(w.wf.History()) {
			t.Fatalf("step %d: %d rows in a history of %d", i, w.wf.Rows(), len(w.wf.History()))
		}
	}
	// settle: waterfall on a log axis, 4096 points, and a 5 kHz tone
	w.change(func(s *Settings) { s.Lower, s.FreqScale, s.FFT = "waterfall", plot.Log, 4096 })
	settle(t, w) // the applier has handed the settings over
	w.statusDue = time.Time{}
	w.Pull()
	for range 40 {
		e.queue(column(4096, 5000))
	}
	w.Pull()
	capture(w.win)
	wf := w.wf
	if cfgFFT(wf) != 4096 || wf.Axis().Scale != plot.Log {
		t.Fatalf("waterfall set up for N=%d %s", cfgFFT(wf), wf.Axis().Scale)
	}
	drawViews(w)
	img := wf.Image()
	k := math.Round(5000 * 4096 / 48000.0)
	x := wf.Area().Min.X + int(wf.Axis().Pos(k*48000/4096)*float64(wf.Area().Dx()))
	y := wf.Area().Min.Y + 1
	best, bestX := 0, 0
	for xx := x - 30; xx <= x+30; xx++ {
		c := img.RGBAAt(xx, y)
		if v := int(c.R) + int(c.G) + int(c.B); v > best {
			best, bestX = v, xx
		}
	}
	if bestX < x-2 || bestX > x+2 {
		t.Errorf("the 5 kHz tone shows at x=%d, want %d±2", bestX, x)
	}
}

// drawViews draws the live views at their laid-out sizes, as their
// rasters do when the window paints.
func drawViews(w *Window) {
	for _, v := range []interface {
		Size() fyne.Size
		Visible() bool
	}{w.spec, w.wf, w.rta} {
		s := v.Size()
		if !v.Visible() || s.Width < 1 || s.Height < 1 {
			continue
		}
		switch v := v.(type) {
		case *view.SpectrumView:
			v.Render(int(s.Width), int(s.Height))
		case *view.Waterfall:
			v.Render(int(s.Width), int(s.Height))
		case *view.RTAView:
			v.Render(int(s.Width), int(s.Height))
		}
	}
}

// blockingEngine is a fake whose Apply blocks until released, as the
// analysis's does once its command queue is full.
type blockingEngine struct {
	*fakeEngine
	release chan struct{}
}

func (b *blockingEngine) Apply(s live.Settings) {
	<-b.release
	b.fakeEngine.Apply(s)
}

// TestBlockedApplyDoesNotFreeze: while the engine's Apply blocks, FFT
// keys still return at once (the window keeps drawing), and once it
// unblocks the engine gets the newest settings, not every one between.
func TestBlockedApplyDoesNotFreeze(t *testing.T) {
	e := newFakeEngine()
	b := &blockingEngine{e, make(chan struct{})}
	a := test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	w := New(a, win, b, Options{Manual: true, Do: func(f func()) { uiQueue <- f }})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 40 {
			w.typedRune(']')
			w.typedRune('[')
		}
		w.typedRune(']')
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the keys blocked behind the engine's Apply")
	}
	close(b.release)
	settle(t, w)
	e.mu.Lock()
	n, last := len(e.applied), e.applied[len(e.applied)-1]
	e.mu.Unlock()
	if last.FFT != 8192 {
		t.Errorf("the engine ended on N=%d, want 8192", last.FFT)
	}
	if n > 3 {
		t.Errorf("%d settings applied for 81 keys: superseded ones were not skipped", n)
	}
	w.Close()
}

// TestControlStress drives the display and analysis controls and the
// shortcuts in a seeded random order while the analysis (the fake) changes
// its FFT size, channel count and rate under the window, pulling and
// drawing between changes: nothing panics, the settings stay valid, and
// the views end consistent with the last settings.
func TestControlStress(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	c := w.c
	rng := rand.New(rand.NewSource(1313))
	pick := func(s *widget.Select) { s.SetSelected(s.Options[rng.Intn(len(s.Options))]) }
	selects := []*widget.Select{c.fft, c.overlap, c.window, c.avg, c.hold, c.scale, c.dbTop, c.dbFloor,
		c.cmap, c.span, c.lower, c.fraction, c.weighting, c.chanShown}
	radios := []*widget.RadioGroup{c.theme}
	for i := range 150 {
		switch r := rng.Intn(10); {
		case r < 5:
			pick(selects[rng.Intn(len(selects))])
		case r < 6:
			rg := radios[rng.Intn(len(radios))]
			rg.SetSelected(rg.Options[rng.Intn(len(rg.Options))])
		default:
			w.typedRune([]rune("gfmahrvt[]+-0")[rng.Intn(13)])
		}
		settle(t, w)
		if rng.Intn(3) == 0 { // the source changes format under the window
			e.mu.Lock()
			e.ch = 1 + rng.Intn(2)
			e.rate = []int{44100, 48000}[rng.Intn(2)]
			e.mu.Unlock()
		}
		e.mu.Lock()
		n := e.fft
		e.mu.Unlock()
		e.queue(column(n, 1000), column(sizesFor(rng), 1000))
		w.statusDue = time.Time{}
		w.Pull()
		drawViews(w)
		if _, err := w.set.Live(); err != nil {
			t.Fatalf("step %d: settings %+v: %v", i, w.set, err)
		}
		if w.set.DBMin >= w.set.DBMax {
			t.Fatalf("step %d: dB range %g…%g", i, w.set.DBMin, w.set.DBMax)
		}
	}
	settle(t, w)
	w.statusDue = time.Time{}
	w.Pull()
	drawViews(w)
	st := w.stats
	if cfgFFT(w.spec) != st.FFT || cfgRate(w.spec) != st.SampleRate || cfgFFT(w.wf) != st.FFT || cfgRate(w.wf) != st.SampleRate {
		t.Errorf("views at N=%d/%d, %d/%d Hz; analysis N=%d, %d Hz", cfgFFT(w.spec), cfgFFT(w.wf), cfgRate(w.spec), cfgRate(w.wf), st.FFT, st.SampleRate)
	}
	if w.spec.Axis().Scale != w.set.FreqScale || w.wf.Axis().Scale != w.set.FreqScale {
		t.Errorf("axes %s/%s, setting %s", w.spec.Axis().Scale, w.wf.Axis().Scale, w.set.FreqScale)
	}
	if w.wf.Colormap() != w.set.Colormap || wfMin(w.wf) != w.set.DBMin || w.rta.Weighting() != w.set.Weighting {
		t.Errorf("waterfall %s %g, RTA %s; settings %s %g %s", w.wf.Colormap(), wfMin(w.wf), w.rta.Weighting(), w.set.Colormap, w.set.DBMin, w.set.Weighting)
	}
}

// sizesFor is a random FFT size.
func sizesFor(rng *rand.Rand) int { return 64 << rng.Intn(11) }
