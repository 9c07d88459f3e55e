package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestOpenDialog: a typed path opens the file; a typed folder or a bad
// path does not; the folders files came from are remembered newest first
// (eight at most) and the dialog starts in the newest.
func TestOpenDialog(t *testing.T) {
	e := newFakeEngine()
	e.file = syntheticFile()
	w, _ := newTestWindow(t, e)
	dirs := make([]string, 10)
	for i := range dirs {
		dirs[i] = t.TempDir()
		os.WriteFile(filepath.Join(dirs[i], "a.wav"), []byte("RIFF"), 0o644)
		w.dlg.RememberFolder(dirs[i])
	}
	w.dlg.RememberFolder(dirs[3]) // again: moves to the front, once
	got := w.dlg.RecentFolders()
	want := []string{dirs[3], dirs[9], dirs[8], dirs[7], dirs[6], dirs[5], dirs[4], dirs[2]}
	if !slices.Equal(got, want) {
		t.Errorf("recent folders %q, want %q", got, want)
	}

	w.openDialog()
	if w.dlg.OpenEntry().Text != dirs[3]+string(filepath.Separator) {
		t.Errorf("the dialog starts at %q, want %q", w.dlg.OpenEntry().Text, dirs[3])
	}
	// a text file is refused with a message
	txt := filepath.Join(dirs[3], "notes.txt")
	os.WriteFile(txt, []byte("x"), 0o644)
	w.dlg.OpenEntry().SetText(txt)
	w.dlg.OpenEntry().OnSubmitted(txt)
	if len(e.views) != 0 {
		t.Error("a .txt file was analyzed")
	}
	wav := filepath.Join(dirs[1], "a.wav")
	w.dlg.OpenEntry().SetText(wav)
	w.dlg.OpenEntry().OnSubmitted(wav)
	waitFor(t, func() bool { return w.fview.File() != nil })
	if r := w.dlg.RecentFolders(); r[0] != dirs[1] {
		t.Errorf("after opening %s the newest folder is %s", wav, r[0])
	}
}

// TestWindowSizeRemembered: closing saves the window's size; the next
// start gets it (the default at the first, and for nonsense).
func TestWindowSizeRemembered(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	if got := WindowSize(a.Preferences()); got != defaultWindowSize {
		t.Errorf("first start: %v", got)
	}
	w.win.Resize(fyne.NewSize(1500, 950))
	w.Close()
	if got := WindowSize(a.Preferences()); got != fyne.NewSize(1500, 950) {
		t.Errorf("after closing at 1500×950: %v", got)
	}
	a.Preferences().SetFloat(prefWinWidth, 10)
	if got := WindowSize(a.Preferences()); got != defaultWindowSize {
		t.Errorf("a 10-unit-wide window: %v", got)
	}
	if !strings.HasPrefix(prefWinWidth, prefPrefix) {
		t.Error("window keys outside the prefix")
	}
}

// TestPlayFileIsHeard: choosing a file as the live source ("File, in real
// time") switches to it and turns the monitor output on.
func TestPlayFileIsHeard(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	path := filepath.Join(dir, "tone.flac")
	w.playFile(path)
	waitFor(t, func() bool { return e.Source().File == path && w.notice == "" })
	waitFor(t, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.monitorOn
	})
	if !w.c.monitor.Checked || w.dlg.RecentFolders()[0] != dir {
		t.Errorf("monitor box %v, recent %q", w.c.monitor.Checked, w.dlg.RecentFolders())
	}
}
