package panel

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

// Dialogs are the window's file dialogs: the path dialog that asks for a
// file to read (a typed path, absolute, "~/…" or relative to the folder
// shown; the recent folders; Browse… for Fyne's file dialog), the save
// dialog (a proposed name in the last folder, a typed path, a second Save
// to replace a file already there, Browse…), Fyne's own dialogs sized to
// the window and closed by Escape, and the recent folders they start in,
// kept in the preferences. Errors from Fyne's dialogs go to the notice
// line.
type Dialogs struct {
	win      fyne.Window
	prefs    fyne.Preferences
	key      string     // the recent folders' preference key
	note     *Notice    // the window's notice line
	openPath *PathEntry // the path dialog's entry, last shown (tests)
	savePath *PathEntry // the save dialog's entry, last shown (tests)
}

// maxRecent is how many recent folders are kept.
const maxRecent = 8

// NewDialogs makes the window's dialogs over win, keeping the recent
// folders in prefs under recentKey and saying errors in note.
func NewDialogs(win fyne.Window, prefs fyne.Preferences, recentKey string, note *Notice) *Dialogs {
	return &Dialogs{win: win, prefs: prefs, key: recentKey, note: note}
}

// OpenEntry is the path entry of the path dialog last shown (nil before
// one), for the window's tests.
func (d *Dialogs) OpenEntry() *PathEntry { return d.openPath }

// SaveEntry is the path entry of the save dialog last shown (nil before
// one), for the window's tests.
func (d *Dialogs) SaveEntry() *PathEntry { return d.savePath }

// AudioExtensions are the files the window opens (and the file source
// plays): what the decoders read.
var AudioExtensions = []string{".wav", ".flac", ".mp3", ".rf64"}

// AudioFilter is the file dialogs' filter: the audio extensions in either
// case.
func AudioFilter() storage.FileFilter {
	var exts []string
	for _, e := range AudioExtensions {
		exts = append(exts, e, strings.ToUpper(e))
	}
	return storage.NewExtensionFileFilter(exts)
}

// RecentFolders are the folders files were opened from, newest first.
func (d *Dialogs) RecentFolders() []string {
	return d.prefs.StringList(d.key)
}

// RememberFolder puts dir first among the recent folders.
func (d *Dialogs) RememberFolder(dir string) {
	if dir == "" || dir == "." {
		return
	}
	old := d.RecentFolders()
	list := []string{dir}
	for _, d := range old {
		if d != dir && len(list) < maxRecent {
			list = append(list, d)
		}
	}
	d.prefs.SetStringList(d.key, list)
}

// StartFolder is where the file dialogs open: the newest recent folder
// that still exists, else the home folder.
func (d *Dialogs) StartFolder() string {
	for _, d := range d.RecentFolders() {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return ""
}

// ShowOpen asks for an audio file to open, with `title`, calling open
// with the chosen file: the path dialog (Open) for WAV, FLAC and MP3.
func (d *Dialogs) ShowOpen(title string, open func(path string)) {
	d.Open(title, AudioExtensions, "a WAV, FLAC or MP3 file", "/path/to/file.wav",
		func(p string) error { open(p); return nil })
}

// Open asks for a file to read, of one of exts (any when empty;
// what says what they are): a typed path, absolute or relative to the
// folder shown (Enter opens it; a folder is browsed), the recent folders
// and Browse… (Fyne's file dialog). use's error is said in the dialog,
// which stays open for another try. Escape closes it.
func (d *Dialogs) Open(title string, exts []string, what, hint string, use func(path string) error) {
	var dlg dialog.Dialog
	path := newPathEntry(func() { dlg.Hide() })
	path.SetPlaceHolder(hint)
	start := d.StartFolder()
	if start != "" {
		path.SetText(start + string(filepath.Separator))
	}
	msg := widget.NewLabel("")
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.DangerImportance
	msg.Hide()
	say := func(s string) { msg.SetText(s); msg.Show() }
	browse := func(dir string) {
		dlg.Hide()
		d.PickFile(dir, filterOf(exts), use)
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
			dlg.Hide()
			if err := use(p); err != nil {
				say(Explain(err))
				dlg.Show()
				d.win.Canvas().Focus(path)
			}
		}
	}
	path.OnSubmitted = submit
	recent := container.NewVBox()
	for _, f := range d.RecentFolders() {
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
		widget.NewButton("Browse…", func() { browse(d.StartFolder()) }),
	)
	dlg = dialog.NewCustom(title, "Cancel", content, d.win)
	dlg.Resize(fyne.NewSize(min(720, d.win.Canvas().Size().Width*0.9), 0))
	dlg.Show()
	d.win.Canvas().Focus(path)
	d.openPath = path
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

// PathEntry is an entry that calls onEscape when Escape is typed in it:
// the path dialogs close on Escape like the system's.
type PathEntry struct {
	widget.Entry
	onEscape func()
}

func newPathEntry(onEscape func()) *PathEntry {
	e := &PathEntry{onEscape: onEscape}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey closes the dialog on Escape, else types as an entry does.
func (e *PathEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

// PickFile shows Fyne's file-open dialog at dir ("" Fyne's default),
// filtered and sized to most of the window, and hands the chosen path to
// use; an error from the dialog or from use is said in the notice line.
// Every file the window reads (audio, references, microphone responses)
// can be chosen through it.
func (d *Dialogs) PickFile(dir string, filter storage.FileFilter, use func(path string) error) {
	fd := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			d.note.Error(err)
			return
		}
		if r == nil {
			return
		}
		p := r.URI().Path()
		r.Close()
		d.RememberFolder(filepath.Dir(p))
		if err := use(p); err != nil {
			d.note.Error(err)
		}
	}, d.win)
	if filter != nil {
		fd.SetFilter(filter)
	}
	if dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			fd.SetLocation(l)
		}
	}
	s := d.win.Canvas().Size()
	fd.Resize(fyne.NewSize(s.Width*0.9, s.Height*0.9))
	fd.Show()
	d.escapeCloses(fd)
}

// escapeCloses makes Escape close the stock dialog d while nothing in it
// has the keyboard focus (a focused entry takes its keys): the window's
// key handler is wrapped while d is shown and restored when it closes.
func (d *Dialogs) escapeCloses(dlg dialog.Dialog) {
	c := d.win.Canvas()
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			dlg.Hide()
			return
		}
		if prev != nil {
			prev(k)
		}
	})
	dlg.SetOnClosed(func() { c.SetOnTypedKey(prev) })
	c.Unfocus()
}

// Choose asks for a file to read (Calibration's Mic file…, References'
// Load… through the window): the path dialog, at the folder files were last
// opened from, with Browse… for Fyne's file dialog filtered by filter.
func (d *Dialogs) Choose(filter storage.FileFilter, use func(path string) error) {
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
	d.Open("Choose a file", exts, what, "/path/to/file", func(p string) error {
		d.RememberFolder(filepath.Dir(p))
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

// Save asks where to save: a path typed in full (absolute, "~/…",
// or relative to the folder shown), proposed as the last folder and name
// (the source's name and the time, by the caller); Enter saves. A folder
// typed saves name in it; a file already there is replaced only after a
// second Save; a folder that does not exist is said in the dialog.
// Browse… opens Fyne's save dialog instead. Escape closes it.
func (d *Dialogs) Save(name string, fn func(path string)) {
	var dlg dialog.Dialog
	folder := d.StartFolder()
	path := newPathEntry(func() { dlg.Hide() })
	path.SetText(filepath.Join(folder, name))
	msg := widget.NewLabel("")
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.DangerImportance
	msg.Hide()
	confirmed := ""
	submit := func(typed string) {
		p, problem := savePath(typed, folder, name)
		switch {
		case problem != "":
			msg.SetText(problem)
			msg.Show()
			return
		case p != confirmed:
			if _, err := os.Stat(p); err == nil {
				confirmed = p
				msg.SetText(filepath.Base(p) + " exists: Save again to replace it.")
				msg.Show()
				return
			}
		}
		dlg.Hide()
		d.RememberFolder(filepath.Dir(p))
		fn(p)
	}
	path.OnSubmitted = submit
	browse := widget.NewButton("Browse…", func() {
		dlg.Hide()
		d.BrowseSave(folder, name, fn)
	})
	content := container.NewVBox(
		widget.NewLabel("Save as (a full path, or one relative to "+folder+"; Enter saves, Escape closes):"),
		container.NewBorder(nil, nil, nil, widget.NewButton("Save", func() { submit(path.Text) }), path),
		msg,
		browse,
	)
	dlg = dialog.NewCustom("Save", "Cancel", content, d.win)
	dlg.Resize(fyne.NewSize(min(760, d.win.Canvas().Size().Width*0.9), 0))
	dlg.Show()
	d.win.Canvas().Focus(path)
	d.savePath = path
}

// savePath is where a typed save path points (resolvePath; a folder
// gets name in it), or why it cannot be saved there.
func savePath(typed, folder, name string) (string, string) {
	if strings.TrimSpace(typed) == "" {
		return "", "Type where to save."
	}
	p := resolvePath(typed, folder)
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		p = filepath.Join(p, name)
	}
	dir := filepath.Dir(p)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Sprintf("The folder %s does not exist: type an existing folder.", dir)
	}
	return p, ""
}

// BrowseSave is Fyne's save dialog at folder, proposing name.
func (d *Dialogs) BrowseSave(folder, name string, fn func(path string)) {
	fd := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil {
			d.note.Error(err)
			return
		}
		if wc == nil {
			return
		}
		path := wc.URI().Path()
		wc.Close()
		d.RememberFolder(filepath.Dir(path))
		fn(path)
	}, d.win)
	if l, err := storage.ListerForURI(storage.NewFileURI(folder)); err == nil {
		fd.SetLocation(l)
	}
	fd.SetFileName(name)
	s := d.win.Canvas().Size()
	fd.Resize(fyne.NewSize(s.Width*0.9, s.Height*0.9))
	fd.Show()
	d.escapeCloses(fd)
}
