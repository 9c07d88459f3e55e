package ui

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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
	w.cal.CalibrateFromInput(1, 94, func(error) { done = true })
	waitFor(t, func() bool { return done })
	want := "No steady 1 kHz tone in input channel 2: put the calibrator on the microphone, switch it on, then Calibrate… again."
	if w.note.Text() != want || !w.note.Failed() {
		t.Errorf("notice %q (failed %v), want %q", w.note.Text(), w.note.Failed(), want)
	}
	if w.win.Canvas().Overlays().Top() != nil {
		t.Error("a modal dialog is shown")
	}
	w.cal.UnitSelect().SetSelected(view.UnitLabels[dsp.DBSPL])
	if w.cal.Dialog() == nil || w.win.Canvas().Overlays().Top() == nil {
		t.Error("dB SPL before a calibration did not open Calibrate…")
	}
	if w.set.Unit == dsp.DBSPL || w.cal.UnitSelect().Selected != view.UnitLabels[w.set.Unit] {
		t.Errorf("the unit is %v, the control shows %q", w.set.Unit, w.cal.UnitSelect().Selected)
	}
}

// noOutputEngine is the fake engine on a machine without an output
// device: the playthrough cannot start.
type noOutputEngine struct{ *fakeEngine }

func (noOutputEngine) SetPlaythrough(on bool, _ dsp.BandSpec) error {
	if on {
		return errors.New("audio: no output device") // audio.ErrNoOutputDevice's text (ui does not import audio)
	}
	return nil
}

// TestFileWithoutOutput: "File, in real time…" on a machine without an
// output device plays the file as the source all the same and says in
// the notice line, not a modal, that it cannot be heard; the monitor box
// turns off again.
func TestFileWithoutOutput(t *testing.T) {
	e := newFakeEngine()
	a := test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	w := New(a, win, noOutputEngine{e}, Options{Manual: true, Do: func(f func()) { uiQueue <- f }})
	t.Cleanup(w.Close)
	path := filepath.Join(t.TempDir(), "tone.flac")
	w.playFile(path)
	waitFor(t, func() bool { return e.Source().File == path && w.note.Text() != "" })
	if w.note.Text() != "There is no audio output device to play to: the analysis goes on without sound." || !w.note.Failed() {
		t.Errorf("notice %q", w.note.Text())
	}
	if w.win.Canvas().Overlays().Top() != nil || w.c.monitor.Checked || w.monitorOn {
		t.Errorf("a modal %v, monitor box %v, on %v", w.win.Canvas().Overlays().Top(), w.c.monitor.Checked, w.monitorOn)
	}
}
