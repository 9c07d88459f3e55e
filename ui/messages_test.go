package ui

import (
	"fmt"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/ui/view"
)

// TestCalibrationMessages: a calibration that finds no tone says so in
// one sentence with the action to take (the issue's chain "calibration
// from the input: live: dsp: calibrator recording: dsp: distortion: no
// fundamental found" only under Details), in the notice line, not a
// modal; choosing dB SPL before calibrating opens Calibrate… (the unit
// stays as it was) instead of an error.
func TestCalibrationMessages(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	e.mu.Lock()
	e.calErr = fmt.Errorf("live: %w", fmt.Errorf("dsp: calibrator recording: %w", dsp.ErrNoFundamental))
	e.mu.Unlock()
	done := false
	w.cal.calibrateFromInput(1, 94, func(error) { done = true })
	waitFor(t, func() bool { return done })
	want := "No steady 1 kHz tone in input channel 2: put the calibrator on the microphone, switch it on, then Calibrate… again."
	if w.note.Text() != want || !w.note.Failed() {
		t.Errorf("notice %q (failed %v), want %q", w.note.Text(), w.note.Failed(), want)
	}
	if w.win.Canvas().Overlays().Top() != nil {
		t.Error("a modal dialog is shown")
	}
	w.cal.unit.SetSelected(view.UnitLabels[dsp.DBSPL])
	if w.cal.dlg == nil || w.win.Canvas().Overlays().Top() == nil {
		t.Error("dB SPL before a calibration did not open Calibrate…")
	}
	if w.set.Unit == dsp.DBSPL || w.cal.unit.Selected != view.UnitLabels[w.set.Unit] {
		t.Errorf("the unit is %v, the control shows %q", w.set.Unit, w.cal.unit.Selected)
	}
}
