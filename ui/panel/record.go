package panel

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// RecordEngine is what the recording panel needs of the analysis:
// ExportHistory writes the live spectrogram history (blocks: called from
// a goroutine); StartRecording, StopRecording and RecordStatus (the
// analysis's dB frames) and their audio counterparts (the input itself,
// live.Live's) never block, their outcome comes to the callbacks.
type RecordEngine interface {
	ExportHistory(paths []string, chans []int, img plot.ImageOptions) (live.HistoryInfo, error)
	StartRecording(path string, c int, done func(error)) error
	StopRecording(done func(live.RecordStatus, error))
	RecordStatus() live.RecordStatus
	StartAudioRecording(path string, done func(error)) error
	StopAudioRecording(done func(live.AudioRecordStatus, error))
	AudioRecordStatus() live.AudioRecordStatus
}

// RecordHost is what the recording panel needs of the window: a save
// dialog (name: the file name proposed, its extension the format), and
// what is shown (the channel recorded, the channels and the image an
// export takes).
type RecordHost interface {
	SaveDialog(name string, fn func(path string))
	RecordChannel() int
	HistoryOptions() (all bool, channels int, img plot.ImageOptions)
}

// Record is the recordings beside the status bar's Details, each button
// named for what it writes: "● Record audio" (the input, WAV), "Record
// analysis" (every analyzed frame's dB, NPY or CSV) and "Export
// history…" (the waterfall's history). What they did, or why they could
// not, is said in the notice line, never in a modal dialog.
type Record struct {
	eng      RecordEngine
	host     RecordHost
	note     *Notice
	do       func(func())   // onto the Fyne goroutine
	btn      *widget.Button // Record analysis / Stop analysis
	audio    *widget.Button // ● Record audio / ■ Stop audio
	export   *widget.Button // Export history…
	pending  bool           // a start or stop of the analysis recording was asked for and not yet done
	aPending bool           // the same for the audio recording
	errSeen  string         // the recording error last shown
	aErrSeen string         // the audio recording's error last shown
	name     func() string  // the source's name, for the names proposed
}

// Button texts.
const (
	RecordAnalysisText = "Record analysis"
	StopAnalysisText   = "■ Stop analysis"
	RecordAudioText    = "● Record audio"
	stopAudioText      = "■ Stop audio"
)

// NewRecord makes the panel and its buttons; its news goes to note, and
// source (optional) names the source in the file names it proposes.
func NewRecord(eng RecordEngine, host RecordHost, note *Notice, do func(func()), source func() string) *Record {
	r := &Record{eng: eng, host: host, note: note, do: do, name: source}
	r.btn = widget.NewButton(RecordAnalysisText, r.Toggle)
	r.audio = widget.NewButton(RecordAudioText, r.ToggleAudio)
	r.audio.Importance = widget.DangerImportance
	r.export = widget.NewButton("Export history…", r.ExportDialog)
	return r
}

// Buttons are Record analysis and Export history…, for the window to lay
// out; AudioButton is Record audio.
func (r *Record) Buttons() (record, export *widget.Button) { return r.btn, r.export }

// AudioButton is the ● Record audio / ■ Stop audio button.
func (r *Record) AudioButton() *widget.Button { return r.audio }

// proposed is a file name for what is saved: the source's name (when
// known) and the time, then kind and ext ("Mic-2026-11-27_1204_audio.wav").
func (r *Record) proposed(kind, ext string) string {
	src := ""
	if r.name != nil {
		src = r.name()
	}
	return ProposedName(src, kind, ext, time.Now())
}

// ProposedName is the file name the save dialogs propose: the source's
// name (its file's base name, or the device or generator, made safe for
// a file name; left out when ""), the local time to the second and what
// the file holds, e.g. "song_2026-11-27_120405_spectrum.csv".
func ProposedName(source, kind, ext string, t time.Time) string {
	source = strings.TrimSuffix(filepath.Base(source), filepath.Ext(source))
	var b strings.Builder
	for _, c := range source {
		switch {
		case c == ' ' || c == ':' || c == '/' || c == '\\' || c == ',' || c < 32:
			b.WriteByte('-')
		default:
			b.WriteRune(c)
		}
	}
	name := strings.Trim(b.String(), "-.")
	if len(name) > 40 {
		name = name[:40]
	}
	parts := []string{}
	if name != "" && name != "." {
		parts = append(parts, name)
	}
	parts = append(parts, t.Format("2006-01-02_150405"), kind)
	return strings.Join(parts, "_") + ext
}

// Busy says a start or stop was asked for and is not yet done.
func (r *Record) Busy() bool { return r.pending }

// ErrorShown is the error that ended a recording, last shown ("" none).
func (r *Record) ErrorShown() string { return r.errSeen }

func (r *Record) ExportDialog() {
	r.host.SaveDialog(r.proposed("history", ".npy"), func(path string) { r.ExportHistory(path, nil) })
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
// in the notice; done (optional) gets the outcome on the Fyne goroutine.
func (r *Record) ExportHistory(path string, done func(live.HistoryInfo, error)) {
	all, channels, img := r.host.HistoryOptions()
	paths, chans := historyTargets(path, all, channels)
	finish := func(info live.HistoryInfo, err error) {
		if err != nil {
			r.note.Error(err)
		} else {
			r.note.Info(historyMessage(paths, info))
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
	return fmt.Sprintf("Saved the history: %d columns × %d bins (dBFS) in %s, one column every %s (N=%d, hop %d), %s; the geometry is in %s.json.",
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
	r.host.SaveDialog(r.proposed("analysis", ".npy"), func(path string) { r.Start(path, nil) })
}

// start records every analyzed frame of the waterfall's channel
// to path (NPY or CSV) until stop; a bad path or format is said
// at once, in the notice; done (optional) gets the outcome on the Fyne
// goroutine once the recording runs or has failed to start.
func (r *Record) Start(path string, done func(error)) {
	report := func(err error) {
		r.pending = false
		if err != nil {
			r.note.Error(err)
		} else {
			r.note.Info("Recording the analysis to " + path + ".")
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
// background and the notice says what it holds (or the error); done
// (optional) gets the outcome on the Fyne goroutine.
func (r *Record) Stop(done func(live.RecordStatus, error)) {
	r.pending = true
	r.eng.StopRecording(func(st live.RecordStatus, err error) {
		r.do(func() {
			r.pending = false
			r.errSeen = st.Err
			if err != nil {
				r.note.Error(err)
			} else {
				r.note.Info(recordMessage(st))
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
	return fmt.Sprintf("Saved the analysis in %s: %d frames × %d bins (dBFS, one every %s, N=%d), %d of them gap rows (NaN) for lost input, %d dropped by a slow disk.",
		st.Path, st.Frames, st.Geometry.Bins(), view.FormatDuration(time.Duration(st.Geometry.HopSeconds()*float64(time.Second))), st.Geometry.FFT, st.Gaps, st.Dropped)
}

// sync follows the recorder's state into the button, and shows an
// error that ended a recording (a full disk, new settings) once.
func (r *Record) Sync() {
	if r.btn == nil {
		return
	}
	r.syncAudio()
	st := r.eng.RecordStatus()
	text := RecordAnalysisText
	if st.Active {
		text = StopAnalysisText
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
		r.note.Fail(fmt.Sprintf("The analysis recording stopped (%s); %s.", stoppedWhy(st.Err), kept), errors.New(st.Err))
	}
}

// stoppedWhy is the reason at the end of a recording's error, for a user.
func stoppedWhy(err string) string {
	if _, why, ok := strings.Cut(err, "stopped: "); ok {
		return why
	}
	return strings.TrimSuffix(Explain(errors.New(err)), ".")
}

// ToggleAudio starts recording the input to a WAV file (asking for it) or
// stops the recording running.
func (r *Record) ToggleAudio() {
	if r.aPending {
		return
	}
	if r.eng.AudioRecordStatus().Active {
		r.StopAudio(nil)
		return
	}
	r.host.SaveDialog(r.proposed("audio", ".wav"), func(path string) { r.StartAudio(path, nil) })
}

// StartAudio records the input (every channel, the source's rate, 32-bit
// float) to path until StopAudio; done (optional) gets the outcome on
// the Fyne goroutine.
func (r *Record) StartAudio(path string, done func(error)) {
	report := func(err error) {
		r.aPending = false
		if err != nil {
			r.note.Error(err)
		} else {
			r.note.Info("Recording the input to " + path + ": ■ Stop audio ends it.")
		}
		r.Sync()
		if done != nil {
			done(err)
		}
	}
	r.aPending = true
	if err := r.eng.StartAudioRecording(path, func(err error) { r.do(func() { report(err) }) }); err != nil {
		report(err)
	}
}

// StopAudio ends the audio recording; the notice says what the file
// holds; done (optional) gets the outcome on the Fyne goroutine.
func (r *Record) StopAudio(done func(live.AudioRecordStatus, error)) {
	r.aPending = true
	r.eng.StopAudioRecording(func(st live.AudioRecordStatus, err error) {
		r.do(func() {
			r.aPending = false
			r.aErrSeen = st.Err
			if err != nil {
				r.note.Error(err)
			} else {
				r.note.Info(AudioMessage(st))
			}
			r.Sync()
			if done != nil {
				done(st, err)
			}
		})
	})
}

// AudioMessage says what an audio recording holds.
func AudioMessage(st live.AudioRecordStatus) string {
	msg := fmt.Sprintf("Saved %s of audio in %s: %d channels at %d Hz, 32-bit float", view.FormatDuration(time.Duration(st.Seconds()*float64(time.Second))),
		st.Path, st.Channels, st.Rate)
	if lost := st.GapFrames + st.Dropped; lost > 0 {
		msg += fmt.Sprintf("; %s of lost input written as silence", view.FormatDuration(time.Duration(float64(lost)/float64(st.Rate)*float64(time.Second))))
	} else {
		msg += ", no input lost"
	}
	return msg + "."
}

// syncAudio follows the audio recorder into its button (with the time
// recorded) and says once why a recording ended by itself.
func (r *Record) syncAudio() {
	st := r.eng.AudioRecordStatus()
	text := RecordAudioText
	if st.Active {
		text = fmt.Sprintf("%s %s", stopAudioText, clock(st.Seconds()))
	}
	if r.audio.Text != text {
		r.audio.SetText(text)
	}
	if !st.Active && !r.aPending && st.Err != "" && st.Err != r.aErrSeen {
		r.aErrSeen = st.Err
		kept := "nothing was kept"
		if st.Saved {
			kept = "what came before is in " + st.Path
		}
		r.note.Fail(fmt.Sprintf("The audio recording stopped (%s); %s.", stoppedWhy(st.Err), kept), errors.New(st.Err))
	}
}

// clock is seconds as m:ss.
func clock(s float64) string {
	n := int(s)
	return fmt.Sprintf("%d:%02d", n/60, n%60)
}

// recordText is the status strip's part for a recording running ("" when
// none); the file is named in the line under it.
func recordText(st live.RecordStatus) string {
	if !st.Active {
		return ""
	}
	return fmt.Sprintf("● REC %d frames · gaps %d · dropped %d", st.Frames, st.Gaps, st.Dropped)
}
