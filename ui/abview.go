// A/B comparison in the file tab: the open file (A) and a second file (B)
// each analysed into its long-term spectrum by the pipeline of `prism
// spectrum` (Welch, power-averaged), both drawn, and B − A beneath.

package ui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
)

// abOverlapPct is the frames' overlap of the A/B spectra: `prism
// spectrum`'s default.
const abOverlapPct = 50

// Where the file tab splits: the spectrogram's share of the height over
// the spectrum, and over the A/B comparison.
const (
	fileSplitOffset = 0.65
	abSplitOffset   = 0.3
)

// ABView shows two files' long-term spectra (A and B, labelled with the
// files' names) and their difference B − A. Only the Fyne goroutine uses
// it.
type ABView struct {
	widget.BaseWidget
	spectra *LinePlot // A and B
	diff    *LinePlot // B − A
	info    *widget.Label
	content fyne.CanvasObject
	active  bool
	gen     int    // the comparison running or shown
	OnClose func() // the Close button
}

// NewABView makes an empty A/B view.
func NewABView() *ABView {
	v := &ABView{spectra: NewLinePlot("dBFS", -120, 0), diff: NewLinePlot("dB", -diffRangeDB, diffRangeDB), info: widget.NewLabel("")}
	v.diff.SetZeroLine(true)
	v.info.Truncation = fyne.TextTruncateEllipsis
	closeBtn := widget.NewButton("Close A/B", func() {
		if v.OnClose != nil {
			v.OnClose()
		}
	})
	v.content = container.NewBorder(container.NewBorder(nil, nil, nil, closeBtn, v.info), nil, nil, nil,
		container.NewGridWithRows(2, v.spectra, v.diff))
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *ABView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.content) }

// SetDisplay follows the frequency scale and theme.
func (v *ABView) SetDisplay(scale string, dark bool) {
	for _, p := range []*LinePlot{v.spectra, v.diff} {
		p.SetConfig(p.rate, p.fft, scale)
		p.SetDark(dark)
		p.Refresh()
	}
}

// Spectra is the plot of A's and B's spectra; DiffPlot that of B − A.
func (v *ABView) Spectra() *LinePlot { return v.spectra }

// DiffPlot is the plot of B − A.
func (v *ABView) DiffPlot() *LinePlot { return v.diff }

// Info is the line above the plots.
func (v *ABView) Info() string { return v.info.Text }

// Active says whether a comparison is shown.
func (v *ABView) Active() bool { return v.active }

// SetResults shows spectra a and b (one column each, of one sample rate
// and size) of files nameA and nameB, and b − a: B's levels less A's,
// A taken as a reference trace (dsp.Trace.Difference, as `prism spectrum
// --ref` does).
func (v *ABView) SetResults(nameA, nameB string, a, b analysis.SpectrumResult, scale string) error {
	if len(a.Levels) == 0 || len(b.Levels) == 0 {
		return errors.New("prism: A/B: no spectrum")
	}
	if a.SampleRate != b.SampleRate || a.FFT != b.FFT {
		return fmt.Errorf("prism: A/B: A is %d Hz, B %d Hz: compare files of one sample rate", a.SampleRate, b.SampleRate)
	}
	ref, err := dsp.NewTrace(nameA, a.FreqHz, a.Levels[0])
	if err != nil {
		return fmt.Errorf("prism: A/B: %w", err)
	}
	d := make([]float64, len(b.FreqHz))
	ref.Difference(d, b.FreqHz, b.Levels[0])
	for k := range d {
		if math.IsNaN(d[k]) { // silent in both (−Inf − −Inf): no difference, as differenceDB
			d[k] = 0
		}
	}
	pal := paletteFor(true)
	lines := v.spectra.SetLines(2)
	lines[0] = plotLine{Name: "A: " + nameA, DB: toFloat32(a.Levels[0]), Color: pal.traces[0]}
	lines[1] = plotLine{Name: "B: " + nameB, DB: toFloat32(b.Levels[0]), Color: pal.traces[1]}
	dl := &v.diff.SetLines(1)[0]
	*dl = plotLine{Name: "B − A", DB: toFloat32(d), Color: refColors[0]}
	for _, p := range []*LinePlot{v.spectra, v.diff} {
		p.SetConfig(a.SampleRate, a.FFT, scale)
		p.Refresh()
	}
	v.spectra.SetTitle("long-term spectra (Welch, N=" + fmt.Sprint(a.FFT) + ")")
	v.diff.SetTitle("B − A")
	v.info.SetText(fmt.Sprintf("A: %s · B: %s · %d Hz, N=%d hop %d · %d and %d frames averaged in power",
		nameA, nameB, a.SampleRate, a.FFT, a.Hop, a.Frames, b.Frames))
	v.active = true
	return nil
}

// toFloat32 converts levels for the plot.
func toFloat32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// compareDialog asks for file B to compare with the open file.
func (w *Window) compareDialog() {
	fs := w.fview.File()
	if fs == nil {
		dialog.ShowInformation("Compare A/B", "Open file A first.", w.win)
		return
	}
	w.showOpenDialog("Compare "+filepath.Base(fs.Path)+" (A) with file B", func(p string) { w.CompareFile(p, nil) })
}

// CompareFile analyses the open file (A) and pathB into their long-term
// spectra in the background, with progress and cancel, and shows the A/B
// view; done (optional) gets the outcome on the Fyne goroutine.
func (w *Window) CompareFile(pathB string, done func(error)) {
	fs := w.fview.File()
	if fs == nil {
		w.compareDone(w.ab.gen, "", "", nil, errors.New("prism: A/B: open file A first"), done)
		return
	}
	if w.fileCtx != nil {
		w.fileCtx()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.fileCtx = cancel
	w.ab.gen++
	gen := w.ab.gen
	nameA, nameB := filepath.Base(fs.Path), filepath.Base(pathB)
	w.fileInfo.SetText("Comparing " + nameA + " (A) with " + nameB + " (B)…")
	w.progress.SetValue(0)
	w.progress.Show()
	w.cancel.Show()
	o := analysis.SpectrumOptions{FFT: fs.FFT, OverlapPct: abOverlapPct, Window: fs.Window, Channel: -1, Unit: dsp.DBFS}
	paths := [2]string{fs.Path, pathB}
	go func() {
		var res [2]analysis.SpectrumResult
		var err error
		last := time.Time{}
		for i, p := range paths {
			o.Progress = func(done, total int) {
				if now := time.Now(); now.Sub(last) > 50*time.Millisecond && total > 0 {
					last = now
					w.do(func() {
						if gen == w.ab.gen {
							w.progress.SetValue((float64(i) + float64(done)/float64(total)) / 2)
						}
					})
				}
			}
			if res[i], err = w.eng.AnalyzeSpectrum(ctx, p, o); err != nil {
				err = fmt.Errorf("prism: A/B: %s: %w", filepath.Base(p), err)
				break
			}
		}
		w.do(func() { w.compareDone(gen, nameA, nameB, res[:], err, done) })
	}()
}

// compareDone shows the comparison (or why there is none).
func (w *Window) compareDone(gen int, nameA, nameB string, res []analysis.SpectrumResult, err error, done func(error)) {
	if gen != w.ab.gen {
		return
	}
	w.progress.Hide()
	w.cancel.Hide()
	w.fileCtx = nil
	if err == nil {
		err = w.ab.SetResults(nameA, nameB, res[0], res[1], w.set.FreqScale)
	}
	switch {
	case errors.Is(err, context.Canceled):
		w.fileInfo.SetText("Comparison cancelled.")
	case err != nil:
		w.fileInfo.SetText("Could not compare: " + err.Error())
		dialog.ShowError(err, w.win)
	default:
		w.fileInfo.SetText(w.ab.Info())
		w.ab.SetDisplay(w.set.FreqScale, w.set.Theme == "dark")
	}
	w.showFileLower()
	if done != nil {
		done(err)
	}
}

// closeAB ends the comparison and shows the file's spectrum again.
func (w *Window) closeAB() {
	w.ab.active = false
	w.ab.gen++
	w.showFileLower()
}

// showFileLower shows, under the file's spectrogram, the A/B view when a
// comparison is on, else the difference to a reference when one is
// chosen, else the spectrum under the cursor.
func (w *Window) showFileLower() {
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	ab, diff := w.ab.active, w.refs.diffTo >= 0
	if ab != w.ab.Visible() && w.fileSplit != nil {
		// the comparison's two plots get most of the height, the
		// spectrogram it back when it ends
		w.fileSplit.SetOffset(map[bool]float64{true: abSplitOffset, false: fileSplitOffset}[ab])
	}
	show(w.ab, ab)
	show(w.fdiff, diff && !ab)
	show(w.fspec, !diff && !ab)
}
