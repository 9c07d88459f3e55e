package panel

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
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

// compareDialog asks for file B to compare with the open file.
func (fp *Files) compareDialog() {
	fs := fp.fview.File()
	if fs == nil {
		fp.host.Notices().Fail("Open file A first (Ctrl+O), then Compare A/B… with file B.", nil)
		return
	}
	fp.host.ShowOpenDialog("Compare "+filepath.Base(fs.Path)+" (A) with file B", func(p string) { fp.CompareFile(p, nil) })
}

// CompareFile analyses the open file (A) and pathB into their long-term
// spectra in the background, with progress and cancel, and shows the A/B
// view; done (optional) gets the outcome on the Fyne goroutine.
func (fp *Files) CompareFile(pathB string, done func(error)) {
	fs := fp.fview.File()
	if fs == nil {
		fp.compareDone(fp.abGen, "", "", nil, errors.New("prism: A/B: open file A first"), done)
		return
	}
	if fp.fileCtx != nil {
		fp.fileCtx()
	}
	ctx, cancel := context.WithCancel(context.Background())
	fp.fileCtx = cancel
	fp.abGen++
	gen := fp.abGen
	nameA, nameB := filepath.Base(fs.Path), filepath.Base(pathB)
	fp.fileInfo.SetText("Comparing " + nameA + " (A) with " + nameB + " (B)…")
	fp.progress.SetValue(0)
	fp.progress.Show()
	fp.cancel.Show()
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
					fp.do(func() {
						if gen == fp.abGen {
							fp.progress.SetValue((float64(i) + float64(done)/float64(total)) / 2)
						}
					})
				}
			}
			if res[i], err = fp.eng.AnalyzeSpectrum(ctx, p, o); err != nil {
				err = fmt.Errorf("prism: A/B: %s: %w", filepath.Base(p), err)
				break
			}
		}
		fp.do(func() { fp.compareDone(gen, nameA, nameB, res[:], err, done) })
	}()
}

// compareDone shows the comparison (or why there is none).
func (fp *Files) compareDone(gen int, nameA, nameB string, res []analysis.SpectrumResult, err error, done func(error)) {
	if gen != fp.abGen {
		return
	}
	fp.progress.Hide()
	fp.cancel.Hide()
	fp.fileCtx = nil
	if err == nil {
		err = fp.ab.SetResults(nameA, nameB, res[0], res[1], fp.scale())
	}
	switch {
	case errors.Is(err, context.Canceled):
		fp.fileInfo.SetText("Comparison cancelled.")
	case err != nil:
		fp.fileInfo.SetText("Could not compare: " + Explain(err))
		fp.host.Notices().Error(err)
	default:
		fp.fileInfo.SetText(fp.ab.Info())
		fp.ab.SetDisplay(fp.scale(), fp.host.Dark())
	}
	fp.ShowLower()
	if done != nil {
		done(err)
	}
}

// closeAB ends the comparison and shows the file's spectrum again.
func (fp *Files) closeAB() {
	fp.ab.Clear()
	fp.abGen++
	fp.ShowLower()
}

// ShowLower shows, under the file's spectrogram, the A/B view when a
// comparison is on, else the difference to a reference when one is
// chosen, else the spectrum under the cursor.
func (fp *Files) ShowLower() {
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	ab, diff := fp.ab.Active(), fp.host.DifferenceShown()
	if ab != fp.ab.Visible() && fp.fileSplit != nil {
		// the comparison's two plots get most of the height, the
		// spectrogram it back when it ends
		fp.fileSplit.SetOffset(map[bool]float64{true: abSplitOffset, false: fileSplitOffset}[ab])
	}
	show(fp.ab, ab)
	show(fp.fdiff, diff && !ab)
	show(fp.fspec, !diff && !ab)
}
