package ui

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/ui/panel"
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

// press delivers a key as the desktop driver does: to the focused widget
// if there is one, else to the window (the named key, then its rune).
func press(c fyne.Canvas, name fyne.KeyName, r rune) {
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: name})
		if r != 0 {
			f.TypedRune(r)
		}
		return
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: name})
	if r != 0 {
		c.OnTypedRune()(r)
	}
}

// choose picks label in sel as a person does: a tap opens its list, a
// tap on the entry chooses it.
func choose(t *testing.T, c fyne.Canvas, sel *widget.Select, label string) {
	t.Helper()
	test.Tap(sel)
	pick(t, c, sel, label)
}

// pick taps label in the open list of sel.
func pick(t *testing.T, c fyne.Canvas, sel *widget.Select, label string) {
	t.Helper()
	top := c.Overlays().Top()
	if top == nil {
		t.Fatalf("%q: tapping the dropdown shows no list", sel.Selected)
	}
	for _, o := range test.LaidOutObjects(top) {
		tap, ok := o.(fyne.Tappable)
		if !ok {
			continue
		}
		w, ok := o.(fyne.Widget)
		if !ok {
			continue
		}
		for _, ch := range test.WidgetRenderer(w).Objects() {
			if txt, ok := ch.(*canvas.Text); ok && txt.Text == label {
				test.Tap(tap)
				return
			}
		}
	}
	t.Fatalf("no entry %q in the list of %v", label, sel.Options)
}

// TestKeysAfterEveryDropdown: after a choice in any dropdown of the
// window (the side panel's, "Difference to", the File tab's), Space
// pauses and D toggles the distortion readout, as they do before;
// choosing the option already chosen gives the focus back at the next
// tick.
func TestKeysAfterEveryDropdown(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	if err := w.rp.Store("room"); err != nil { // "Difference to" then has a choice
		t.Fatal(err)
	}
	c := w.win.Canvas()
	sels := sideWidgets(w, func(*widget.Select) bool { return true })
	if len(sels) < 20 {
		t.Fatalf("%d dropdowns in the window", len(sels))
	}
	check := func(what string) {
		t.Helper()
		paused, harm := w.paused, w.harm.On()
		press(c, fyne.KeySpace, ' ')
		if w.paused == paused {
			t.Errorf("%s: Space did not pause (focus on %T)", what, c.Focused())
		}
		press(c, fyne.KeyD, 'd')
		if w.harm.On() == harm {
			t.Errorf("%s: D did not toggle the distortion readout (focus on %T)", what, c.Focused())
		}
		if c.Overlays().Top() != nil {
			t.Errorf("%s: a list is open after Space and D", what)
			c.Overlays().Top().Hide()
			c.Overlays().Remove(c.Overlays().Top())
		}
	}
	for _, sel := range sels {
		if sel.Disabled() || len(sel.Options) == 0 {
			continue
		}
		// another option than the one shown, not one that opens a dialog
		label := ""
		for _, o := range sel.Options {
			if o != sel.Selected && o != srcFile && o != "Custom…" {
				label = o
				break
			}
		}
		if label == "" {
			continue
		}
		was := sel.Selected
		choose(t, c, sel, label)
		settle(t, w)
		check(fmt.Sprintf("after %q → %q", was, label))
		// the same option again: no change; the window ticks while the
		// list shows and the next tick after it releases the focus
		if sel.Selected == label {
			test.Tap(sel)
			w.Pull()
			pick(t, c, sel, label)
			// as the desktop driver leaves it: the list's tap unfocused
			// in the list's overlay, the window's focus is still on the
			// dropdown (the test canvas has one focus for both)
			c.Focus(sel)
			w.Pull()
			check(fmt.Sprintf("after %q again", label))
		}
	}
}

// TestEveryKeyListed: every key the window handles is in the keys table,
// the table is plain text (no ↔, no arrows some fonts draw as emoji), and
// the overlay (?) shows every row.
func TestEveryKeyListed(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	keys := map[string]bool{}
	for _, r := range keyRows {
		for _, k := range strings.Fields(r.key) {
			keys[k] = true
		}
		for _, ch := range r.key + r.action {
			if ch == '↔' || ch >= 0x2190 && ch <= 0x21FF && ch != '→' {
				t.Errorf("row %q: %q may be drawn as an emoji", r.key, ch)
			}
		}
	}
	for _, k := range []string{"Space", "G", "F", "M", "A", "H", "R", "V", "S", "D", "T", "[", "]", "+", "-", "0", "?",
		"Up", "Down", "Left", "Right", "Ctrl+O", "Ctrl+S", "Ctrl+E", "Ctrl+Shift+S", "Ctrl+Shift+R"} {
		if !keys[k] {
			t.Errorf("key %s is not in the table", k)
		}
	}
	w.typedRune('?')
	top := w.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("? shows nothing")
	}
	shown := map[string]bool{}
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := o.(*canvas.Text); ok {
			shown[l.Text] = true
		}
	}
	for _, r := range keyRows {
		if !shown[r.key] || !shown[r.action] || !shown[r.workspace] {
			t.Errorf("the overlay lacks the row %+v", r)
		}
	}
	if s := top.MinSize(); s.Height > 800 || s.Width > 1280 {
		t.Errorf("the overlay needs %v, more than the window's 1280×800", s)
	}
}

// TestKeysOverlayGolden: the keys overlay as drawn: columns of
// sections, keys in bold, plain text (no emoji).
func TestKeysOverlayGolden(t *testing.T) {
	test.NewTempApp(t)
	win := test.NewTempWindow(t, panel.KeysOverlay(keyTable()))
	win.Resize(fyne.NewSize(1000, 800))
	test.AssertImageMatches(t, "keys_overlay.png", win.Canvas().Capture())
}
