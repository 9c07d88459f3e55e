package ui

import (
	"errors"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// objectsOf is every object of the tree under o (containers' objects and
// widgets' renderers' objects), o first.
func objectsOf(o fyne.CanvasObject) []fyne.CanvasObject {
	all := []fyne.CanvasObject{o}
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			all = append(all, objectsOf(c)...)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			all = append(all, objectsOf(c)...)
		}
	}
	return all
}

// buttonNamed is the window's button labelled text (the test fails
// without one).
func buttonNamed(t *testing.T, w *Window, text string) *widget.Button {
	t.Helper()
	for _, o := range objectsOf(w.win.Content()) {
		if b, ok := o.(*widget.Button); ok && b.Text == text {
			return b
		}
	}
	t.Fatalf("no button %q", text)
	return nil
}

// noticeNotModal fails t unless the notice line says want (a failure)
// and no dialog is shown over the window.
func noticeNotModal(t *testing.T, w *Window, want string) {
	t.Helper()
	if w.note.Text() != want || !w.note.Failed() {
		t.Errorf("notice %q (failed %v), want %q", w.note.Text(), w.note.Failed(), want)
	}
	if top := w.win.Canvas().Overlays().Top(); top != nil {
		t.Errorf("a modal is shown: %T", top)
	}
}

// TestFileTabNotices: the File tab's failures (Export spectrogram… and
// Compare B… before a file is open, a file that cannot be analyzed, a
// comparison that fails) say what to do in the notice line, with the Go
// chain under Details, never in a modal dialog.
func TestFileTabNotices(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	(*host)(w).ShowFileTab()
	test.Tap(buttonNamed(t, w, "Export spectrogram…"))
	noticeNotModal(t, w, "Open a file first (Ctrl+O), then export its spectrogram.")
	w.note.Clear()
	test.Tap(buttonNamed(t, w, "Compare B…"))
	noticeNotModal(t, w, "Open file A first (Ctrl+O), then Compare A/B… with file B.")

	w.note.Clear()
	e.mu.Lock()
	e.fileErr = errors.New("analysis: open /tmp/gone.wav: no such file or directory")
	e.mu.Unlock()
	w.fp.OpenFile("/tmp/gone.wav")
	waitFor(t, func() bool { return w.note.Text() != "" })
	noticeNotModal(t, w, "That file or folder does not exist: check the path and try again.")
	if w.note.Text() == e.fileErr.Error() {
		t.Error("the notice is the Go error chain")
	}
	w.note.Clear()
	var got error
	done := false
	w.fp.ExportSpectrogram("/tmp/x.npy", func(err error) { got, done = err, true })
	waitFor(t, func() bool { return done })
	if got == nil {
		t.Fatal("exporting without a file succeeded")
	}
	if w.note.Text() == "" || !w.note.Failed() || w.win.Canvas().Overlays().Top() != nil {
		t.Errorf("export without a file: notice %q (failed %v), modal %v", w.note.Text(), w.note.Failed(), w.win.Canvas().Overlays().Top())
	}
}

// TestEntryNotices: a generator or band filter that does not parse,
// submitted with Enter, leaves the settings as they were and says so
// (with an example to write) in the notice line, not in a modal.
func TestEntryNotices(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	before := w.settings()
	w.c.gen.SetText("sine:banana")
	w.c.gen.OnSubmitted("sine:banana")
	if w.note.Text() == "" || !w.note.Failed() || w.win.Canvas().Overlays().Top() != nil {
		t.Errorf("generator: notice %q (failed %v), modal %v", w.note.Text(), w.note.Failed(), w.win.Canvas().Overlays().Top())
	}
	if want := "The generator was not changed ("; len(w.note.Text()) < len(want) || w.note.Text()[:len(want)] != want {
		t.Errorf("generator notice %q", w.note.Text())
	}
	w.note.Clear()
	w.c.bandEntry.OnSubmitted("bandpass:3400-300")
	if w.note.Text() == "" || !w.note.Failed() || w.win.Canvas().Overlays().Top() != nil {
		t.Errorf("band: notice %q (failed %v), modal %v", w.note.Text(), w.note.Failed(), w.win.Canvas().Overlays().Top())
	}
	if after := w.settings(); after.Source != before.Source || after.Band != before.Band {
		t.Errorf("settings changed: %+v → %+v", before.Source, after.Source)
	}
}
