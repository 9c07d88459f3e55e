package ui

import (
	"fyne.io/fyne/v2"
)

// Preference keys of the file dialogs and the window.
const (
	prefRecent    = prefPrefix + "files.recent"
	prefWinWidth  = prefPrefix + "window.width"
	prefWinHeight = prefPrefix + "window.height"
)

// defaultWindowSize is the window's size at the first start.
var defaultWindowSize = fyne.NewSize(1280, 800)

// WindowSize is the size the window had when it last closed (the default
// at the first start). Fyne has no API for a window's position, so only
// the size is remembered.
func WindowSize(p fyne.Preferences) fyne.Size {
	w := p.FloatWithFallback(prefWinWidth, float64(defaultWindowSize.Width))
	h := p.FloatWithFallback(prefWinHeight, float64(defaultWindowSize.Height))
	if w < 400 || h < 300 || w > 16384 || h > 16384 {
		return defaultWindowSize
	}
	return fyne.NewSize(float32(w), float32(h))
}

// saveWindowSize remembers the window's size for WindowSize.
func (w *Window) saveWindowSize() {
	s := w.win.Canvas().Size()
	if s.Width >= 400 && s.Height >= 300 {
		p := w.app.Preferences()
		p.SetFloat(prefWinWidth, float64(s.Width))
		p.SetFloat(prefWinHeight, float64(s.Height))
	}
}

// openDialog asks for an audio file to open in the File tab: a typed path
// (Enter opens it; a folder is browsed), the recent folders (a click
// browses there) and Browse… (the file dialog, at the newest folder).
func (w *Window) openDialog() {
	w.dlg.ShowOpen("Open an audio file", w.fp.OpenFile)
}
