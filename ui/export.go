package ui

import (
	"fmt"
	"image"
	"path/filepath"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

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
	switch w.tabs.Selected() {
	case w.arcTab: // the LTSA shown, labelled in UTC (as its Export… writes it)
		return w.arc.Export(path)
	case w.measTab:
		return w.mp.ExportPNG(path)
	case w.xferTab:
		imgs = append(imgs, w.tp.View().Image())
	case w.fileTab:
		imgs = append(imgs, w.fview.Image(), w.fspec.Image())
	default:
		imgs = append(imgs, w.spec.Image(), w.sp.LowerImage(w.set.Lower, w.wf.Image(), w.rta.Image()))
	}
	return encode.WritePNG(path, plot.Stack(imgs))
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
	if w.tabs.Selected() == w.arcTab && w.arc.View().LTSA() == nil {
		w.note.Info("Open an archive first: Ctrl+S writes the LTSA shown.")
		return
	}
	w.dlg.Save(panel.ProposedName(w.sourceName(), "plots", ".png", time.Now()), func(path string) {
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
	w.dlg.Save(panel.ProposedName(w.sourceName(), "spectrum", ".csv", time.Now()), func(path string) {
		if err := w.exportSpectrum(path); err != nil {
			w.note.Error(err)
			return
		}
		w.note.Info("Saved the spectrum in " + path + ".")
	})
}

// pickSourceFile asks for a file to play as the live source (controlsHost).
func (w *Window) pickSourceFile() {
	w.dlg.ShowOpen("Play a file in real time", w.playFile)
}

// playFile makes the file at path the live source, played in real time
// and heard: the monitor output comes on with it (the check box turns it
// off again).
func (w *Window) playFile(path string) {
	w.dlg.RememberFolder(filepath.Dir(path))
	w.change(func(s *Settings) { s.Source = session.SourceSpec{Kind: session.SourceFile, File: path} })
	if !w.monitorOn {
		w.c.setMonitor(true) // (its OnChanged turns the output on)
	}
}
