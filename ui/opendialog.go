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
	"github.com/prismaudio/prism/ui/panel"
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
	w.pathDialog(title, audioExtensions, "a WAV, FLAC or MP3 file", "/path/to/file.wav",
		func(p string) error { open(p); return nil })
}

// pathDialog asks for a file to read, of one of exts (any when empty;
// what says what they are): a typed path, absolute or relative to the
// folder shown (Enter opens it; a folder is browsed), the recent folders
// and Browse… (Fyne's file dialog). use's error is said in the dialog,
// which stays open for another try. Escape closes it.
func (w *Window) pathDialog(title string, exts []string, what, hint string, use func(path string) error) {
	var d dialog.Dialog
	path := newEscEntry(func() { d.Hide() })
	path.SetPlaceHolder(hint)
	start := w.startFolder()
	if start != "" {
		path.SetText(start + string(filepath.Separator))
	}
	msg := widget.NewLabel("")
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.DangerImportance
	msg.Hide()
	say := func(s string) { msg.SetText(s); msg.Show() }
	browse := func(dir string) {
		d.Hide()
		w.pickFile(dir, filterOf(exts), use)
	}
	submit := func(typed string) {
		p := resolvePath(typed, start)
		fi, err := os.Stat(p)
		switch {
		case strings.TrimSpace(typed) == "":
			say("Type the path of " + what + ".")
		case err != nil:
			say(fmt.Sprintf("%s does not exist: check the path (absolute, or relative to %s).", p, start))
		case fi.IsDir():
			browse(p)
		case len(exts) > 0 && !slices.Contains(exts, strings.ToLower(filepath.Ext(p))):
			say(fmt.Sprintf("%s is not %s: choose one.", filepath.Base(p), what))
		default:
			// hidden first: a dialog use shows (Load…'s choice of traces)
			// would go with it (Fyne removes the overlays above one hidden)
			d.Hide()
			if err := use(p); err != nil {
				say(panel.Explain(err))
				d.Show()
				w.win.Canvas().Focus(path)
			}
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
		widget.NewLabel("Type a path (Enter opens it; a folder is browsed; Escape closes):"),
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

// resolvePath is a typed path as a file's path: "~" is the home folder,
// and a relative path is taken from folder (an absolute one as it is).
func resolvePath(typed, folder string) string {
	p := strings.TrimSpace(typed)
	if p == "~" || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		if h, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(h, p[1:])
		}
	}
	if !filepath.IsAbs(p) && folder != "" {
		p = filepath.Join(folder, p)
	}
	return filepath.Clean(p)
}

// filterOf is the file dialog's filter for exts in either case (nil: any).
func filterOf(exts []string) storage.FileFilter {
	if len(exts) == 0 {
		return nil
	}
	var all []string
	for _, e := range exts {
		all = append(all, e, strings.ToUpper(e))
	}
	return storage.NewExtensionFileFilter(all)
}

// escEntry is an entry that calls onEscape when Escape is typed in it:
// the path dialogs close on Escape like the system's.
type escEntry struct {
	widget.Entry
	onEscape func()
}

func newEscEntry(onEscape func()) *escEntry {
	e := &escEntry{onEscape: onEscape}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey closes the dialog on Escape, else types as an entry does.
func (e *escEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

// pickFile shows Fyne's file-open dialog at dir ("" Fyne's default),
// filtered and sized to most of the window, and hands the chosen path to
// use; an error from the dialog or from use is said in the notice line.
// Every file the window reads (audio, references, microphone responses)
// can be chosen through it.
func (w *Window) pickFile(dir string, filter storage.FileFilter, use func(path string) error) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			w.note.Error(err)
			return
		}
		if r == nil {
			return
		}
		p := r.URI().Path()
		r.Close()
		w.rememberFolder(filepath.Dir(p))
		if err := use(p); err != nil {
			w.note.Error(err)
		}
	}, w.win)
	if filter != nil {
		d.SetFilter(filter)
	}
	if dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			d.SetLocation(l)
		}
	}
	s := w.win.Canvas().Size()
	d.Resize(fyne.NewSize(s.Width*0.9, s.Height*0.9))
	d.Show()
	w.escapeCloses(d)
}

// escapeCloses makes Escape close the stock dialog d while nothing in it
// has the keyboard focus (a focused entry takes its keys): the window's
// key handler is wrapped while d is shown and restored when it closes.
func (w *Window) escapeCloses(d dialog.Dialog) {
	c := w.win.Canvas()
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			d.Hide()
			return
		}
		if prev != nil {
			prev(k)
		}
	})
	d.SetOnClosed(func() { c.SetOnTypedKey(prev) })
	c.Unfocus()
}

// chooseFile asks for a file to read (calHost's Mic file…, panel.RefHost's
// Load… through host): the path dialog, at the folder files were last
// opened from, with Browse… for Fyne's file dialog filtered by filter.
func (w *Window) chooseFile(filter storage.FileFilter, use func(path string) error) {
	var exts []string
	what := "a file"
	if f, ok := filter.(*storage.ExtensionFileFilter); ok {
		for _, e := range f.Extensions {
			if l := strings.ToLower(e); !slices.Contains(exts, l) {
				exts = append(exts, l)
			}
		}
		what = "a " + strings.ToUpper(strings.Join(trimDots(exts), ", ")) + " file"
	}
	w.pathDialog("Choose a file", exts, what, "/path/to/file", func(p string) error {
		w.rememberFolder(filepath.Dir(p))
		return use(p)
	})
}

// trimDots is exts without their dots.
func trimDots(exts []string) []string {
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = strings.TrimPrefix(e, ".")
	}
	return out
}
