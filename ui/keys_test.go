package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestSpaceTogglesOnce: the driver delivers Space as a key and as the
// rune ' '; one press pauses, the next resumes.
func TestSpaceTogglesOnce(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	c := w.win.Canvas()
	press := func() {
		c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeySpace})
		c.OnTypedRune()(' ')
	}
	press()
	if !w.paused {
		t.Fatal("one Space press did not pause")
	}
	press()
	if w.paused {
		t.Fatal("a second Space press did not resume")
	}
	test.TypeOnCanvas(c, "   ") // runes alone (as an entry would get them) do nothing
	if w.paused {
		t.Error("typed spaces paused")
	}
}
