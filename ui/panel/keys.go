package panel

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// KeyRow is one row of the window's keys table: the key as printed, what
// it does and the workspace it acts in. Plain text only: arrows and ↔
// are drawn as emoji by some fonts.
type KeyRow struct {
	Key, Action, Workspace string
}

// keyWorkspaces are the rows' workspaces in order of first appearance.
func keyWorkspaces(rows []KeyRow) []string {
	var ws []string
	for _, r := range rows {
		if !strings.Contains("\x00"+strings.Join(ws, "\x00")+"\x00", "\x00"+r.Workspace+"\x00") {
			ws = append(ws, r.Workspace)
		}
	}
	return ws
}

// KeyHelp is the table as text: per workspace a heading line, then
// "KEY<tab>ACTION" lines.
func KeyHelp(rows []KeyRow) string {
	var s strings.Builder
	for i, ws := range keyWorkspaces(rows) {
		if i > 0 {
			s.WriteString("\n")
		}
		s.WriteString(ws + "\n")
		for _, r := range rows {
			if r.Workspace == ws {
				s.WriteString(r.Key + "\t" + r.Action + "\n")
			}
		}
	}
	return strings.TrimSuffix(s.String(), "\n")
}

// KeysOverlay is the keys overlay's content: a section per workspace,
// keys in bold beside what they do, in two columns of about as many rows
// each so the list fits a window 800 px tall.
func KeysOverlay(rows []KeyRow) fyne.CanvasObject {
	var cols [2][]fyne.CanvasObject
	n := [2]int{}
	for _, ws := range keyWorkspaces(rows) {
		form := container.New(layout.NewFormLayout())
		k := 0
		for _, r := range rows {
			if r.Workspace == ws {
				form.Add(widget.NewLabelWithStyle(r.Key, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}))
				form.Add(widget.NewLabel(r.Action))
				k++
			}
		}
		c := 0
		if n[1] < n[0] {
			c = 1
		}
		n[c] += k + 1
		cols[c] = append(cols[c], widget.NewLabelWithStyle(ws, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), form)
	}
	return container.NewGridWithColumns(2, container.NewVBox(cols[0]...), container.NewVBox(cols[1]...))
}

// ShowKeys opens the keys overlay (? and the Keys… button); it scrolls
// where the window is too small for it.
func ShowKeys(win fyne.Window, rows []KeyRow) {
	scroll := container.NewVScroll(KeysOverlay(rows))
	size := win.Canvas().Size()
	want := scroll.Content.MinSize()
	scroll.SetMinSize(fyne.NewSize(min(want.Width, size.Width-80), min(want.Height, size.Height-160)))
	dialog.NewCustom("Keys", "Close", scroll, win).Show()
}
