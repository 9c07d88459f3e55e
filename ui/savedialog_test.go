package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/ui/panel"
)

// TestExportsConfirmed: a PNG and a spectrum export through their dialogs
// say what they wrote in the notice line (no modal), proposing names from
// the source (the generator) and the time.
func TestExportsConfirmed(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	w.dlg.RememberFolder(dir)
	w.exportPNGDialog()
	name := filepath.Base(w.dlg.SaveEntry().Text)
	if !strings.HasSuffix(name, "_plots.png") || strings.HasPrefix(name, "prism") {
		t.Errorf("proposed %q", name)
	}
	w.dlg.SaveEntry().OnSubmitted(w.dlg.SaveEntry().Text)
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err != nil || w.note.Text() != "Saved the plots as PNG in "+path+"." {
		t.Errorf("PNG: %v, notice %q", err, w.note.Text())
	}
	if w.win.Canvas().Overlays().Top() != nil {
		t.Error("a dialog is left open")
	}
	w.exportSpectrumDialog()
	w.dlg.SaveEntry().OnSubmitted(filepath.Join(dir, "s.txt"))
	if !w.note.Failed() || w.note.Text() != "The spectrum is exported as CSV or NPY: give the file a .csv or .npy name." {
		t.Errorf("a .txt spectrum: notice %q", w.note.Text())
	}
}

// TestEscapeClosesStockDialogs: Escape closes Fyne's own open and save
// dialogs (Browse…) and gives the window its keys back: Space pauses
// again afterwards.
func TestEscapeClosesStockDialogs(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	c := w.win.Canvas()
	for name, show := range map[string]func(){
		"open": func() { w.dlg.PickFile(t.TempDir(), panel.AudioFilter(), func(string) error { return nil }) },
		"save": func() { w.dlg.BrowseSave(t.TempDir(), "a.csv", func(string) {}) },
	} {
		show()
		if c.Overlays().Top() == nil {
			t.Fatalf("%s: no dialog", name)
		}
		c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
		if c.Overlays().Top() != nil {
			t.Errorf("%s: Escape did not close it", name)
		}
		paused := w.paused
		c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeySpace})
		if w.paused == paused {
			t.Errorf("%s: Space does not pause after the dialog closed", name)
		}
	}
}
