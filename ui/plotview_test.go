package ui

import (
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/ui/view"
)

// TestPlotViewSettings: a wheel zoom on the live spectrum becomes the
// settings (frequency range, and the dB range less the calibration's
// shift), reaches the file's spectrum too and is restored at the next
// start, and the waterfall under it follows; a range typed in the plot section applies (2k = 2000 Hz), a
// reversed one is refused under the fields; Full goes back to the whole
// axis; the smoothing chosen reaches both spectra and is restored.
func TestPlotViewSettings(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	capture(w.win)
	pos, size := w.spec.PlotArea()
	w.spec.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(pos.X+size.Width/2, pos.Y+10)}, Scrolled: fyne.NewDelta(0, 1)})
	lo, hi := w.spec.FreqRange()
	if w.set.Plot.FreqMin != lo || w.set.Plot.FreqMax != hi || lo <= 20 || hi >= 24000 {
		t.Fatalf("zoomed to %g…%g, settings %+v", lo, hi, w.set.Plot)
	}
	if flo, fhi := w.fspec.FreqRange(); flo != lo || fhi != hi {
		t.Errorf("the file's spectrum shows %g…%g, the live one %g…%g", flo, fhi, lo, hi)
	}
	if ax := w.wf.Axis(); ax.Low != lo || ax.High != hi {
		t.Errorf("the waterfall shows %g…%g under the spectrum's %g…%g", ax.Low, ax.High, lo, hi)
	}
	w.spec.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(pos.X/2, pos.Y+size.Height/2)}, Scrolled: fyne.NewDelta(0, 1)})
	if span := w.set.DBMax - w.set.DBMin; math.Abs(span-96) > 1e-9 {
		t.Errorf("dB span %g after a notch in, want 96 (0.8 × 120)", span)
	}
	if got := LoadSettings(a.Preferences()); got.Plot != w.set.Plot || got.DBMin != w.set.DBMin || got.DBMax != w.set.DBMax {
		t.Errorf("restored %+v %g…%g, want %+v %g…%g", got.Plot, got.DBMin, got.DBMax, w.set.Plot, w.set.DBMin, w.set.DBMax)
	}
	loText, hiText, smooth := w.pc.Entries()
	loText.SetText("100")
	hiText.SetText("2k")
	hiText.OnSubmitted("2k")
	if lo, hi := w.spec.FreqRange(); lo != 100 || hi != 2000 || w.pc.Problem() {
		t.Errorf("typed 100…2k: shows %g…%g", lo, hi)
	}
	loText.SetText("5000")
	loText.OnSubmitted("5000")
	if lo, _ := w.spec.FreqRange(); lo != 100 || !w.pc.Problem() {
		t.Errorf("a reversed range applied (%g) or was not refused", lo)
	}
	w.change(func(s *Settings) { s.Plot.FreqMin, s.Plot.FreqMax = 0, 0 })
	if lo, hi := w.spec.FreqRange(); lo != 20 || hi != 24000 {
		t.Errorf("Full: %g…%g", lo, hi)
	}
	smooth.SetSelected("1/6 octave")
	if w.set.Plot.Smoothing != 6 || w.spec.Smoothing() != 6 || w.fspec.Smoothing() != 6 || LoadSettings(a.Preferences()).Plot.Smoothing != 6 {
		t.Errorf("smoothing %d, views %d %d", w.set.Plot.Smoothing, w.spec.Smoothing(), w.fspec.Smoothing())
	}
}

// TestSingleChannel: "Ch 2 (R)" shows the right channel alone (output
// channel 1, named R in its own colour), the waterfall and the analysis
// recording follow it; a channel the input lacks shows the mix; the
// choice is kept.
func TestSingleChannel(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	w.c.chanShown.SetSelected("Ch 2 (R)")
	w.statusDue = w.statusDue.Add(-1e18)
	w.Pull()
	if w.set.Channels != "ch2" || len(w.chans) != 1 || w.chans[0] != 1 || w.lowerChannel() != 1 || (*host)(w).RecordChannel() != 1 {
		t.Fatalf("Ch 2: setting %q, channels %v, lower %d", w.set.Channels, w.chans, w.lowerChannel())
	}
	capture(w.win)
	if lg := w.spec.Legend(); len(lg) < 2 || lg[0].Label != "R" || lg[0].Color != view.ColorsFor(true).Traces[1] || lg[1].Label != "live" || lg[1].Color != lg[0].Color {
		t.Errorf("legend %+v: want R named, the live trace in R's colour", lg)
	}
	if LoadSettings(a.Preferences()).Channels != "ch2" {
		t.Error("the channel shown is not kept")
	}
	w.c.chanShown.SetSelected("Ch 5")
	w.statusDue = w.statusDue.Add(-1e18)
	w.Pull()
	if len(w.chans) != 1 || w.chans[0] != 2 || w.lowerChannel() != 2 {
		t.Errorf("Ch 5 of a stereo input: channels %v, want the mix (2)", w.chans)
	}
}
