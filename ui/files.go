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
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/view"
)

// fileHost is what the file tab needs of the window.
type fileHost interface {
	settings() Settings
	showFileTab()
	rememberFolder(dir string)
	updateStatus()
	showOpenDialog(title string, open func(path string))
	saveDialog(name string, fn func(path string))
	fileSpectrumShown(sp *live.Spectrum) // the spectrum under the cursor, dBFS
	differenceShown() bool               // the difference to a reference is chosen
}

// fileEngine is what the file tab needs of the analysis: its pipelines
// over a whole file, which block and are called from goroutines of their
// own.
type fileEngine interface {
	AnalyzeView(ctx context.Context, path string, o analysis.ViewOptions, progress analysis.Progress) (*analysis.FileSpectrogram, error)
	AnalyzeSpectrum(ctx context.Context, path string, o analysis.SpectrumOptions) (analysis.SpectrumResult, error)
	ExportSpectrogram(ctx context.Context, in, out string, format encode.Format, o analysis.ViewOptions, img plot.ImageOptions, progress analysis.Progress) error
}

// filePanel is the File tab: the file's spectrogram over the spectrum
// under the cursor (or the difference to a reference, or the A/B
// comparison), the bar with its buttons, progress and cancel, and the
// analyses behind them.
type filePanel struct {
	host         fileHost
	eng          fileEngine
	win          fyne.Window
	do           func(func()) // onto the Fyne goroutine
	fview        *view.FileView
	fspec        *view.SpectrumView
	fdiff        *view.LinePlot // the difference to a reference (references.go)
	fdiffGrid    view.RefGrid
	ab           *view.ABView
	abGen        int // the comparison running or shown
	fileSplit    *container.Split
	fileInfo     *widget.Label
	progress     *widget.ProgressBar
	cancel       *widget.Button
	fileCtx      context.CancelFunc
	detailCancel context.CancelFunc
	detailTimer  *time.Timer
	fileGen      int
}

// newFilePanel makes the file tab's views with the settings s.
func newFilePanel(host fileHost, eng fileEngine, win fyne.Window, do func(func()), s Settings) *filePanel {
	fp := &filePanel{host: host, eng: eng, win: win, do: do}
	fp.fview = view.NewFileView(s.FreqScale, s.Colormap, s.DBMin, s.DBMax)
	fp.fspec = view.NewSpectrumView(48000, s.FFT, s.FreqScale, s.DBMin, s.DBMax)
	fp.fspec.SetTraces(view.AvgOff, false)
	fp.fspec.SetTitle("the spectrum under the cursor")
	fp.fview.OnCursor = fp.fileCursor
	fp.fview.OnView = fp.fileViewChanged
	fp.fdiff = newDiffPlot()
	fp.ab = view.NewABView()
	fp.ab.OnClose = fp.closeAB
	fp.ab.Hide()
	return fp
}

// build lays the tab out; open is the Open… button's.
func (fp *filePanel) build(open func()) fyne.CanvasObject {
	fp.fileInfo = widget.NewLabel("No file open.")
	fp.fileInfo.Truncation = fyne.TextTruncateEllipsis
	fp.progress = widget.NewProgressBar()
	fp.progress.Hide()
	fp.cancel = widget.NewButton("Cancel", func() {
		if fp.fileCtx != nil {
			fp.fileCtx()
		}
	})
	fp.cancel.Hide()
	fileBar := container.NewBorder(nil, nil,
		container.NewHBox(
			widget.NewButton("Open…", open),
			widget.NewButton("Whole file", func() { fp.zoomReset() }),
			widget.NewButton("Export spectrogram…", fp.exportSpectrogramDialog),
			widget.NewButton("Compare B…", fp.compareDialog),
		),
		container.NewHBox(fp.progress, fp.cancel), fp.fileInfo)
	file := container.NewBorder(fileBar, nil, nil, nil, container.NewVSplit(fp.fview, container.NewStack(fp.fspec, fp.fdiff, fp.ab)))
	fp.fileSplit = file.Objects[0].(*container.Split)
	fp.fileSplit.Offset = fileSplitOffset
	return file
}

// close stops any file analysis.
func (fp *filePanel) close() {
	if fp.fileCtx != nil {
		fp.fileCtx()
	}
	if fp.detailCancel != nil {
		fp.detailCancel()
	}
}

// showFileTab brings the File tab forward (fileHost).
func (w *Window) showFileTab() { w.tabs.Select(w.fileTab) }

// differenceShown says whether the difference to a reference is chosen
// (fileHost).
func (w *Window) differenceShown() bool { return w.rp.set.DiffTo() >= 0 }

// fileSpectrumShown shows the file's spectrum under the cursor in the
// unit shown, and measures and differences it (fileHost).
func (w *Window) fileSpectrumShown(sp *live.Spectrum) {
	w.showFileSpectrum(sp)
	w.fharm.MarkStale()
	w.measureFileDue(w.now())
	w.updateDiff(w.fp.fspec, w.fp.fdiff, &w.fp.fdiffGrid, view.AvgOff)
}

// openFile analyzes a whole file in the background, with progress and
// cancel, and shows it in the File tab.
func (fp *filePanel) openFile(path string) {
	if fp.fileCtx != nil {
		fp.fileCtx()
	}
	fp.host.rememberFolder(filepath.Dir(path))
	ctx, cancel := context.WithCancel(context.Background())
	fp.fileCtx = cancel
	fp.fileGen++
	gen := fp.fileGen
	fp.host.showFileTab()
	fp.fileInfo.SetText("Analyzing " + filepath.Base(path) + "…")
	fp.progress.SetValue(0)
	fp.progress.Show()
	fp.cancel.Show()
	o := fp.viewOptions()
	o.MaxColumns = 4096
	go func() {
		last := time.Time{}
		fs, err := fp.eng.AnalyzeView(ctx, path, o, func(done, total int) {
			if now := time.Now(); now.Sub(last) > 50*time.Millisecond && total > 0 {
				last = now
				fp.do(func() {
					if gen == fp.fileGen {
						fp.progress.SetValue(float64(done) / float64(total))
					}
				})
			}
		})
		fp.do(func() { fp.fileDone(gen, fs, err) })
	}()
}

// viewOptions are the file analysis's settings: the live analysis's.
func (fp *filePanel) viewOptions() analysis.ViewOptions {
	return analysis.ViewOptions{FFT: fp.host.settings().FFT, Hop: fp.host.settings().Hop(), Window: fp.host.settings().Window, Channel: -1}
}

func (fp *filePanel) fileDone(gen int, fs *analysis.FileSpectrogram, err error) {
	if gen != fp.fileGen {
		return
	}
	fp.progress.Hide()
	fp.cancel.Hide()
	fp.fileCtx = nil
	switch {
	case errors.Is(err, context.Canceled):
		fp.fileInfo.SetText("Analysis cancelled.")
		return
	case err != nil:
		fp.fileInfo.SetText("Could not analyze: " + err.Error())
		dialog.ShowError(err, fp.win)
		return
	}
	fp.fview.SetFile(fs)
	fp.closeAB() // a comparison of the file shown before
	fp.fspec.SetConfig(fs.Rate, fs.FFT, fp.host.settings().FreqScale)
	info := fmt.Sprintf("%s · %d Hz × %d · %s · N=%d hop %d · %d frames in %s on %s",
		filepath.Base(fs.Path), fs.Rate, fs.Channels, view.FormatTime(fs.Duration, 0.001, fs.Duration), fs.FFT, fs.Hop, fs.Frames,
		view.FormatDuration(fs.Elapsed), fs.Engine)
	if len(fs.Warnings) > 0 {
		info += " · ⚠ " + strings.Join(fs.Warnings, "; ")
	}
	fp.fileInfo.SetText(info)
	fp.host.updateStatus()
}

// fileSummary describes the file shown for the status line: its name,
// format, length and the analysis on screen (refined when zoomed).
func (fp *filePanel) fileSummary(fs *analysis.FileSpectrogram) string {
	return fmt.Sprintf("File %s · %d Hz × %d · %s · %s", filepath.Base(fs.Path), fs.Rate, fs.Channels,
		view.FormatTime(fs.Duration, 0.001, fs.Duration), fp.fview.Analysis())
}

// fileCursor shows the spectrum of the column under the cursor.
func (fp *filePanel) fileCursor(sp *live.Spectrum, t float64, ok bool) {
	if !ok || sp == nil {
		return
	}
	fp.fspec.SetTitle("at " + view.FormatTime(t, 0.001, fp.fview.File().Duration))
	fp.host.fileSpectrumShown(sp)
}

// fileViewChanged schedules a finer analysis of the visible region once
// zooming settles.
func (fp *filePanel) fileViewChanged(t0, t1 float64) {
	if fp.detailTimer != nil {
		fp.detailTimer.Stop()
	}
	fs := fp.fview.File()
	if fs == nil {
		return
	}
	width := max(64, fp.fview.Area().Dx())
	visibleFrames := (t1 - t0) * float64(fs.Rate) / float64(fs.Hop)
	if fs.FramesPerColumn <= 1 && visibleFrames >= float64(width) {
		return // the overview already has a frame per pixel or more
	}
	gen := fp.fileGen
	fp.detailTimer = time.AfterFunc(300*time.Millisecond, func() {
		fp.do(func() { fp.analyzeDetail(gen, t0, t1, width) })
	})
}

// analyzeDetail re-analyzes t0…t1 with a hop that gives about two frames
// per pixel (never coarser than the overview's).
func (fp *filePanel) analyzeDetail(gen int, t0, t1 float64, width int) {
	fs := fp.fview.File()
	if fs == nil || gen != fp.fileGen {
		return
	}
	if fp.detailCancel != nil {
		fp.detailCancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	fp.detailCancel = cancel
	o := analysis.ViewOptions{FFT: fs.FFT, Window: fs.Window, Channel: fs.Channel, Start: t0, End: t1, MaxColumns: 2 * width}
	samples := (t1 - t0) * float64(fs.Rate)
	o.Hop = min(fs.Hop, max(1, fs.FFT/64, int(samples/float64(2*width))))
	// widen by half a frame on each side so the view's edges are covered
	pad := float64(fs.FFT) / float64(fs.Rate)
	o.Start, o.End = max(0, t0-pad), t1+pad
	go func() {
		d, err := fp.eng.AnalyzeView(ctx, fs.Path, o, nil)
		fp.do(func() {
			if err != nil || gen != fp.fileGen {
				return
			}
			fp.fview.SetDetail(d)
			fp.host.updateStatus()
		})
	}()
}

func (fp *filePanel) zoomReset() {
	if fs := fp.fview.File(); fs != nil {
		fp.fview.SetView(0, fs.Duration)
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
		imgs = append(imgs, w.fp.fview.Image(), w.fp.fspec.Image())
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
		v = w.fp.fspec
	}
	sp := v.Shown()
	if sp == nil && v == w.fp.fspec {
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
func (fp *filePanel) exportSpectrogramDialog() {
	fs := fp.fview.File()
	if fs == nil {
		dialog.ShowInformation("Export spectrogram", "Open a file first.", fp.win)
		return
	}
	base := strings.TrimSuffix(filepath.Base(fs.Path), filepath.Ext(fs.Path))
	fp.host.saveDialog(base+".npy", func(path string) { fp.exportSpectrogram(path, nil) })
}

// exportSpectrogram writes the open file's spectrogram to path in the
// background; done (optional) gets the outcome on the Fyne goroutine.
func (fp *filePanel) exportSpectrogram(path string, done func(error)) {
	fs := fp.fview.File()
	report := func(err error) {
		if err != nil {
			dialog.ShowError(err, fp.win)
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
	scale, cmap := fp.host.settings().FreqScale, fp.host.settings().Colormap
	img := plot.ImageOptions{Width: 1920, Height: 1080, Scale: scale, DBMin: fp.host.settings().DBMin, DBMax: fp.host.settings().DBMax, Colormap: cmap}
	ctx, cancel := context.WithCancel(context.Background())
	fp.fileCtx = cancel
	fp.progress.SetValue(0)
	fp.progress.Show()
	fp.cancel.Show()
	fp.fileInfo.SetText("Exporting " + filepath.Base(path) + "…")
	go func() {
		err := fp.eng.ExportSpectrogram(ctx, fs.Path, path, format, o, img, func(d, t int) {
			if t > 0 && d%64 == 0 {
				fp.do(func() { fp.progress.SetValue(float64(d) / float64(t)) })
			}
		})
		fp.do(func() {
			fp.progress.Hide()
			fp.cancel.Hide()
			fp.fileCtx = nil
			if err == nil {
				fp.fileInfo.SetText("Wrote " + path)
			} else {
				fp.fileInfo.SetText("Export failed: " + err.Error())
			}
			report(err)
		})
	}()
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
