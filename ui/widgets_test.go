package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// walk calls visit on every object laid out under o, with the container
// holding it (nil for o), in layout order.
func walk(o fyne.CanvasObject, parent *fyne.Container, visit func(o fyne.CanvasObject, parent *fyne.Container)) {
	visit(o, parent)
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			walk(c, v, visit)
		}
	case *container.Scroll:
		walk(v.Content, nil, visit)
	case *container.Split:
		walk(v.Leading, nil, visit)
		walk(v.Trailing, nil, visit)
	case *container.AppTabs:
		for _, it := range v.Items {
			walk(it.Content, nil, visit)
		}
	case *widget.Accordion:
		for _, it := range v.Items {
			walk(it.Detail, nil, visit)
		}
	}
}

// sideWidgets are the widgets of type T of the window's content, in
// layout order, that match.
func sideWidgets[T fyne.CanvasObject](w *Window, match func(T) bool) []T {
	var out []T
	walk(w.win.Content(), nil, func(o fyne.CanvasObject, _ *fyne.Container) {
		if t, ok := o.(T); ok && match(t) {
			out = append(out, t)
		}
	})
	return out
}

// harmonicsCheck is the references panel's harmonics switch.
func harmonicsCheck(t *testing.T, w *Window) *widget.Check {
	t.Helper()
	c := sideWidgets(w, func(c *widget.Check) bool { return c.Text == "Harmonics, THD (D)" })
	if len(c) != 1 {
		t.Fatalf("%d harmonics switches", len(c))
	}
	return c[0]
}

// diffPicker is the references panel's "Difference to" picker.
func diffPicker(t *testing.T, w *Window) *widget.Select {
	t.Helper()
	var found []*widget.Select
	walk(w.win.Content(), nil, func(o fyne.CanvasObject, parent *fyne.Container) {
		s, ok := o.(*widget.Select)
		if !ok || parent == nil {
			return
		}
		for _, sib := range parent.Objects {
			if l, ok := sib.(*widget.Label); ok && l.Text == "Difference to" {
				found = append(found, s)
			}
		}
	})
	if len(found) != 1 {
		t.Fatalf("%d difference pickers", len(found))
	}
	return found[0]
}

// refRows are the references panel's rows: each reference's Shown check
// (named after it) and its delete button, in order.
func refRows(w *Window) (shown []*widget.Check, del []*widget.Button) {
	names := map[string]bool{}
	for _, r := range w.rp.Refs() {
		names[r.Trace.Name] = true
	}
	shown = sideWidgets(w, func(c *widget.Check) bool { return names[c.Text] })
	del = sideWidgets(w, func(b *widget.Button) bool { return b.Icon != nil && b.Icon.Name() == theme.DeleteIcon().Name() })
	return shown, del
}
