package panel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfrview"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// FileHost is what the file tab needs of the window.
type FileHost interface {
	// FileOptions are the file view's own frames (FFT, Hop, Window) and
	// the image an export draws (its scale, dB range and colour map).
	FileOptions() (analysis.ViewOptions, plot.ImageOptions)
	// SetFileAnalysis sets (and keeps) the file view's frames: the
	// tab's FFT, overlap and window controls.
	SetFileAnalysis(fft int, overlap float64, win window.Func)
	Dark() bool // the dark theme is on
	ShowFileTab()
	RememberFolder(dir string)
	UpdateStatus()
	ShowOpenDialog(title string, open func(path string))
	SaveDialog(name string, fn func(path string))
	FileSpectrumShown(sp *live.Spectrum) // the spectrum under the cursor, dBFS
	DifferenceShown() bool               // the difference to a reference is chosen
	// Notices is the window's notice line: what the tab did, or why
	// not, in a user's words (never a modal dialog).
	Notices() *Notice
}

// FileEngine is what the file tab needs of the analysis: its pipelines
// over a whole file, which block and are called from goroutines of their
// own.
type FileEngine interface {
	AnalyzeView(ctx context.Context, path string, o analysis.ViewOptions, progress analysis.Progress) (*analysis.FileSpectrogram, error)
	AnalyzeSpectrum(ctx context.Context, path string, o analysis.SpectrumOptions) (analysis.SpectrumResult, error)
	ExportSpectrogram(ctx context.Context, in, out string, format encode.Format, o analysis.ViewOptions, img plot.ImageOptions, progress analysis.Progress) error
}

// Files is the File tab: the file's spectrogram over the spectrum
// under the cursor (or the difference to a reference, or the A/B
// comparison), the bar with its buttons, progress and cancel, and the
// analyses behind them.
type Files struct {
	Bandwidth *view.BandwidthLine // the bandwidth verdict's line over the file view (key B)
	host      FileHost
	eng       FileEngine
	win       fyne.Window
	do        func(func()) // onto the Fyne goroutine
	fview     *view.FileView
	fspec     *view.SpectrumView
	fdiff     *view.LinePlot // the difference to a reference (the window draws it)
	ab        *view.ABView
	abGen     int // the comparison running or shown
	fileSplit *container.Split
	fileInfo  *widget.Label
	progress  *widget.ProgressBar
	cancel    *widget.Button
	fileCtx   context.CancelFunc
	// the file view's own analysis controls
	fftSel, overlapSel, windowSel *widget.Select
	syncing                       bool
	keepView                      [2]float64 // the view to show again after a re-analysis (zero: the whole file)
	detailCancel                  context.CancelFunc
	detailTimer                   *time.Timer
	fileGen                       int
	fm                            fileModeUI // the analysis mode's controls (files_modes.go)
}

// NewFiles makes the file tab's views with the host's settings.
func NewFiles(host FileHost, eng FileEngine, win fyne.Window, do func(func())) *Files {
	fp := &Files{host: host, eng: eng, win: win, do: do}
	fp.fm.set = FileModeSettings{ModeSettings: DefaultModeSettings()}
	o, img := host.FileOptions()
	fp.fview = view.NewFileView(img.Scale, img.Colormap, img.DBMin, img.DBMax)
	fp.Bandwidth = view.NewBandwidthLine(fp.fview)
	fp.fspec = view.NewSpectrumView(48000, o.FFT, img.Scale, img.DBMin, img.DBMax)
	fp.fspec.SetTraces(view.AvgOff, false)
	fp.fspec.SetTitle("the spectrum under the cursor")
	fp.fview.OnCursor = fp.fileCursor
	fp.fview.OnView = fp.fileViewChanged
	fp.fdiff = NewDiffPlot()
	fp.ab = view.NewABView()
	fp.ab.OnClose = fp.closeAB
	fp.ab.Hide()
	return fp
}

// Views are the tab's views, which the window sets up, converts, measures
// and exports: the file's spectrogram, the spectrum under the cursor, the
// difference to a reference and the A/B comparison.
func (fp *Files) Views() (*view.FileView, *view.SpectrumView, *view.LinePlot, *view.ABView) {
	return fp.fview, fp.fspec, fp.fdiff, fp.ab
}

// Build lays the tab out; open is the Open… button's. The bar has the
// buttons and the line about the file over the view's own analysis (FFT
// size, overlap, window: a change re-analyzes the file shown).
func (fp *Files) Build(open func()) fyne.CanvasObject {
	fp.fileInfo = widget.NewLabel("No file open.")
	fp.fileInfo.Truncation = fyne.TextTruncateEllipsis
	fp.progress = widget.NewProgressBar()
	fp.progress.Hide()
	fp.cancel = widget.NewButton("Cancel", fp.Cancel)
	fp.cancel.Hide()
	fp.buildAnalysis()
	buttons := container.NewHBox(
		widget.NewButton("Open…", open),
		widget.NewButton("Whole file", fp.ZoomReset),
		widget.NewButton("Export spectrogram…", fp.exportSpectrogramDialog),
		widget.NewButton("Compare B…", fp.compareDialog),
	)
	analysisRow := container.NewHBox(widget.NewLabel("File view analysis:  FFT"), fp.fftSel, widget.NewLabel("Overlap"), fp.overlapSel,
		widget.NewLabel("Window"), fp.windowSel)
	fileBar := container.NewVBox(
		container.NewBorder(nil, nil, buttons, container.NewHBox(fp.progress, fp.cancel), fp.fileInfo),
		analysisRow, fp.buildModes())
	file := container.NewBorder(fileBar, nil, nil, nil, container.NewVSplit(container.NewStack(fp.fview, fp.Bandwidth.Object()), container.NewStack(fp.fspec, fp.fdiff, fp.ab)))
	fp.fileSplit = file.Objects[0].(*container.Split)
	fp.fileSplit.Offset = fileSplitOffset
	return file
}

// fileOverlaps are the file view's overlap choices.
var fileOverlaps = []struct {
	label string
	val   float64
}{{"0 %", 0}, {"50 %", 0.5}, {"75 %", 0.75}, {"87.5 %", 0.875}, {"93.75 %", 0.9375}}

// buildAnalysis makes the file view's FFT size, overlap and window
// selects, showing the host's.
func (fp *Files) buildAnalysis() {
	var sizes []string
	for n := engine.MinFFT; n <= engine.MaxFFT; n *= 2 {
		sizes = append(sizes, strconv.Itoa(n))
	}
	var overlaps []string
	for _, o := range fileOverlaps {
		overlaps = append(overlaps, o.label)
	}
	changed := func(string) {
		if !fp.syncing {
			fp.analysisChanged()
		}
	}
	fp.fftSel = widget.NewSelect(sizes, changed)
	fp.overlapSel = widget.NewSelect(overlaps, changed)
	fp.windowSel = widget.NewSelect(window.Names(), changed)
	fp.syncAnalysis()
}

// syncAnalysis shows the host's file analysis in the selects.
func (fp *Files) syncAnalysis() {
	fp.syncing = true
	defer func() { fp.syncing = false }()
	o, _ := fp.host.FileOptions()
	fp.fftSel.SetSelected(strconv.Itoa(o.FFT))
	overlap, best := 1-float64(o.Hop)/float64(o.FFT), 0
	for i, c := range fileOverlaps {
		if math.Abs(c.val-overlap) < math.Abs(fileOverlaps[best].val-overlap) {
			best = i
		}
	}
	fp.overlapSel.SetSelected(fileOverlaps[best].label)
	fp.windowSel.SetSelected(o.Window.String())
}

// analysisChanged hands the selects' analysis to the host and analyzes
// the file shown again with it, keeping the view.
func (fp *Files) analysisChanged() {
	n, err := strconv.Atoi(fp.fftSel.Selected)
	if err != nil {
		return
	}
	overlap := 0.0
	for _, c := range fileOverlaps {
		if c.label == fp.overlapSel.Selected {
			overlap = c.val
		}
	}
	w, err := window.Parse(fp.windowSel.Selected)
	if err != nil {
		return
	}
	fp.host.SetFileAnalysis(n, overlap, w)
	if fs := fp.fview.File(); fs != nil {
		t0, t1 := fp.fview.View()
		fp.OpenFile(fs.Path)
		fp.keepView = [2]float64{t0, t1}
	}
}

// SetAnalysis chooses the file view's FFT size, overlap and window as its
// controls do (a file shown is analyzed again).
func (fp *Files) SetAnalysis(fft int, overlap float64, w window.Func) {
	fp.host.SetFileAnalysis(fft, overlap, w)
	fp.syncAnalysis()
	fp.analysisChanged()
}

// Analysis is what the file view's controls show: FFT size, overlap and
// window.
func (fp *Files) Analysis() (fft, overlap, win string) {
	return fp.fftSel.Selected, fp.overlapSel.Selected, fp.windowSel.Selected
}

// Cancel stops the analysis or export running (the Cancel button).
func (fp *Files) Cancel() {
	if fp.fileCtx != nil {
		fp.fileCtx()
	}
}

// Info is the text of the bar's line about the file.
func (fp *Files) Info() string { return fp.fileInfo.Text }

// Progress says whether the progress bar and the Cancel button show.
func (fp *Files) Progress() (bar, cancel bool) { return fp.progress.Visible(), fp.cancel.Visible() }

// Close stops any file analysis.
func (fp *Files) Close() {
	if fp.fileCtx != nil {
		fp.fileCtx()
	}
	if fp.detailCancel != nil {
		fp.detailCancel()
	}
}

// OpenFile analyzes a whole file in the background, with progress and
// cancel, and shows it in the File tab.
func (fp *Files) OpenFile(path string) {
	if fp.fileCtx != nil {
		fp.fileCtx()
	}
	fp.host.RememberFolder(filepath.Dir(path))
	ctx, cancel := context.WithCancel(context.Background())
	fp.fileCtx = cancel
	fp.fileGen++
	fp.keepView = [2]float64{}
	gen := fp.fileGen
	fp.host.ShowFileTab()
	fp.fileInfo.SetText("Analyzing " + filepath.Base(path) + "…")
	fp.progress.SetValue(0)
	fp.progress.Show()
	fp.cancel.Show()
	o, _ := fp.host.FileOptions()
	o.MaxColumns = 4096
	me, mode := fp.modeEngine(), fp.fm.set.Config()
	go func() {
		last := time.Time{}
		progress := func(done, total int) {
			if now := time.Now(); now.Sub(last) > 50*time.Millisecond && total > 0 {
				last = now
				fp.do(func() {
					if gen == fp.fileGen {
						fp.progress.SetValue(float64(done) / float64(total))
					}
				})
			}
		}
		if me != nil {
			ms, err := me.AnalyzeModeView(ctx, path, tfrview.Options{View: o, Mode: mode}, progress)
			fp.do(func() { fp.fileModeDone(gen, ms, err) })
			return
		}
		fs, err := fp.eng.AnalyzeView(ctx, path, o, progress)
		fp.do(func() { fp.fileDone(gen, fs, nil, err) })
	}()
}

// scale is the frequency scale shown.
func (fp *Files) scale() plot.Scale {
	_, img := fp.host.FileOptions()
	return img.Scale
}

// fileModeDone is fileDone for a file analyzed in a mode.
func (fp *Files) fileModeDone(gen int, ms *tfrview.Spectrogram, err error) {
	var fs *analysis.FileSpectrogram
	if ms != nil {
		fs = &ms.FileSpectrogram
	}
	fp.fileDone(gen, fs, ms, err)
}

// fileDone shows the file analyzed (fs, in a mode when ms is not nil).
func (fp *Files) fileDone(gen int, fs *analysis.FileSpectrogram, ms *tfrview.Spectrogram, err error) {
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
		fp.fileInfo.SetText("Could not analyze: " + Explain(err))
		fp.host.Notices().Error(err)
		return
	}
	// the spectrum below is set up for the new file before the view
	// hands it the column under the cursor
	fp.fspec.SetConfig(fs.Rate, fs.FFT, fp.scale())
	if ms != nil {
		fp.fview.SetModeFile(ms)
	} else {
		fp.fview.SetFile(fs)
	}
	if v := fp.keepView; v[1] > v[0] && fs.Path == fp.fview.File().Path {
		fp.fview.SetView(v[0], v[1])
	}
	fp.keepView = [2]float64{}
	fp.closeAB() // a comparison of the file shown before
	what := fmt.Sprintf("N=%d hop %d", fs.FFT, fs.Hop)
	if ms != nil {
		what = ms.Label()
	}
	info := fmt.Sprintf("%s · %d Hz × %d · %s · %s · %d frames in %s on %s",
		filepath.Base(fs.Path), fs.Rate, fs.Channels, view.FormatTime(fs.Duration, 0.001, fs.Duration), what, fs.Frames,
		view.FormatDuration(fs.Elapsed), fs.Engine)
	if len(fs.Warnings) > 0 {
		info += " · ⚠ " + strings.Join(fs.Warnings, "; ")
	}
	fp.fileInfo.SetText(info)
	fp.host.UpdateStatus()
}

// Summary describes the file shown for the status line: its name,
// format, length and the analysis on screen (refined when zoomed).
func (fp *Files) Summary(fs *analysis.FileSpectrogram) string {
	return fmt.Sprintf("File %s · %d Hz × %d · %s · %s", filepath.Base(fs.Path), fs.Rate, fs.Channels,
		view.FormatTime(fs.Duration, 0.001, fs.Duration), fp.fview.Analysis())
}

// fileCursor shows the spectrum of the column under the cursor.
func (fp *Files) fileCursor(sp *live.Spectrum, t float64, ok bool) {
	if !ok || sp == nil {
		return
	}
	fp.fspec.SetTitle("at " + view.FormatTime(t, 0.001, fp.fview.File().Duration))
	fp.host.FileSpectrumShown(sp)
}

// fileViewChanged schedules a finer analysis of the visible region once
// zooming settles.
func (fp *Files) fileViewChanged(t0, t1 float64) {
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
func (fp *Files) analyzeDetail(gen int, t0, t1 float64, width int) {
	fs := fp.fview.File()
	if fs == nil || gen != fp.fileGen {
		return
	}
	if ms := fp.fview.ModeFile(); ms != nil {
		if me, ok := fp.eng.(FileModeEngine); ok {
			fp.analyzeModeDetail(ms, me, gen, t0, t1, width)
		}
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
			fp.host.UpdateStatus()
		})
	}()
}

// ZoomReset shows the whole file (the Whole file button).
func (fp *Files) ZoomReset() {
	if fs := fp.fview.File(); fs != nil {
		fp.fview.SetView(0, fs.Duration)
	}
}

// exportSpectrogramDialog writes the open file's whole spectrogram (NPY,
// CSV or PNG, as `prism analyze` would) with progress.
func (fp *Files) exportSpectrogramDialog() {
	fs := fp.fview.File()
	if fs == nil {
		fp.host.Notices().Fail("Open a file first (Ctrl+O), then export its spectrogram.", nil)
		return
	}
	base := strings.TrimSuffix(filepath.Base(fs.Path), filepath.Ext(fs.Path))
	fp.host.SaveDialog(base+".npy", func(path string) { fp.ExportSpectrogram(path, nil) })
}

// ExportSpectrogram writes the open file's spectrogram to path in the
// background; done (optional) gets the outcome on the Fyne goroutine.
func (fp *Files) ExportSpectrogram(path string, done func(error)) {
	fs := fp.fview.File()
	report := func(err error) {
		if err != nil {
			fp.host.Notices().Error(err)
		} else {
			fp.host.Notices().Info("Exported the spectrogram to " + path + ".")
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
	_, img := fp.host.FileOptions()
	ctx, cancel := context.WithCancel(context.Background())
	fp.fileCtx = cancel
	fp.progress.SetValue(0)
	fp.progress.Show()
	fp.cancel.Show()
	fp.fileInfo.SetText("Exporting " + filepath.Base(path) + "…")
	export := fp.modeExport(path, format, img) // nil: the STFT's
	go func() {
		var err error
		if export != nil {
			err = export(ctx)
		} else {
			err = fp.eng.ExportSpectrogram(ctx, fs.Path, path, format, o, img, func(d, t int) {
				if t > 0 && d%64 == 0 {
					fp.do(func() { fp.progress.SetValue(float64(d) / float64(t)) })
				}
			})
		}
		fp.do(func() {
			fp.progress.Hide()
			fp.cancel.Hide()
			fp.fileCtx = nil
			if err == nil {
				fp.fileInfo.SetText("Wrote " + path)
			} else {
				fp.fileInfo.SetText("Export failed: " + Explain(err))
			}
			report(err)
		})
	}()
}

// NewDiffPlot makes a difference plot (a reference's), hidden.
func NewDiffPlot() *view.LinePlot {
	d := view.NewLinePlot("dB", -view.DiffRangeDB, view.DiffRangeDB)
	d.SetZeroLine(true)
	d.Hide()
	return d
}
