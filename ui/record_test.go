package ui

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/ui/panel"
)

// TestExportHistory: the window exports the waterfall's channel (the mix,
// output channel 2 of a stereo input), or every output channel to
// NAME.ch1 … NAME.mix when every channel is shown, and says the columns'
// spacing and the frames each folds.
func TestExportHistory(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	var info live.HistoryInfo
	var exportErr error
	done := false
	w.rec.ExportHistory(filepath.Join(dir, "h.npy"), func(i live.HistoryInfo, err error) { info, exportErr, done = i, err, true })
	waitFor(t, func() bool { return done })
	if exportErr != nil || len(e.history) != 1 || !slices.Equal(e.history[0].paths, []string{filepath.Join(dir, "h.npy")}) ||
		!slices.Equal(e.history[0].chans, []int{2}) {
		t.Fatalf("export of the mix: %v, calls %+v", exportErr, e.history)
	}
	if info.Columns != 10 || info.FramesPerColumn != 3 { // what the message says (panel's TestHistoryMessage)
		t.Errorf("info %+v", info)
	}
	w.set.Channels = "all"
	done = false
	w.rec.ExportHistory(filepath.Join(dir, "h.csv"), func(_ live.HistoryInfo, err error) { exportErr, done = err, true })
	waitFor(t, func() bool { return done })
	want := []string{filepath.Join(dir, "h.ch1.csv"), filepath.Join(dir, "h.ch2.csv"), filepath.Join(dir, "h.mix.csv")}
	if exportErr != nil || len(e.history) != 2 || !slices.Equal(e.history[1].paths, want) || !slices.Equal(e.history[1].chans, []int{0, 1, 2}) {
		t.Errorf("export of every channel: %v, calls %+v", exportErr, e.history)
	}
}

// TestRecordToggle: Record starts a recording of the waterfall's channel
// (the button and the status strip say so, with the file, frames, gaps
// and drops), Ctrl+Shift+R stops it and the file is saved; a bad format is refused
// at once and an engine's error reaches the caller, both leaving the
// window not recording.
func TestRecordToggle(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	var startErr error
	started := false
	w.rec.Start(filepath.Join(dir, "rec.npy"), func(err error) { startErr, started = err, true })
	waitFor(t, func() bool { return started })
	w.updateStatus()
	if st := e.RecordStatus(); startErr != nil || !st.Active || st.Channel != 2 || recordButton(w) != panel.StopAnalysisText ||
		!strings.Contains(w.statusStrip(), "● REC 42 frames · gaps 2 · dropped 0") || !strings.Contains(w.bar.Line(), "recording to "+filepath.Join(dir, "rec.npy")) {
		t.Fatalf("recording: %v, status %+v, button %q, strip %q", startErr, st, recordButton(w), w.statusStrip())
	}
	// paused, with a warning and recording, the strip still fits at 1280×800
	e.mu.Lock()
	e.status = "no data for 371.519272ms"
	e.mu.Unlock()
	w.typedKey(fyne.KeySpace)
	w.statusDue = time.Time{}
	w.Pull()
	strip := w.statusStrip()
	if need, room := w.bar.StripWidth(); need > room || !strings.Contains(strip, "● REC") {
		t.Errorf("the strip needs %.0f units, has %.0f: %q is cut off", need, room, strip)
	}
	w.typedKey(fyne.KeySpace)
	// Ctrl+Shift+R stops it
	sh, ok := w.win.Canvas().(interface{ TypedShortcut(fyne.Shortcut) })
	if !ok {
		t.Fatal("the test canvas takes no shortcuts")
	}
	sh.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift})
	waitFor(t, func() bool { return !e.RecordStatus().Active && !w.rec.Busy() })
	final := e.RecordStatus()
	w.updateStatus()
	if final.Active || !final.Saved || recordButton(w) != panel.RecordAnalysisText || strings.Contains(w.statusStrip(), "REC") {
		t.Errorf("after stop: %+v, button %q, strip %q", final, recordButton(w), w.statusStrip())
	}
	if final.Frames != 42 || final.Gaps != 2 || final.Geometry.Bins() != 2049 { // what the message says (panel's TestRecordMessage)
		t.Errorf("saved %+v", final)
	}

	started = false
	w.rec.Start(filepath.Join(dir, "rec.png"), func(err error) { startErr, started = err, true })
	if !started || startErr == nil || w.rec.Busy() {
		t.Errorf("a .png recording: %v (reported %v, pending %v)", startErr, started, w.rec.Busy())
	}
	e.recordErr = errors.New("live: record: no output channel 2")
	started = false
	w.rec.Start(filepath.Join(dir, "rec2.npy"), func(err error) { startErr, started = err, true })
	waitFor(t, func() bool { return started })
	if startErr == nil || w.rec.Busy() || recordButton(w) != panel.RecordAnalysisText {
		t.Errorf("an engine's error: %v, pending %v, button %q", startErr, w.rec.Busy(), recordButton(w))
	}
	// a recording the engine ended (a full disk) is said once
	e.record = live.RecordStatus{Path: "x.npy", Err: "live: record: write output: no space left on device"}
	w.rec.Sync()
	if w.rec.ErrorShown() != e.record.Err {
		t.Errorf("the error that ended a recording was not shown: %q", w.rec.ErrorShown())
	}
}

// recordButton is the Record button's text.
func recordButton(w *Window) string {
	b, _ := w.rec.Buttons()
	return b.Text
}

// TestRecordAudio: "● Record audio" records the input: the button turns
// into "■ Stop audio" with the time recorded, the notice line (never a
// modal dialog) says where it goes, and after the stop what the file
// holds (its duration, channels, rate and the lost input written as
// silence); a name that is not .wav is refused in a user's words, with
// the error chain behind Details; the analysis recording is untouched.
func TestRecordAudio(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	path := filepath.Join(dir, "in.wav")
	var startErr error
	started := false
	w.rec.StartAudio(path, func(err error) { startErr, started = err, true })
	waitFor(t, func() bool { return started })
	w.updateStatus()
	if b := w.rec.AudioButton().Text; startErr != nil || b != "■ Stop audio 0:01" || !strings.Contains(w.note.Text(), "Recording the input to "+path) {
		t.Fatalf("recording audio: %v, button %q, notice %q", startErr, b, w.note.Text())
	}
	if e.RecordStatus().Active || recordButton(w) != panel.RecordAnalysisText {
		t.Error("the analysis recording started with the audio")
	}
	stopped := false
	w.rec.StopAudio(func(live.AudioRecordStatus, error) { stopped = true })
	waitFor(t, func() bool { return stopped })
	want := "Saved 1.0 s of audio in " + path + ": 2 channels at 48000 Hz, 32-bit float; 10 ms of lost input written as silence."
	if b := w.rec.AudioButton().Text; b != panel.RecordAudioText || w.note.Text() != want || w.note.Failed() {
		t.Errorf("after stop: button %q, notice %q, want %q", b, w.note.Text(), want)
	}
	started = false
	w.rec.StartAudio(filepath.Join(dir, "in.npy"), func(err error) { startErr, started = err, true })
	if !started || startErr == nil || !w.note.Failed() || w.note.Text() != "Audio is recorded as WAV or FLAC: give the file a .wav or .flac name." {
		t.Errorf("a .npy audio recording: %v, notice %q (failed %v)", startErr, w.note.Text(), w.note.Failed())
	}
	if top := w.win.Canvas().Overlays().Top(); top != nil {
		t.Errorf("a modal is shown: %T", top)
	}
}
