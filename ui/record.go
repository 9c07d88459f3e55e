package ui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// recordState is the window's side of the live history's export and of
// the full-resolution recording (live.Live's ExportHistory and
// startRecording/StopRecording; the work runs off the Fyne goroutine).
type recordState struct {
	btn     *widget.Button // Record / Stop recording
	export  *widget.Button // Export history…
	pending bool           // a start or stop was asked for and not yet done
	errSeen string         // the recording error last shown
}

// buildRecordButtons makes the buttons beside the status bar's Details.
func (w *Window) buildRecordButtons() (*widget.Button, *widget.Button) {
	w.rec.btn = widget.NewButton("● Record", w.toggleRecord)
	w.rec.export = widget.NewButton("Export history…", w.exportHistoryDialog)
	return w.rec.btn, w.rec.export
}

// recordChannel is the output channel recorded and, by default, exported:
// the waterfall's, the mix (or the one channel of a mono input).
func (w *Window) recordChannel() int { return w.stats.Channels }

func (w *Window) exportHistoryDialog() {
	w.saveDialog("history.npy", func(path string) { w.exportHistory(path, nil) })
}

// historyTargets are the files and output channels of a history export to
// path: the mix alone, or with every channel shown (all, channels > 1)
// each output channel's, NAME.ch1.EXT … NAME.mix.EXT.
func historyTargets(path string, all bool, channels int) ([]string, []int) {
	if !all || channels < 2 {
		return []string{path}, []int{channels}
	}
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	var paths []string
	var chans []int
	for c := range channels + 1 {
		name := fmt.Sprintf("ch%d", c+1)
		if c == channels {
			name = "mix"
		}
		paths, chans = append(paths, base+"."+name+ext), append(chans, c)
	}
	return paths, chans
}

// exportHistory writes the live spectrogram history (every bin, dBFS, as
// the waterfall's columns were kept) to path — NPY, CSV or PNG by its
// extension, with PATH.json beside it — in the background, and says what
// it wrote (the columns' spacing and the frames each folds) or the error
// in a dialog; done (optional) gets the outcome on the Fyne goroutine.
func (w *Window) exportHistory(path string, done func(live.HistoryInfo, error)) {
	paths, chans := historyTargets(path, w.set.Channels == "all", w.stats.Channels)
	scale, err1 := plot.ParseScale(w.set.FreqScale)
	cmap, err2 := plot.ParseColormap(w.set.Colormap)
	img := plot.ImageOptions{Width: 1920, Height: 1080, Scale: scale, DBMin: w.set.DBMin, DBMax: w.set.DBMax, Colormap: cmap}
	finish := func(info live.HistoryInfo, err error) {
		if err != nil {
			dialog.ShowError(err, w.win)
		} else {
			dialog.ShowInformation("History exported", historyMessage(paths, info), w.win)
		}
		if done != nil {
			done(info, err)
		}
	}
	if err := errors.Join(err1, err2); err != nil {
		finish(live.HistoryInfo{}, err)
		return
	}
	go func() {
		info, err := w.eng.ExportHistory(paths, chans, img)
		w.do(func() { finish(info, err) })
	}()
}

// historyMessage says what an export wrote.
func historyMessage(paths []string, info live.HistoryInfo) string {
	g := info.ColumnGeometry
	fold := "one frame each"
	if info.FramesPerColumn > 1 {
		fold = fmt.Sprintf("each the per-bin maximum of %d frames", info.FramesPerColumn)
	}
	return fmt.Sprintf("Wrote %d columns × %d bins (dBFS) to %s:\none column every %s (N=%d, hop %d), %s.\nThe geometry is in %s.json.",
		info.Columns, g.Bins(), strings.Join(paths, ", "), formatDuration(time.Duration(g.HopSeconds()*float64(time.Second))),
		g.FFT, info.Geometry.Hop, fold, filepath.Base(paths[0]))
}

// toggleRecord starts a full-resolution recording of the waterfall's
// channel (asking for the file) or stops the one running.
func (w *Window) toggleRecord() {
	if w.rec.pending {
		return
	}
	if w.eng.RecordStatus().Active {
		w.stopRecording(nil)
		return
	}
	w.saveDialog("recording.npy", func(path string) { w.startRecording(path, nil) })
}

// startRecording records every analyzed frame of the waterfall's channel
// to path (NPY or CSV) until StopRecording; a bad path or format is said
// at once, in a dialog; done (optional) gets the outcome on the Fyne
// goroutine once the recording runs or has failed to start.
func (w *Window) startRecording(path string, done func(error)) {
	report := func(err error) {
		w.rec.pending = false
		if err != nil {
			dialog.ShowError(err, w.win)
		}
		w.syncRecord()
		if done != nil {
			done(err)
		}
	}
	w.rec.pending = true
	err := w.eng.StartRecording(path, w.recordChannel(), func(err error) { w.do(func() { report(err) }) })
	if err != nil {
		report(err)
	}
}

// stopRecording ends the recording; its file is completed in the
// background and the dialog says what it holds (or the error); done
// (optional) gets the outcome on the Fyne goroutine.
func (w *Window) stopRecording(done func(live.RecordStatus, error)) {
	w.rec.pending = true
	w.eng.StopRecording(func(st live.RecordStatus, err error) {
		w.do(func() {
			w.rec.pending = false
			w.rec.errSeen = st.Err
			if err != nil {
				dialog.ShowError(err, w.win)
			} else {
				dialog.ShowInformation("Recording saved", recordMessage(st), w.win)
			}
			w.syncRecord()
			if done != nil {
				done(st, err)
			}
		})
	})
}

// recordMessage says what a recording holds.
func recordMessage(st live.RecordStatus) string {
	return fmt.Sprintf("%s: %d frames × %d bins (dBFS, one every %s, N=%d), %d of them gap rows (NaN) for lost input, %d dropped by a slow disk.",
		st.Path, st.Frames, st.Geometry.Bins(), formatDuration(time.Duration(st.Geometry.HopSeconds()*float64(time.Second))), st.Geometry.FFT, st.Gaps, st.Dropped)
}

// syncRecord follows the recorder's state into the button, and shows an
// error that ended a recording (a full disk, new settings) once.
func (w *Window) syncRecord() {
	if w.rec.btn == nil {
		return
	}
	st := w.eng.RecordStatus()
	text := "● Record"
	if st.Active {
		text = "■ Stop recording"
	}
	if w.rec.btn.Text != text {
		w.rec.btn.SetText(text)
	}
	if !st.Active && !w.rec.pending && st.Err != "" && st.Err != w.rec.errSeen {
		w.rec.errSeen = st.Err
		kept := "nothing was kept"
		if st.Saved {
			kept = fmt.Sprintf("the %d frames before are in %s", st.Frames, st.Path)
		}
		dialog.ShowError(fmt.Errorf("recording stopped: %s; %s", st.Err, kept), w.win)
	}
}

// recordText is the status strip's part for a recording running ("" when
// none); the file is named in the line under it.
func recordText(st live.RecordStatus) string {
	if !st.Active {
		return ""
	}
	return fmt.Sprintf("● REC %d frames · gaps %d · dropped %d", st.Frames, st.Gaps, st.Dropped)
}
