package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
)

// audioExtensions are the files the window opens (and the file source
// plays): what the decoders read.
var audioExtensions = []string{".wav", ".flac", ".mp3", ".rf64"}

// audioFilter is the file dialogs' filter: the audio extensions in either
// case.
func audioFilter() storage.FileFilter {
	var exts []string
	for _, e := range audioExtensions {
		exts = append(exts, e, strings.ToUpper(e))
	}
	return storage.NewExtensionFileFilter(exts)
}

// Preference keys of the file dialogs and the window.
const (
	prefRecent    = prefPrefix + "files.recent"
	prefWinWidth  = prefPrefix + "window.width"
	prefWinHeight = prefPrefix + "window.height"
	maxRecent     = 8
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

// recentFolders are the folders files were opened from, newest first.
func (w *Window) recentFolders() []string {
	return w.app.Preferences().StringList(prefRecent)
}

// rememberFolder puts dir first among the recent folders.
func (w *Window) rememberFolder(dir string) {
	if dir == "" || dir == "." {
		return
	}
	old := w.recentFolders()
	list := []string{dir}
	for _, d := range old {
		if d != dir && len(list) < maxRecent {
			list = append(list, d)
		}
	}
	w.app.Preferences().SetStringList(prefRecent, list)
}

// startFolder is where the file dialogs open: the newest recent folder
// that still exists, else the home folder.
func (w *Window) startFolder() string {
	for _, d := range w.recentFolders() {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return ""
}

// openDialog asks for an audio file to open in the File tab: a typed path
// (Enter opens it; a folder is browsed), the recent folders (a click
// browses there) and Browse… (the file dialog, at the newest folder).
func (w *Window) openDialog() {
	w.showOpenDialog("Open an audio file", w.fp.OpenFile)
}

// showOpenDialog is the open dialog with `title`, calling open with the
// chosen file.
func (w *Window) showOpenDialog(title string, open func(path string)) {
	var d dialog.Dialog
	path := widget.NewEntry()
	path.SetPlaceHolder("/path/to/file.wav")
	if f := w.startFolder(); f != "" {
		path.SetText(f + string(filepath.Separator))
	}
	msg := widget.NewLabel("")
	msg.Hide()
	browse := func(dir string) {
		d.Hide()
		w.browse(dir, open)
	}
	submit := func(p string) {
		p = strings.TrimSpace(p)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			msg.SetText(fmt.Sprintf("prism: %s: no such file or folder", p))
			msg.Show()
		case fi.IsDir():
			browse(p)
		case !slices.Contains(audioExtensions, strings.ToLower(filepath.Ext(p))):
			msg.SetText(fmt.Sprintf("prism: %s: not a WAV, FLAC or MP3 file", filepath.Base(p)))
			msg.Show()
		default:
			d.Hide()
			open(p)
		}
	}
	path.OnSubmitted = submit
	recent := container.NewVBox()
	for _, f := range w.recentFolders() {
		recent.Add(widget.NewButton(f, func() { browse(f) }))
	}
	if len(recent.Objects) == 0 {
		recent.Add(widget.NewLabel("(none yet)"))
	}
	content := container.NewVBox(
		widget.NewLabel("Type a path (Enter opens it; a folder is browsed):"),
		container.NewBorder(nil, nil, nil, widget.NewButton("Open", func() { submit(path.Text) }), path),
		msg,
		widget.NewLabel("Recent folders:"),
		recent,
		widget.NewButton("Browse…", func() { browse(w.startFolder()) }),
	)
	d = dialog.NewCustom(title, "Cancel", content, w.win)
	d.Resize(fyne.NewSize(min(720, w.win.Canvas().Size().Width*0.9), 0))
	d.Show()
	w.win.Canvas().Focus(path)
	w.openDlg = d
	w.openPath = path
}

// browse shows Fyne's file dialog at dir, filtered to audio files and
// sized to most of the window.
func (w *Window) browse(dir string, open func(path string)) {
	w.pickFile(dir, audioFilter(), func(p string) error { open(p); return nil })
}

// pickFile shows Fyne's file-open dialog at dir ("" Fyne's default),
// filtered and sized to most of the window, and hands the chosen path to
// use; an error from the dialog or from use is shown as an error dialog.
// Every file the window reads (audio, references, microphone responses)
// is chosen through it.
func (w *Window) pickFile(dir string, filter storage.FileFilter, use func(path string) error) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			dialog.ShowError(err, w.win)
			return
		}
		if r == nil {
			return
		}
		p := r.URI().Path()
		r.Close()
		if err := use(p); err != nil {
			dialog.ShowError(err, w.win)
		}
	}, w.win)
	d.SetFilter(filter)
	if dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			d.SetLocation(l)
		}
	}
	s := w.win.Canvas().Size()
	d.Resize(fyne.NewSize(s.Width*0.9, s.Height*0.9))
	d.Show()
}

// chooseFile shows the file-open dialog at the folder files were last
// opened from (calHost; panel.RefHost through host).
func (w *Window) chooseFile(filter storage.FileFilter, use func(path string) error) {
	w.pickFile(w.startFolder(), filter, use)
}
