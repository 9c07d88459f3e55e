package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
)

// compareDialog asks for file B to compare with the open file.
// abOverlapPct is the frames' overlap of the A/B spectra: `prism
// spectrum`'s default.
const abOverlapPct = 50

// Where the file tab splits: the spectrogram's share of the height over
// the spectrum, and over the A/B comparison.
const (
	fileSplitOffset = 0.65
	abSplitOffset   = 0.3
)

func (w *Window) compareDialog() {
	fs := w.fview.File()
	if fs == nil {
		dialog.ShowInformation("Compare A/B", "Open file A first.", w.win)
		return
	}
	w.showOpenDialog("Compare "+filepath.Base(fs.Path)+" (A) with file B", func(p string) { w.compareFile(p, nil) })
}

// compareFile analyses the open file (A) and pathB into their long-term
// spectra in the background, with progress and cancel, and shows the A/B
// view; done (optional) gets the outcome on the Fyne goroutine.
func (w *Window) compareFile(pathB string, done func(error)) {
	fs := w.fview.File()
	if fs == nil {
		w.compareDone(w.abGen, "", "", nil, errors.New("prism: A/B: open file A first"), done)
		return
	}
	if w.fileCtx != nil {
		w.fileCtx()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.fileCtx = cancel
	w.abGen++
	gen := w.abGen
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
						if gen == w.abGen {
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
	if gen != w.abGen {
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
	w.ab.Clear()
	w.abGen++
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
	ab, diff := w.ab.Active(), w.refs.DiffTo() >= 0
	if ab != w.ab.Visible() && w.fileSplit != nil {
		// the comparison's two plots get most of the height, the
		// spectrogram it back when it ends
		w.fileSplit.SetOffset(map[bool]float64{true: abSplitOffset, false: fileSplitOffset}[ab])
	}
	show(w.ab, ab)
	show(w.fdiff, diff && !ab)
	show(w.fspec, !diff && !ab)
}
