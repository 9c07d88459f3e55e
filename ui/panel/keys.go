package panel

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
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
// keys in bold beside what they do, in compact text rows (a label's
// padding would double their height) spread over as few columns of about
// as many rows each as keep the list within a window 800 px tall.
func KeysOverlay(rows []KeyRow) fyne.CanvasObject {
	const rowsPerColumn = 28
	sections := keyWorkspaces(rows)
	ncol := max(1, min(3, (len(rows)+len(sections)+rowsPerColumn-1)/rowsPerColumn))
	cols := make([][]fyne.CanvasObject, ncol)
	n := make([]int, ncol)
	fg, bold := theme.Color(theme.ColorNameForeground), fyne.TextStyle{Bold: true}
	var keyW float32
	for _, r := range rows {
		keyW = max(keyW, fyne.MeasureText(r.Key, theme.TextSize(), bold).Width)
	}
	for _, ws := range sections {
		form := container.NewVBox()
		k := 0
		for _, r := range rows {
			if r.Workspace == ws {
				key := canvas.NewText(r.Key, fg)
				key.TextStyle, key.Alignment = bold, fyne.TextAlignTrailing
				cell := container.NewGridWrap(fyne.NewSize(keyW+theme.Padding(), key.MinSize().Height), key)
				form.Add(container.NewHBox(cell, canvas.NewText(r.Action, fg)))
				k++
			}
		}
		c := 0
		for i := range n {
			if n[i] < n[c] {
				c = i
			}
		}
		n[c] += k + 1
		head := canvas.NewText(ws, theme.Color(theme.ColorNamePrimary))
		head.TextStyle = fyne.TextStyle{Bold: true}
		cols[c] = append(cols[c], head, form)
	}
	boxes := make([]fyne.CanvasObject, ncol)
	for i := range cols {
		boxes[i] = container.NewVBox(cols[i]...)
	}
	return container.NewGridWithColumns(ncol, boxes...)
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
