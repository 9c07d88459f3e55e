package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
)

// TestSaveDialogPaths: the save dialog proposes the last folder and a
// name from the source and the time; a typed absolute path is used as it
// is (not joined onto the folder), a relative one is taken from the
// folder shown (the one last saved to), a folder gets the proposed name in it; a folder that does
// not exist is said in the dialog, which stays; a file already there is
// replaced only after a second Save; Escape closes the dialog.
func TestSaveDialogPaths(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	folder, other := t.TempDir(), t.TempDir()
	w.rememberFolder(folder)
	var got []string
	save := func() { w.saveDialog("x_spectrum.csv", func(p string) { got = append(got, p) }) }
	submit := func(text string) {
		w.savePath.SetText(text)
		w.savePath.OnSubmitted(text)
	}
	save()
	if w.savePath.Text != filepath.Join(folder, "x_spectrum.csv") {
		t.Errorf("proposed %q", w.savePath.Text)
	}
	abs := filepath.Join(other, "abs.csv")
	submit(abs)
	save() // now proposed in other, the folder last saved to
	if w.savePath.Text != filepath.Join(other, "x_spectrum.csv") {
		t.Errorf("proposed %q after saving in %s", w.savePath.Text, other)
	}
	submit("rel.csv")
	save()
	submit(folder) // a folder: the proposed name in it
	want := []string{abs, filepath.Join(other, "rel.csv"), filepath.Join(folder, "x_spectrum.csv")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("saved to %q, want %q", got, want)
	}
	if w.recentFolders()[0] != folder {
		t.Errorf("the newest folder is %q, want %q", w.recentFolders()[0], folder)
	}
	got = nil
	save()
	submit(filepath.Join(other, "missing", "a.csv"))
	if len(got) != 0 || w.win.Canvas().Overlays().Top() == nil {
		t.Errorf("a missing folder: saved %q", got)
	}
	os.WriteFile(abs, []byte("x"), 0o644)
	submit(abs)
	if len(got) != 0 {
		t.Error("an existing file was replaced without asking")
	}
	submit(abs)
	if len(got) != 1 || got[0] != abs {
		t.Errorf("the second Save: %q", got)
	}
	before := len(w.win.Canvas().Overlays().List())
	save()
	w.savePath.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if n := len(w.win.Canvas().Overlays().List()); n != before {
		t.Errorf("Escape did not close the save dialog: %d overlays, %d before", n, before)
	}
}

// TestExportsConfirmed: a PNG and a spectrum export through their dialogs
// say what they wrote in the notice line (no modal), proposing names from
// the source (the generator) and the time.
func TestExportsConfirmed(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	w.rememberFolder(dir)
	w.exportPNGDialog()
	name := filepath.Base(w.savePath.Text)
	if !strings.HasSuffix(name, "_plots.png") || strings.HasPrefix(name, "prism") {
		t.Errorf("proposed %q", name)
	}
	w.savePath.OnSubmitted(w.savePath.Text)
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err != nil || w.note.Text() != "Saved the plots as PNG in "+path+"." {
		t.Errorf("PNG: %v, notice %q", err, w.note.Text())
	}
	if w.win.Canvas().Overlays().Top() != nil {
		t.Error("a dialog is left open")
	}
	w.exportSpectrumDialog()
	w.savePath.OnSubmitted(filepath.Join(dir, "s.txt"))
	if !w.note.Failed() || w.note.Text() != "The spectrum is exported as CSV or NPY: give the file a .csv or .npy name." {
		t.Errorf("a .txt spectrum: notice %q", w.note.Text())
	}
}

// TestChooseFileHasAPath: Mic file… and Load… (chooseFile) take a typed
// path like Ctrl+O: a relative one from the folder shown, a wrong
// extension said in the dialog, the reader's error too, in a user's words.
func TestChooseFileHasAPath(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	w.rememberFolder(dir)
	os.WriteFile(filepath.Join(dir, "mic.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.wav"), []byte("x"), 0o644)
	var used []string
	w.chooseFile(storage.NewExtensionFileFilter([]string{".txt", ".TXT", ".cal"}), func(p string) error {
		used = append(used, p)
		return nil
	})
	w.openPath.OnSubmitted("a.wav")
	if len(used) != 0 {
		t.Fatalf("a .wav was taken as a mic file: %q", used)
	}
	w.openPath.OnSubmitted("mic.txt")
	if len(used) != 1 || used[0] != filepath.Join(dir, "mic.txt") {
		t.Errorf("used %q", used)
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
		"open": func() { w.pickFile(t.TempDir(), audioFilter(), func(string) error { return nil }) },
		"save": func() { w.browseSave(t.TempDir(), "a.csv", func(string) {}) },
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
