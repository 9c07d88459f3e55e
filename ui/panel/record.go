package panel

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// RecordEngine is what the recording panel needs of the analysis:
// ExportHistory writes the live spectrogram history (blocks: called from
// a goroutine); StartRecording, StopRecording and RecordStatus
// (live.Live's) never block, their outcome comes to the callbacks.
type RecordEngine interface {
	ExportHistory(paths []string, chans []int, img plot.ImageOptions) (live.HistoryInfo, error)
	StartRecording(path string, c int, done func(error)) error
	StopRecording(done func(live.RecordStatus, error))
	RecordStatus() live.RecordStatus
}

// RecordHost is what the recording panel needs of the window: a save
// dialog, and what is shown (the channel recorded, the channels and the
// image an export takes).
type RecordHost interface {
	SaveDialog(name string, fn func(path string))
	RecordChannel() int
	HistoryOptions() (all bool, channels int, img plot.ImageOptions)
}

// Record is the history's export and the full-resolution Record
// toggle beside the status bar's Details, with their dialogs.
type Record struct {
	eng     RecordEngine
	host    RecordHost
	win     fyne.Window
	do      func(func())   // onto the Fyne goroutine
	btn     *widget.Button // Record / Stop recording
	export  *widget.Button // Export history…
	pending bool           // a start or stop was asked for and not yet done
	errSeen string         // the recording error last shown
}

// NewRecord makes the panel and its buttons.
func NewRecord(eng RecordEngine, host RecordHost, win fyne.Window, do func(func())) *Record {
	r := &Record{eng: eng, host: host, win: win, do: do}
	r.btn = widget.NewButton("● Record", r.Toggle)
	r.export = widget.NewButton("Export history…", r.ExportDialog)
	return r
}

// Buttons are Record and Export history…, for the window to lay out.
func (r *Record) Buttons() (record, export *widget.Button) { return r.btn, r.export }

// Busy says a start or stop was asked for and is not yet done.
func (r *Record) Busy() bool { return r.pending }

// ErrorShown is the error that ended a recording, last shown ("" none).
func (r *Record) ErrorShown() string { return r.errSeen }

func (r *Record) ExportDialog() {
	r.host.SaveDialog("history.npy", func(path string) { r.ExportHistory(path, nil) })
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
func (r *Record) ExportHistory(path string, done func(live.HistoryInfo, error)) {
	all, channels, img := r.host.HistoryOptions()
	paths, chans := historyTargets(path, all, channels)
	finish := func(info live.HistoryInfo, err error) {
		if err != nil {
			dialog.ShowError(err, r.win)
		} else {
			dialog.ShowInformation("History exported", historyMessage(paths, info), r.win)
		}
		if done != nil {
			done(info, err)
		}
	}
	go func() {
		info, err := r.eng.ExportHistory(paths, chans, img)
		r.do(func() { finish(info, err) })
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
		info.Columns, g.Bins(), strings.Join(paths, ", "), view.FormatDuration(time.Duration(g.HopSeconds()*float64(time.Second))),
		g.FFT, info.Geometry.Hop, fold, filepath.Base(paths[0]))
}

// toggle starts a full-resolution recording of the waterfall's
// channel (asking for the file) or stops the one running.
func (r *Record) Toggle() {
	if r.pending {
		return
	}
	if r.eng.RecordStatus().Active {
		r.Stop(nil)
		return
	}
	r.host.SaveDialog("recording.npy", func(path string) { r.Start(path, nil) })
}

// start records every analyzed frame of the waterfall's channel
// to path (NPY or CSV) until stop; a bad path or format is said
// at once, in a dialog; done (optional) gets the outcome on the Fyne
// goroutine once the recording runs or has failed to start.
func (r *Record) Start(path string, done func(error)) {
	report := func(err error) {
		r.pending = false
		if err != nil {
			dialog.ShowError(err, r.win)
		}
		r.Sync()
		if done != nil {
			done(err)
		}
	}
	r.pending = true
	err := r.eng.StartRecording(path, r.host.RecordChannel(), func(err error) { r.do(func() { report(err) }) })
	if err != nil {
		report(err)
	}
}

// stop ends the recording; its file is completed in the
// background and the dialog says what it holds (or the error); done
// (optional) gets the outcome on the Fyne goroutine.
func (r *Record) Stop(done func(live.RecordStatus, error)) {
	r.pending = true
	r.eng.StopRecording(func(st live.RecordStatus, err error) {
		r.do(func() {
			r.pending = false
			r.errSeen = st.Err
			if err != nil {
				dialog.ShowError(err, r.win)
			} else {
				dialog.ShowInformation("Recording saved", recordMessage(st), r.win)
			}
			r.Sync()
			if done != nil {
				done(st, err)
			}
		})
	})
}

// recordMessage says what a recording holds.
func recordMessage(st live.RecordStatus) string {
	return fmt.Sprintf("%s: %d frames × %d bins (dBFS, one every %s, N=%d), %d of them gap rows (NaN) for lost input, %d dropped by a slow disk.",
		st.Path, st.Frames, st.Geometry.Bins(), view.FormatDuration(time.Duration(st.Geometry.HopSeconds()*float64(time.Second))), st.Geometry.FFT, st.Gaps, st.Dropped)
}

// sync follows the recorder's state into the button, and shows an
// error that ended a recording (a full disk, new settings) once.
func (r *Record) Sync() {
	if r.btn == nil {
		return
	}
	st := r.eng.RecordStatus()
	text := "● Record"
	if st.Active {
		text = "■ Stop recording"
	}
	if r.btn.Text != text {
		r.btn.SetText(text)
	}
	if !st.Active && !r.pending && st.Err != "" && st.Err != r.errSeen {
		r.errSeen = st.Err
		kept := "nothing was kept"
		if st.Saved {
			kept = fmt.Sprintf("the %d frames before are in %s", st.Frames, st.Path)
		}
		dialog.ShowError(fmt.Errorf("recording stopped: %s; %s", st.Err, kept), r.win)
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
