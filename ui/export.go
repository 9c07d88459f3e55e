package ui

import (
	"fmt"
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// saveDialog asks where to save: a path typed in full (absolute, "~/…",
// or relative to the folder shown), proposed as the last folder and name
// (the source's name and the time, by the caller); Enter saves. A folder
// typed saves name in it; a file already there is replaced only after a
// second Save; a folder that does not exist is said in the dialog.
// Browse… opens Fyne's save dialog instead. Escape closes it.
func (w *Window) saveDialog(name string, fn func(path string)) {
	var d dialog.Dialog
	folder := w.startFolder()
	path := newEscEntry(func() { d.Hide() })
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
		d.Hide()
		w.rememberFolder(filepath.Dir(p))
		fn(p)
	}
	path.OnSubmitted = submit
	browse := widget.NewButton("Browse…", func() {
		d.Hide()
		w.browseSave(folder, name, fn)
	})
	content := container.NewVBox(
		widget.NewLabel("Save as (a full path, or one relative to "+folder+"; Enter saves, Escape closes):"),
		container.NewBorder(nil, nil, nil, widget.NewButton("Save", func() { submit(path.Text) }), path),
		msg,
		browse,
	)
	d = dialog.NewCustom("Save", "Cancel", content, w.win)
	d.Resize(fyne.NewSize(min(760, w.win.Canvas().Size().Width*0.9), 0))
	d.Show()
	w.win.Canvas().Focus(path)
	w.saveDlg, w.savePath = d, path
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

// browseSave is Fyne's save dialog at folder, proposing name.
func (w *Window) browseSave(folder, name string, fn func(path string)) {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil {
			w.note.Error(err)
			return
		}
		if wc == nil {
			return
		}
		path := wc.URI().Path()
		wc.Close()
		w.rememberFolder(filepath.Dir(path))
		fn(path)
	}, w.win)
	if l, err := storage.ListerForURI(storage.NewFileURI(folder)); err == nil {
		d.SetLocation(l)
	}
	d.SetFileName(name)
	s := w.win.Canvas().Size()
	d.Resize(fyne.NewSize(s.Width*0.9, s.Height*0.9))
	d.Show()
	w.escapeCloses(d)
}

// sourceName names what is shown, for the names the save dialogs
// propose: the file in the File tab, else the live source.
func (w *Window) sourceName() string {
	if w.tabs != nil && w.tabs.Selected() == w.fileTab {
		if f := w.fview.File(); f != nil {
			return f.Path
		}
	}
	src := w.eng.Source()
	switch src.Kind {
	case session.SourceFile:
		return src.File
	case session.SourceGenerator:
		g := src.Generator
		if g == "" {
			g = live.DefaultGenerator
		}
		return g
	}
	if w.stats.Source != "" {
		return w.stats.Source
	}
	return "input"
}

// exportPNG writes the current view (the live plots, or the file view and
// its spectrum) as one PNG.
func (w *Window) exportPNG(path string) error {
	var imgs []*image.RGBA
	if w.tabs.Selected() == w.fileTab {
		imgs = append(imgs, w.fview.Image(), w.fspec.Image())
	} else {
		imgs = append(imgs, w.spec.Image())
		if w.set.Lower == "rta" {
			imgs = append(imgs, w.rta.Image())
		} else {
			imgs = append(imgs, w.wf.Image())
		}
	}
	return encode.WritePNG(path, stack(imgs))
}

// stack puts images one above the other.
func stack(imgs []*image.RGBA) *image.RGBA {
	wd, ht := 1, 0
	for _, m := range imgs {
		if m != nil {
			wd, ht = max(wd, m.Rect.Dx()), ht+m.Rect.Dy()
		}
	}
	out := image.NewRGBA(image.Rect(0, 0, wd, max(1, ht)))
	y := 0
	for _, m := range imgs {
		if m == nil {
			continue
		}
		draw.Draw(out, image.Rect(0, y, m.Rect.Dx(), y+m.Rect.Dy()), m, m.Rect.Min, draw.Src)
		y += m.Rect.Dy()
	}
	return out
}

// exportSpectrum writes the current spectrum, its average and its peak
// hold (live: the first channel shown; file: the column under the cursor)
// as CSV or NPY, by the path's extension.
func (w *Window) exportSpectrum(path string) error {
	format, ok := encode.FormatOf(path)
	if !ok || format == encode.FormatPNG {
		return fmt.Errorf("%s: export the spectrum as .csv or .npy", filepath.Base(path))
	}
	v := w.spec
	if w.tabs.Selected() == w.fileTab {
		v = w.fspec
	}
	sp := v.Shown()
	if sp == nil && v == w.fspec {
		return fmt.Errorf("no spectrum: move the cursor over the file first")
	} else if sp == nil {
		return fmt.Errorf("no spectrum yet")
	}
	_, unit := v.Unit() // the columns say the unit: current_dbspl, …
	traces := []encode.Trace{{Name: "current_" + unit, DB: sp.Current}}
	if avg, name := exportedAverage(sp, w.set.Averaging); len(avg) == len(sp.Current) {
		traces = append(traces, encode.Trace{Name: name + unit, DB: avg})
	}
	if len(sp.PeakHold) == len(sp.Current) {
		traces = append(traces, encode.Trace{Name: "peak_hold_" + unit, DB: sp.PeakHold})
	}
	return encode.WriteTraces(path, format, sp.BinHz, traces)
}

// exportedAverage is the average ExportSpectrum writes for averaging
// mode avg and its column's name before the unit: the one shown
// (view.AverageTrace; "long_term_average_" for the long-term average), else
// the exponential average.
func exportedAverage(sp *live.Spectrum, avg string) ([]float32, string) {
	t := view.AverageTrace(sp, avg)
	switch {
	case t == nil:
		return sp.ExpAvg, "average_"
	case avg == view.AvgLong:
		return t, "long_term_average_"
	}
	return t, "average_"
}

// exportPNGDialog asks where to save the plots as PNG and says in the
// notice line what it wrote.
func (w *Window) exportPNGDialog() {
	w.saveDialog(panel.ProposedName(w.sourceName(), "plots", ".png", time.Now()), func(path string) {
		if err := w.exportPNG(path); err != nil {
			w.note.Error(err)
			return
		}
		w.note.Info("Saved the plots as PNG in " + path + ".")
	})
}

// exportSpectrumDialog asks where to save the spectrum (CSV or NPY) and
// says in the notice line what it wrote.
func (w *Window) exportSpectrumDialog() {
	w.saveDialog(panel.ProposedName(w.sourceName(), "spectrum", ".csv", time.Now()), func(path string) {
		if err := w.exportSpectrum(path); err != nil {
			w.note.Error(err)
			return
		}
		w.note.Info("Saved the spectrum in " + path + ".")
	})
}

// pickSourceFile asks for a file to play as the live source (controlsHost).
func (w *Window) pickSourceFile() {
	w.showOpenDialog("Play a file in real time", w.playFile)
}

// playFile makes the file at path the live source, played in real time
// and heard: the monitor output comes on with it (the check box turns it
// off again).
func (w *Window) playFile(path string) {
	w.rememberFolder(filepath.Dir(path))
	w.change(func(s *Settings) { s.Source = session.SourceSpec{Kind: session.SourceFile, File: path} })
	if !w.monitorOn {
		w.c.setMonitor(true) // (its OnChanged turns the output on)
	}
}
