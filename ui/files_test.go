package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/ui/internal/uitest"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// toneFile is a 2-s file whose every frame is a flat-top-windowed
// 1500 Hz tone with 0.2 % second and 0.1 % fourth harmonics (THD
// 0.2236 %), N=8192.
func toneFile(t *testing.T) (*analysis.FileSpectrogram, float64) {
	const rate, n, a1, f0 = 48000, 8192, 0.25, 1500.0
	amps := map[int]float64{2: 0.002 * a1, 4: 0.001 * a1}
	db := uitest.DistortedSpectrum(t, "flattop", n, rate, a1, f0, amps, 1e-5, 4)
	win, _ := window.Parse("flattop")
	frames := (2*rate-n)/(n/4) + 1
	fs := &analysis.FileSpectrogram{Path: "tone.wav", Rate: rate, Channels: 1, Samples: 2 * rate, Duration: 2,
		FFT: n, Hop: n / 4, Window: win, Channel: -1, Frames: frames, FramesPerColumn: 1, Engine: "fake"}
	for range frames {
		fs.Columns = append(fs.Columns, db)
	}
	return fs, 100 * math.Sqrt(0.002*0.002+0.001*0.001)
}

// TestFileViewFollowsTheFile: with the cursor resting over the file
// view, opening a second file re-reads the readout, the spectrum below
// and the THD line at once, without the mouse moving; opened with the
// cursor elsewhere, the spectrum below is the new file's too (its
// middle), never the old file's.
func TestFileViewFollowsTheFile(t *testing.T) {
	e := newFakeEngine()
	e.file = syntheticFile() // a chirp from 500 Hz, no harmonics
	w, _ := newTestWindow(t, e)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return clock }
	w.harmonics(true)
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	c := w.win.Canvas()
	c.Capture() // lays out and draws the view: its plot area is known
	a := w.fview.Area()
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(w.fview)
	// over the plot at 1 s, at the height of 1500 Hz
	x := pos.X + float32(a.Min.X) + float32(a.Dx())/4
	y := pos.Y + float32(a.Max.Y-1) - float32(w.fview.Axis().Pos(1500)*float64(a.Dy()))
	test.MoveMouse(c, fyne.NewPos(x, y))
	readA := w.fview.Readout()
	peakA := w.fspec.Shown().Peak.Freq
	if !strings.Contains(readA, " s ") || math.Abs(peakA-500*math.Pow(8, 0.25)) > 100 {
		t.Fatalf("file A under the cursor: readout %q, peak %.1f Hz", readA, peakA)
	}

	b, thd := toneFile(t)
	e.mu.Lock()
	e.file = b
	e.mu.Unlock()
	w.fp.OpenFile("tone.wav")
	waitFor(t, func() bool { return w.fview.File() == b })
	readB := w.fview.Readout()
	// a quarter of the way into 2 s, not into 4 s
	if readB == readA || !strings.HasPrefix(readB, "0.4") && !strings.HasPrefix(readB, "0.5") {
		t.Errorf("after opening B, no mouse move: readout %q (was %q)", readB, readA)
	}
	if sp := w.fspec.Shown(); sp == nil || math.Abs(sp.Peak.Freq-1500) > 1 || sp.BinHz != 48000.0/8192 {
		t.Errorf("the spectrum below is not B's: %+v", sp)
	}
	// the readout is B's or none, never A's (a measurement of A still
	// running when B opened is dropped); B's comes within a few ticks
	if d, _, err := w.distortion(); err == nil && math.Abs(d.FundamentalHz-1500) > 1 {
		t.Errorf("after opening B, the readout is of another spectrum: %.2f Hz", d.FundamentalHz)
	}
	waitFor(t, func() bool {
		clock = clock.Add(view.HarmonicEvery) // the next measurement is due
		w.Pull()
		_, _, err := w.distortion()
		return err == nil && !w.fharm.Busy()
	})
	d, line, err := w.distortion()
	if err != nil || math.Abs(d.THDPercent-thd) > 0.002 || math.Abs(d.FundamentalHz-1500) > 0.01 {
		t.Errorf("THD after opening B: %.4f %% at %.2f Hz (%v), line %q; want %.4f %% at 1500 Hz", d.THDPercent, d.FundamentalHz, err, line, thd)
	}

	// the cursor away: a third file still replaces the spectrum below
	test.MoveMouse(c, fyne.NewPos(2, 2))
	e.mu.Lock()
	e.file = syntheticFile()
	e.mu.Unlock()
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != b })
	// at 2 s the synthetic file has its click: -30 dBFS in every bin
	if sp := w.fspec.Shown(); sp == nil || sp.BinHz != 48000.0/1024 || len(sp.Current) != 513 || sp.Current[300] != -30 {
		t.Errorf("cursor away: the spectrum below is not the new file's middle (%v)", sp != nil)
	}
}

// TestFileAnalysisControls: the File tab's own FFT size, overlap and
// window analyze the file shown again (the view kept) and are kept
// between sessions; the live panel's settings do not touch them, and
// they do not touch the live analysis.
func TestFileAnalysisControls(t *testing.T) {
	e := newFakeEngine()
	e.file = syntheticFile()
	w, a := newTestWindow(t, e)
	w.c.fft.SetSelected("65536") // the live panel's
	settle(t, w)
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	e.mu.Lock()
	o := e.views[len(e.views)-1]
	e.mu.Unlock()
	if o.FFT != 4096 || o.Hop != 1024 || o.Window.String() != "hann" {
		t.Errorf("the file was analyzed with N=%d hop %d %s, want its own 4096, 1024, hann", o.FFT, o.Hop, o.Window)
	}
	if fft, ov, win := w.fp.Analysis(); fft != "4096" || ov != "75 %" || win != "hann" {
		t.Errorf("the File tab shows %s, %s, %s", fft, ov, win)
	}
	w.fview.SetView(1, 2)
	n := len(e.views)
	fftSel, ovSel, winSel := fileSelects(t, w)
	choose(t, w.win.Canvas(), fftSel, "16384")
	waitFor(t, func() bool { e.mu.Lock(); defer e.mu.Unlock(); return len(e.views) > n })
	choose(t, w.win.Canvas(), ovSel, "50 %")
	choose(t, w.win.Canvas(), winSel, "blackman-harris")
	// the analyses run on goroutines of their own, so they reach the
	// engine in any order: the last choice's is among them
	asked := func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, o := range e.views[n:] {
			if o.FFT == 16384 && o.Hop == 8192 && o.Window.String() == "blackman-harris" {
				return true
			}
		}
		return false
	}
	waitFor(t, asked)
	waitFor(t, func() bool { return w.fp.Info() != "" && !strings.HasPrefix(w.fp.Info(), "Analyzing") })
	if fft, ov, win := w.fp.Analysis(); fft != "16384" || ov != "50 %" || win != "blackman-harris" {
		t.Errorf("after the File tab's choices it shows %s, %s, %s", fft, ov, win)
	}
	if t0, t1 := w.fview.View(); t0 != 1 || t1 != 2 {
		t.Errorf("the view after the re-analysis: %g…%g s, want 1…2", t0, t1)
	}
	if got := e.lastApplied(); got.FFT != 65536 {
		t.Errorf("the live analysis changed to N=%d", got.FFT)
	}
	s := LoadSettings(a.Preferences())
	if s.FileFFT != 16384 || s.FileOverlap != 0.5 || s.FileWindow.String() != "blackman-harris" || s.FFT != 65536 {
		t.Errorf("kept: file N=%d overlap %g %s, live N=%d", s.FileFFT, s.FileOverlap, s.FileWindow, s.FFT)
	}
}

// fileSelects are the File tab's FFT, overlap and window selects.
func fileSelects(t *testing.T, w *Window) (fft, overlap, win *widget.Select) {
	t.Helper()
	var sels []*widget.Select
	walk(w.fileTab.Content, nil, func(o fyne.CanvasObject, _ *fyne.Container) {
		if s, ok := o.(*widget.Select); ok && s.Selected != "Default output" { // not the playback bar's Output
			sels = append(sels, s)
		}
	})
	if len(sels) != 5 { // then the mode and the VQT's bins per octave (panel.FileModeSettings)
		t.Fatalf("%d selects in the File tab, want FFT, overlap, window, mode and bins per octave", len(sels))
	}
	return sels[0], sels[1], sels[2]
}
