package panel

import (
	"fmt"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
	"github.com/prismaudio/prism/app/archive/out"
	"github.com/prismaudio/prism/app/encode"
)

// ArchiveKey is one of the Archive workspace's keys: a named key or a
// rune, as the overlay prints it, what it does, and the handler.
type ArchiveKey struct {
	Name fyne.KeyName
	Rune rune
	Key  string
	Help string
	Do   func(a *Archive)
}

// ArchiveKeys are the Archive workspace's keys, a table for the keys
// overlay.
var ArchiveKeys = []ArchiveKey{
	{"", '+', "+ -", "zoom in / out", func(a *Archive) { a.view.ZoomCentre(0.5) }},
	{"", '-', "", "", func(a *Archive) { a.view.ZoomCentre(2) }},
	{"", '=', "", "", func(a *Archive) { a.view.ZoomCentre(0.5) }},
	{fyne.KeyLeft, 0, "Left Right", "pan", func(a *Archive) { a.view.Pan(-0.25) }},
	{fyne.KeyRight, 0, "", "", func(a *Archive) { a.view.Pan(0.25) }},
	{"", '0', "0", "whole archive", (*Archive).ZoomReset},
	{fyne.KeyReturn, 0, "Enter", "open the cursor's (or centre's) moment in the File tab", (*Archive).OpenMoment},
	{fyne.KeyEnter, 0, "", "", (*Archive).OpenMoment},
	{fyne.KeyEscape, 0, "Escape", "cancel the computation", (*Archive).Cancel},
}

// Key handles a key while the tab is shown (k, or the rune r when k is
// empty) and says whether it was the tab's.
func (a *Archive) Key(k fyne.KeyName, r rune) bool {
	if !a.shown {
		return false
	}
	for _, ak := range ArchiveKeys {
		if (k != "" && ak.Name == k) || (k == "" && r != 0 && ak.Rune == r) {
			ak.Do(a)
			return true
		}
	}
	return false
}

// OpenMoment opens the moment under the cursor, or the view's centre, in
// the File tab.
func (a *Archive) OpenMoment() {
	if a.view.LTSA() == nil {
		return
	}
	t, ok := a.view.Cursor()
	if !ok {
		t = a.view.Centre()
	}
	a.pick(t)
}

func (a *Archive) exportDialog() {
	if a.view.LTSA() == nil {
		a.files.host.Notices().Info("Open an archive first: Export… writes the LTSA shown.")
		return
	}
	a.dlg.Save("ltsa.png", func(path string) {
		if err := a.Export(path); err != nil {
			a.files.host.Notices().Error(err)
			return
		}
		a.files.host.Notices().Info("Exported " + filepath.Base(path))
	})
}

// Export writes the view to path: the image as shown (.png), or the
// LTSA's bins in the span shown as `prism ltsa` writes them (.npy with
// its JSON sidecar, .nc), with the same description, so the files equal
// the command's for the same span and parameters.
func (a *Archive) Export(path string) error {
	format, ok := out.FormatOf(path)
	l := a.view.Shown()
	switch {
	case !ok:
		return fmt.Errorf("panel: export %s: want .png, .npy or .nc", filepath.Base(path))
	case l == nil:
		return fmt.Errorf("panel: export: no LTSA shown")
	case format == out.PNG && a.view.Image() == nil:
		return fmt.Errorf("panel: export: the view is not drawn yet")
	case format == out.PNG:
		return encode.WritePNG(path, a.view.Image())
	}
	from, to := a.view.View()
	var files []archive.File
	inputs := []string{}
	for _, f := range a.cat.Files {
		if f.End().After(from) && f.Start.Before(to) {
			files = append(files, f)
			inputs = append(inputs, f.Path)
		}
	}
	req := a.request(time.Time{}, time.Time{}, l.Average)
	cfg := archive.LTSAConfig{Average: l.Average, FFT: req.FFT, Channel: req.Channel, Cal: req.Cal}
	meta, err := cache.Meta(files, cfg, "hann")
	if err != nil {
		return err
	}
	w, err := out.Create(path, meta, inputs)
	if err != nil {
		return err
	}
	defer w.Discard()
	for _, r := range l.Rows {
		if r.Start.Add(l.Average).After(from) && r.Start.Before(to) {
			if err := w.Write(out.Row(r)); err != nil {
				return err
			}
		}
	}
	return w.Commit()
}

// ArchiveKeyRows are ArchiveKeys as the keys overlay lists them, under
// the workspace "Archive" (a row per key, its pair on the same row).
func ArchiveKeyRows() []KeyRow {
	var rows []KeyRow
	for _, k := range ArchiveKeys {
		if k.Key != "" {
			rows = append(rows, KeyRow{Key: k.Key, Action: k.Help, Workspace: "Archive"})
		}
	}
	return rows
}
