package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// openFile analyzes a whole file in the background, with progress and
// cancel, and shows it in the File tab.
func (w *Window) openFile(path string) {
	if w.fileCtx != nil {
		w.fileCtx()
	}
	w.rememberFolder(filepath.Dir(path))
	ctx, cancel := context.WithCancel(context.Background())
	w.fileCtx = cancel
	w.fileGen++
	gen := w.fileGen
	w.tabs.Select(w.fileTab)
	w.fileInfo.SetText("Analyzing " + filepath.Base(path) + "…")
	w.progress.SetValue(0)
	w.progress.Show()
	w.cancel.Show()
	o, err := w.viewOptions()
	if err != nil {
		w.fileDone(gen, nil, err)
		return
	}
	o.MaxColumns = 4096
	go func() {
		last := time.Time{}
		fs, err := w.eng.AnalyzeView(ctx, path, o, func(done, total int) {
			if now := time.Now(); now.Sub(last) > 50*time.Millisecond && total > 0 {
				last = now
				w.do(func() {
					if gen == w.fileGen {
						w.progress.SetValue(float64(done) / float64(total))
					}
				})
			}
		})
		w.do(func() { w.fileDone(gen, fs, err) })
	}()
}

func (w *Window) viewOptions() (analysis.ViewOptions, error) {
	win, err := live.ParseWindow(w.set.Window)
	if err != nil {
		return analysis.ViewOptions{}, err
	}
	return analysis.ViewOptions{FFT: w.set.FFT, Hop: w.set.Hop(), Window: win, Channel: -1}, nil
}

func (w *Window) fileDone(gen int, fs *analysis.FileSpectrogram, err error) {
	if gen != w.fileGen {
		return
	}
	w.progress.Hide()
	w.cancel.Hide()
	w.fileCtx = nil
	switch {
	case errors.Is(err, context.Canceled):
		w.fileInfo.SetText("Analysis cancelled.")
		return
	case err != nil:
		w.fileInfo.SetText("Could not analyze: " + err.Error())
		dialog.ShowError(err, w.win)
		return
	}
	w.fview.SetFile(fs)
	w.closeAB() // a comparison of the file shown before
	w.fspec.SetConfig(fs.Rate, fs.FFT, w.set.FreqScale)
	info := fmt.Sprintf("%s · %d Hz × %d · %s · N=%d hop %d · %d frames in %s on %s",
		filepath.Base(fs.Path), fs.Rate, fs.Channels, view.FormatTime(fs.Duration, 0.001, fs.Duration), fs.FFT, fs.Hop, fs.Frames,
		formatDuration(fs.Elapsed), fs.Engine)
	if len(fs.Warnings) > 0 {
		info += " · ⚠ " + strings.Join(fs.Warnings, "; ")
	}
	w.fileInfo.SetText(info)
	w.updateStatus()
}

// fileSummary describes the file shown for the status line: its name,
// format, length and the analysis on screen (refined when zoomed).
func (w *Window) fileSummary(fs *analysis.FileSpectrogram) string {
	return fmt.Sprintf("File %s · %d Hz × %d · %s · %s", filepath.Base(fs.Path), fs.Rate, fs.Channels,
		view.FormatTime(fs.Duration, 0.001, fs.Duration), w.fview.Analysis())
}

// fileCursor shows the spectrum of the column under the cursor.
func (w *Window) fileCursor(sp *live.Spectrum, t float64, ok bool) {
	if !ok || sp == nil {
		return
	}
	w.fspec.SetTitle("at " + view.FormatTime(t, 0.001, w.fview.File().Duration))
	w.showFileSpectrum(sp) // in the unit shown
	w.fharm.MarkStale()
	w.measureFileDue(w.now())
	w.updateDiff(w.fspec, w.fdiff, &w.fdiffGrid, view.AvgOff)
}

// fileViewChanged schedules a finer analysis of the visible region once
// zooming settles.
func (w *Window) fileViewChanged(t0, t1 float64) {
	if w.detailTimer != nil {
		w.detailTimer.Stop()
	}
	fs := w.fview.File()
	if fs == nil {
		return
	}
	width := max(64, w.fview.Area().Dx())
	visibleFrames := (t1 - t0) * float64(fs.Rate) / float64(fs.Hop)
	if fs.FramesPerColumn <= 1 && visibleFrames >= float64(width) {
		return // the overview already has a frame per pixel or more
	}
	gen := w.fileGen
	w.detailTimer = time.AfterFunc(300*time.Millisecond, func() {
		w.do(func() { w.analyzeDetail(gen, t0, t1, width) })
	})
}

// analyzeDetail re-analyzes t0…t1 with a hop that gives about two frames
// per pixel (never coarser than the overview's).
func (w *Window) analyzeDetail(gen int, t0, t1 float64, width int) {
	fs := w.fview.File()
	if fs == nil || gen != w.fileGen {
		return
	}
	if w.detailCancel != nil {
		w.detailCancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.detailCancel = cancel
	o := analysis.ViewOptions{FFT: fs.FFT, Window: fs.Window, Channel: fs.Channel, Start: t0, End: t1, MaxColumns: 2 * width}
	samples := (t1 - t0) * float64(fs.Rate)
	o.Hop = min(fs.Hop, max(1, fs.FFT/64, int(samples/float64(2*width))))
	// widen by half a frame on each side so the view's edges are covered
	pad := float64(fs.FFT) / float64(fs.Rate)
	o.Start, o.End = max(0, t0-pad), t1+pad
	go func() {
		d, err := w.eng.AnalyzeView(ctx, fs.Path, o, nil)
		w.do(func() {
			if err != nil || gen != w.fileGen {
				return
			}
			w.fview.SetDetail(d)
			w.updateStatus()
		})
	}()
}

func (w *Window) zoomReset() {
	if fs := w.fview.File(); fs != nil {
		w.fview.SetView(0, fs.Duration)
	}
}

// saveDialog asks for a path and calls fn with it.
func (w *Window) saveDialog(name string, fn func(path string)) {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil {
			dialog.ShowError(err, w.win)
			return
		}
		if wc == nil {
			return
		}
		path := wc.URI().Path()
		wc.Close()
		fn(path)
	}, w.win)
	d.SetFileName(name)
	d.Show()
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

func (w *Window) exportPNGDialog() {
	w.saveDialog("prism.png", func(path string) {
		if err := w.exportPNG(path); err != nil {
			dialog.ShowError(err, w.win)
		}
	})
}

func (w *Window) exportSpectrumDialog() {
	w.saveDialog("spectrum.csv", func(path string) {
		if err := w.exportSpectrum(path); err != nil {
			dialog.ShowError(err, w.win)
		}
	})
}

// exportSpectrogramDialog writes the open file's whole spectrogram (NPY,
// CSV or PNG, as `prism analyze` would) with progress.
func (w *Window) exportSpectrogramDialog() {
	fs := w.fview.File()
	if fs == nil {
		dialog.ShowInformation("Export spectrogram", "Open a file first.", w.win)
		return
	}
	base := strings.TrimSuffix(filepath.Base(fs.Path), filepath.Ext(fs.Path))
	w.saveDialog(base+".npy", func(path string) { w.exportSpectrogram(path, nil) })
}

// exportSpectrogram writes the open file's spectrogram to path in the
// background; done (optional) gets the outcome on the Fyne goroutine.
func (w *Window) exportSpectrogram(path string, done func(error)) {
	fs := w.fview.File()
	report := func(err error) {
		if err != nil {
			dialog.ShowError(err, w.win)
		}
		if done != nil {
			done(err)
		}
	}
	if fs == nil {
		report(fmt.Errorf("no file open"))
		return
	}
	format, ok := encode.FormatOf(path)
	if !ok {
		report(fmt.Errorf("%s: export as .npy, .csv or .png", filepath.Base(path)))
		return
	}
	o := analysis.ViewOptions{FFT: fs.FFT, Hop: fs.Hop, Window: fs.Window, Channel: fs.Channel}
	scale, err1 := plot.ParseScale(w.set.FreqScale)
	cmap, err2 := plot.ParseColormap(w.set.Colormap)
	if err := errors.Join(err1, err2); err != nil {
		report(err)
		return
	}
	img := plot.ImageOptions{Width: 1920, Height: 1080, Scale: scale, DBMin: w.set.DBMin, DBMax: w.set.DBMax, Colormap: cmap}
	ctx, cancel := context.WithCancel(context.Background())
	w.fileCtx = cancel
	w.progress.SetValue(0)
	w.progress.Show()
	w.cancel.Show()
	w.fileInfo.SetText("Exporting " + filepath.Base(path) + "…")
	go func() {
		err := w.eng.ExportSpectrogram(ctx, fs.Path, path, format, o, img, func(d, t int) {
			if t > 0 && d%64 == 0 {
				w.do(func() { w.progress.SetValue(float64(d) / float64(t)) })
			}
		})
		w.do(func() {
			w.progress.Hide()
			w.cancel.Hide()
			w.fileCtx = nil
			if err == nil {
				w.fileInfo.SetText("Wrote " + path)
			} else {
				w.fileInfo.SetText("Export failed: " + err.Error())
			}
			report(err)
		})
	}()
}
