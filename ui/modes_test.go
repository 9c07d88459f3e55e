package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/ui/panel"
)

// TestModeKeyAndSelector: Q cycles the analysis mode (STFT → multi-
// resolution → VQT → reassigned → STFT); each step hands the engine the
// mode with the analysis's hop, frame size and window and the mode's own
// parameters, shows it in the Analysis section's selector, and is saved
// with the settings; the selector sets it too.
func TestModeKeyAndSelector(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	c := w.win.Canvas()
	want := []tfr.Mode{tfr.MultiRes, tfr.VQT, tfr.Reassigned, tfr.STFT}
	for i, m := range want {
		press(c, fyne.KeyQ, 'q')
		if w.set.Mode.Mode != m {
			t.Fatalf("press %d: mode %v, want %v", i+1, w.set.Mode.Mode, m)
		}
		e.mu.Lock()
		got := e.modes[len(e.modes)-1]
		e.mu.Unlock()
		l, _ := w.set.Live()
		if got.TFR.Mode != m || got.TFR.Hop != l.Hop || got.TFR.Size != l.FFT || got.TFR.Window != l.Window ||
			got.TFR.BinsPerOctave != 48 || got.TFR.FMin != 20 || got.AvgTau != l.AvgTau {
			t.Errorf("press %d: engine got %+v (averaging %v), want mode %v, hop %d, size %d, 48 bins/octave from 20 Hz",
				i+1, got.TFR, got.AvgTau, m, l.Hop, l.FFT)
		}
		if sel := w.c.mode.Selected; sel != panel.ModeLabel(m) {
			t.Errorf("press %d: selector shows %q, want %q", i+1, sel, panel.ModeLabel(m))
		}
		if saved := LoadSettings(a.Preferences()).Mode; saved != w.set.Mode {
			t.Errorf("press %d: saved %+v, want %+v", i+1, saved, w.set.Mode)
		}
	}
	choose(t, c, w.c.mode, panel.ModeLabel(tfr.VQT))
	if w.set.Mode.Mode != tfr.VQT {
		t.Errorf("the selector set %v, want the VQT", w.set.Mode.Mode)
	}
}
