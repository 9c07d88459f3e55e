package panel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
)

// newTestDialogs is the dialogs over a test window of the window's size.
func newTestDialogs(t *testing.T) (*Dialogs, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	return NewDialogs(win, a.Preferences(), "prism.files.recent", NewNotice(win)), win
}

// TestSaveDialogPaths: the save dialog proposes the last folder and a
// name from the source and the time; a typed absolute path is used as it
// is (not joined onto the folder), a relative one is taken from the
// folder shown (the one last saved to), a folder gets the proposed name in it; a folder that does
// not exist is said in the dialog, which stays; a file already there is
// replaced only after a second Save; Escape closes the dialog.
func TestSaveDialogPaths(t *testing.T) {
	d, win := newTestDialogs(t)
	folder, other := t.TempDir(), t.TempDir()
	d.RememberFolder(folder)
	var got []string
	save := func() { d.Save("x_spectrum.csv", func(p string) { got = append(got, p) }) }
	submit := func(text string) {
		d.savePath.SetText(text)
		d.savePath.OnSubmitted(text)
	}
	save()
	if d.savePath.Text != filepath.Join(folder, "x_spectrum.csv") {
		t.Errorf("proposed %q", d.savePath.Text)
	}
	abs := filepath.Join(other, "abs.csv")
	submit(abs)
	save() // now proposed in other, the folder last saved to
	if d.savePath.Text != filepath.Join(other, "x_spectrum.csv") {
		t.Errorf("proposed %q after saving in %s", d.savePath.Text, other)
	}
	submit("rel.csv")
	save()
	submit(folder) // a folder: the proposed name in it
	want := []string{abs, filepath.Join(other, "rel.csv"), filepath.Join(folder, "x_spectrum.csv")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("saved to %q, want %q", got, want)
	}
	if d.RecentFolders()[0] != folder {
		t.Errorf("the newest folder is %q, want %q", d.RecentFolders()[0], folder)
	}
	got = nil
	save()
	submit(filepath.Join(other, "missing", "a.csv"))
	if len(got) != 0 || win.Canvas().Overlays().Top() == nil {
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
	before := len(win.Canvas().Overlays().List())
	save()
	d.savePath.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if n := len(win.Canvas().Overlays().List()); n != before {
		t.Errorf("Escape did not close the save dialog: %d overlays, %d before", n, before)
	}
}

// TestChooseFileHasAPath: Mic file… and Load… (Choose) take a typed
// path like Ctrl+O: a relative one from the folder shown, a wrong
// extension said in the dialog, the reader's error too, in a user's words.
func TestChooseFileHasAPath(t *testing.T) {
	d, _ := newTestDialogs(t)
	dir := t.TempDir()
	d.RememberFolder(dir)
	os.WriteFile(filepath.Join(dir, "mic.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.wav"), []byte("x"), 0o644)
	var used []string
	d.Choose(storage.NewExtensionFileFilter([]string{".txt", ".TXT", ".cal"}), func(p string) error {
		used = append(used, p)
		return nil
	})
	d.openPath.OnSubmitted("a.wav")
	if len(used) != 0 {
		t.Fatalf("a .wav was taken as a mic file: %q", used)
	}
	d.openPath.OnSubmitted("mic.txt")
	if len(used) != 1 || used[0] != filepath.Join(dir, "mic.txt") {
		t.Errorf("used %q", used)
	}
}

// TestAudioFilter: the dialogs list WAV, FLAC and MP3 files in either
// case and nothing else.
func TestAudioFilter(t *testing.T) {
	f := AudioFilter()
	for name, want := range map[string]bool{"a.wav": true, "b.FLAC": true, "c.mp3": true, "d.Wav": true, "e.txt": false, "f.ogg": false, "g.rf64": true} {
		if got := f.Matches(storage.NewFileURI("/x/" + name)); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
