package ui

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// placedText is a text drawn in the window: its rectangle (what the
// letters cover, in window coordinates), the part of it that shows (a
// scroll's viewport cuts it) and the scroll it is in (nil: none).
type placedText struct {
	text   string
	r      box
	shown  box
	scroll *container.Scroll
}

// box is a rectangle of the window.
type box struct {
	Position fyne.Position
	Size     fyne.Size
}

func rect(pos fyne.Position, size fyne.Size) box { return box{Position: pos, Size: size} }

// intersect is the common part of a and b (an empty size when none).
func intersect(a, b box) box {
	x0, y0 := max(a.Position.X, b.Position.X), max(a.Position.Y, b.Position.Y)
	x1 := min(a.Position.X+a.Size.Width, b.Position.X+b.Size.Width)
	y1 := min(a.Position.Y+a.Size.Height, b.Position.Y+b.Size.Height)
	if x1 <= x0 || y1 <= y0 {
		return box{}
	}
	return box{Position: fyne.NewPos(x0, y0), Size: fyne.NewSize(x1-x0, y1-y0)}
}

// textsOf collects the visible texts under o, placed at pos, cut by clip
// (the innermost scroll's viewport, in window coordinates).
func textsOf(o fyne.CanvasObject, pos fyne.Position, clip box, scroll *container.Scroll, out *[]placedText) {
	if !o.Visible() {
		return
	}
	at := pos.Add(o.Position())
	switch x := o.(type) {
	case *canvas.Text:
		if strings.TrimSpace(x.Text) == "" {
			return
		}
		ms := x.MinSize()
		w, h := min(ms.Width, x.Size().Width), min(ms.Height, x.Size().Height)
		left := at.X
		switch x.Alignment {
		case fyne.TextAlignCenter:
			left += (x.Size().Width - w) / 2
		case fyne.TextAlignTrailing:
			left += x.Size().Width - w
		}
		// the glyphs' box: the line's height less Fyne's inner padding
		r := rect(fyne.NewPos(left+1, at.Y+1), fyne.NewSize(w-2, h-2))
		*out = append(*out, placedText{text: x.Text, r: r, shown: intersect(r, clip), scroll: scroll})
	case *fyne.Container:
		for _, c := range x.Objects {
			textsOf(c, at, clip, scroll, out)
		}
	case *container.Scroll:
		view := intersect(clip, rect(at, x.Size()))
		for _, c := range test.WidgetRenderer(x).Objects() {
			textsOf(c, at, view, x, out)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			textsOf(c, at, clip, scroll, out)
		}
	}
}

// windowTexts are the window's visible texts, its overlays' included.
func windowTexts(w *Window) []placedText {
	var ts []placedText
	size := w.win.Canvas().Size()
	textsOf(w.win.Content(), fyne.Position{}, rect(fyne.Position{}, size), nil, &ts)
	for _, o := range w.win.Canvas().Overlays().List() {
		textsOf(o, fyne.Position{}, rect(fyne.Position{}, size), nil, &ts)
	}
	return ts
}

// textOverlaps are the pairs of texts of the window that overlap where
// they show (texts in one scroll: wherever they are in it).
func textOverlaps(w *Window) []string {
	ts := windowTexts(w)
	var bad []string
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			a, b := ts[i], ts[j]
			ra, rb := a.shown, b.shown
			if a.scroll != nil && a.scroll == b.scroll {
				ra, rb = a.r, b.r
			}
			if in := intersect(ra, rb); in.Size.Width >= 1 && in.Size.Height >= 1 {
				bad = append(bad, fmt.Sprintf("%q at %v+%v over %q at %v+%v", a.text, a.r.Position, a.r.Size, b.text, b.r.Position, b.r.Size))
			}
		}
	}
	return bad
}

// openSections opens every section of the side panel (the texts of
// closed ones are hidden, and so not checked).
func openSections(w *Window) {
	w.c.sections.OpenAll()
}

// layOut lays the window out at size as the desktop driver does over its
// frames: a wrapped label's height follows the width it gets only on the
// next layout, so the window is laid out until nothing moves.
func layOut(w *Window, size fyne.Size) {
	for range 4 {
		w.win.Resize(size.AddWidthHeight(1, 0))
		w.win.Content().Refresh()
		w.win.Resize(size)
	}
}

// TestNoTextOverlaps: at 1280×800 and 1920×1080 no two texts of the
// window's widgets (labels, buttons, dropdowns, entries, tabs, the status
// bar; every side-panel section open) overlap, on the Live tab and on the
// File tab with a file open; and the check finds an overlap made on
// purpose. (The views draw their axes, legends and readouts into their
// own images: their placement is theirs to test.)
func TestNoTextOverlaps(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1280, Height: 800}, {Width: 1920, Height: 1080}} {
		t.Run(fmt.Sprintf("%gx%g", size.Width, size.Height), func(t *testing.T) {
			e := newFakeEngine()
			e.file = syntheticFile()
			w, _ := newTestWindow(t, e)
			openSections(w)
			w.Pull()
			layOut(w, size)
			if bad := textOverlaps(w); len(bad) > 0 {
				t.Errorf("Live tab: %d overlaps:\n%s", len(bad), strings.Join(bad, "\n"))
			}
			// the check sees the whole window: tabs, panel, status bar
			seen := map[string]bool{}
			for _, p := range windowTexts(w) {
				seen[p.text] = true
			}
			for _, want := range []string{"Live", "Stress test (192 kHz × 8)", "Harmonics, THD (D)", "Keys… (?)", "● Record audio", "Details"} {
				if !seen[want] {
					t.Errorf("the text %q was not checked", want)
				}
			}
			w.fp.OpenFile("synthetic.wav")
			waitFor(t, func() bool { return w.fview.File() != nil })
			layOut(w, size)
			if bad := textOverlaps(w); len(bad) > 0 {
				t.Errorf("File tab: %d overlaps:\n%s", len(bad), strings.Join(bad, "\n"))
			}
		})
	}
	// the check itself: two labels placed on one another
	a, b := canvas.NewText("left", nil), canvas.NewText("right", nil)
	c := container.NewWithoutLayout(a, b)
	a.Resize(a.MinSize())
	b.Resize(b.MinSize())
	b.Move(fyne.NewPos(a.MinSize().Width/2, 0))
	var ts []placedText
	textsOf(c, fyne.Position{}, rect(fyne.Position{}, fyne.NewSize(500, 500)), nil, &ts)
	if len(ts) != 2 || intersect(ts[0].shown, ts[1].shown).Size.Width < 1 {
		t.Errorf("two overlapping texts not found: %+v", ts)
	}
}
