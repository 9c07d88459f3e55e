package ui

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// maxCalOffset bounds a saved calibration offset (dB SPL − dBFS): a
// calibrator at 200 dB SPL recorded at −200 dBFS.
const maxCalOffset = 400

// calToneHz is the calibrator's frequency.
const calToneHz = 1000

// errNotCalibrated is setUnit's error for dB SPL before a calibration
// (the unit control then opens Calibrate… instead).
var errNotCalibrated = errors.New("prism: dB SPL needs a level calibration first (Calibrate…)")

// saneCal drops a unit or calibration the preferences hold that no longer
// makes sense.
func (s Settings) saneCal(d Settings) Settings {
	if s.CalNote == "" || !(math.Abs(s.CalOffset) <= maxCalOffset) {
		s.CalNote, s.CalOffset = "", 0
	}
	if s.Unit == dsp.DBSPL && s.CalNote == "" {
		s.Unit = d.Unit
	}
	return s
}

// calHost is what the calibration panel needs of the window.
type calHost interface {
	settings() Settings
	change(fn func(s *Settings))
	chooseFile(filter storage.FileFilter, use func(path string) error)
	channels() int // the input's channels (the dialog offers each)
	notices() *panel.Notice
}

// notices is the window's notice line (calHost).
func (w *Window) notices() *panel.Notice { return w.note }

// calEngine measures a calibrator in the input.
type calEngine interface {
	// MeasureCalibrator reads the last second of input channel c as a
	// calibrator's tone of toneHz at referenceDBSPL (live.Live's).
	MeasureCalibrator(c int, toneHz, referenceDBSPL float64) (dsp.LevelCal, error)
}

// calPanel is the unit and calibration: the conversion of the engine's
// dBFS spectra into the unit shown, the microphone response read and from
// where, the side panel's section showing them and the dialogs that
// change them.
type calPanel struct {
	host    calHost
	eng     calEngine
	win     fyne.Window
	do      func(func()) // onto the Fyne goroutine
	disp    view.DisplayCal
	src     view.CalSource
	file    view.DisplayCal // the file tab's spectrum under the cursor
	fileRaw live.Spectrum   // that spectrum as the file view gave it (dBFS)
	mic     *dsp.MicResponse
	micPath string
	unit    *widget.Select
	label   *widget.Label
	dlg     *dialog.FormDialog // the calibration dialog last shown (tests)
	syncing bool               // the controls show the settings: no change
}

// unitLabel is the spectrum's unit as shown: "dB SPL (umik.txt)".
func (p *calPanel) unitLabel() string {
	l := view.UnitLabels[p.host.settings().Unit]
	if p.mic != nil {
		l += " (" + p.mic.Name + ")"
	}
	return l
}

// newCalPanel makes the panel; spectra is the engine's, which it
// converts for the live views.
func newCalPanel(host calHost, eng calEngine, spectra view.SpectrumSource, win fyne.Window, do func(func())) *calPanel {
	p := &calPanel{host: host, eng: eng, win: win, do: do}
	p.src = view.CalSource{Src: spectra, Cal: &p.disp}
	return p
}

// source is the engine's spectra in the unit shown, for the live views.
func (p *calPanel) source() *view.CalSource { return &p.src }

// follow brings the conversions to the settings' unit and calibration:
// it reads the microphone file when it changed; one no longer readable
// is the error (and none is applied).
func (p *calPanel) follow(s *Settings) error {
	var err error
	if s.MicFile != p.micPath {
		err = p.readMic(s.MicFile)
	}
	p.disp.Set(s.Unit, s.CalOffset, p.mic, s.Window)
	p.file.Set(s.Unit, s.CalOffset, p.mic, s.Window)
	return err
}

// axes are the dB axes' shift for the unit (−120…0 dBFS shows as
// −6…114 dB SPL at 114 dB) and the RTA's unit.
func (p *calPanel) axes(s *Settings) (shift float64, rtaUnit string) {
	rtaUnit = "dBFS"
	if s.Unit == dsp.DBSPL {
		shift = 10 * math.Round(s.CalOffset/10)
		rtaUnit = "dB SPL"
	}
	if p.mic != nil {
		rtaUnit += " (" + p.mic.Name + ")"
	}
	return shift, rtaUnit
}

// showFile shows a file's spectrum sp (dBFS, as the file view gives it;
// nil: the one shown last, converted again) in v in the unit shown,
// keeping a copy to convert again when the unit or calibration changes.
func (p *calPanel) showFile(v *view.SpectrumView, sp *live.Spectrum) {
	raw := &p.fileRaw
	if sp == nil {
		if len(raw.Current) == 0 {
			return
		}
		sp = raw
	}
	if sp != raw {
		raw.Current = append(raw.Current[:0], sp.Current...)
		raw.BinHz, raw.Peak = sp.BinHz, sp.Peak
	}
	v.ShowSpectrum(raw)
	p.file.Apply(v.Shown())
}

// applyCal brings the views to the settings' unit and calibration: it
// reads the microphone file when it changed (a file no longer readable is
// dropped, with a notice), shifts the dB SPL axes by the calibration and
// names the unit.
func (w *Window) applyCal() {
	s := &w.set
	if err := w.cal.follow(s); err != nil {
		w.notice = err.Error()
		s.MicFile = ""
	}
	shift, rtaUnit := w.cal.axes(s)
	for _, v := range []*view.SpectrumView{w.spec, w.fspec} {
		v.SetRange(s.DBMin+shift, s.DBMax+shift)
		v.SetUnit(w.cal.unitLabel(), strings.ReplaceAll(s.Unit.String(), "-", "_"))
	}
	w.cal.showFile(w.fspec, nil)
	w.rta.SetRange(s.DBMin+shift, s.DBMax+shift)
	w.rta.SetUnit(rtaUnit)
	w.lvl.SetCalibration(s.Unit == dsp.DBSPL, s.CalOffset)
}

// readMic reads the microphone response file at path ("" none) in place
// of the one read before; a file that does not read leaves none.
func (p *calPanel) readMic(path string) error {
	p.mic, p.micPath = nil, ""
	if path == "" {
		return nil
	}
	mic, err := readMicFile(path)
	if err != nil {
		return err
	}
	p.mic, p.micPath = mic, path
	return nil
}

// readMicFile reads a microphone response file (REW/miniDSP text).
func readMicFile(path string) (*dsp.MicResponse, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("prism: microphone file: %w", err)
	}
	defer f.Close()
	return dsp.ParseMicResponse(f, filepath.Base(path))
}

// setUnit shows the spectrum in unit u; dB SPL needs a level
// calibration (errNotCalibrated).
func (p *calPanel) setUnit(u dsp.Unit) error {
	if u == dsp.DBSPL && p.host.settings().CalNote == "" {
		p.sync()
		return errNotCalibrated
	}
	p.host.change(func(s *Settings) { s.Unit = u })
	return nil
}

// calibrateFullScale calibrates the level so that a full-scale sine reads
// level dB SPL, and shows dB SPL.
func (p *calPanel) calibrateFullScale(level float64) error {
	cal, err := dsp.CalFromDBSPL(level)
	if err != nil {
		return err
	}
	p.setCalibration(cal, "full-scale sine = "+strconv.FormatFloat(level, 'f', -1, 64)+" dB SPL")
	return nil
}

// calibrateFromInput measures the last second of input channel c (from 0)
// as a 1 kHz calibrator of level dB SPL, on a goroutine; on the Fyne
// goroutine it then sets the calibration (showing dB SPL) or says in
// the notice line why not and what to do, and calls done (if not nil)
// with the outcome.
func (p *calPanel) calibrateFromInput(c int, level float64, done func(error)) {
	go func() {
		cal, err := p.eng.MeasureCalibrator(c, calToneHz, level)
		p.do(func() {
			if err != nil {
				err = fmt.Errorf("prism: calibration from the input: %w", err)
				p.host.notices().Fail(calFailure(err, c), err)
			} else {
				p.setCalibration(cal, fmt.Sprintf("input ch %d = %g dB SPL at 1 kHz", c+1, level))
				p.host.notices().Info(fmt.Sprintf("Calibrated: input channel %d reads %g dB SPL at 1 kHz; the plots show dB SPL.", c+1, level))
			}
			if done != nil {
				done(err)
			}
		})
	}()
}

// calFailure is a failed calibration from input channel c (from 0) in a
// user's words.
func calFailure(err error, c int) string {
	if strings.Contains(err.Error(), "no fundamental found") || strings.Contains(err.Error(), "calibrator") {
		return fmt.Sprintf("No steady 1 kHz tone in input channel %d: put the calibrator on the microphone, switch it on, then Calibrate… again.", c+1)
	}
	return "The calibration failed: " + panel.Explain(err)
}

func (p *calPanel) setCalibration(cal dsp.LevelCal, note string) {
	p.host.change(func(s *Settings) { s.CalOffset, s.CalNote, s.Unit = cal.OffsetDB, note, dsp.DBSPL })
}

// loadMicFile reads a microphone response file and applies it to the
// spectrum and the RTA; a bad file is an error naming its line.
func (p *calPanel) loadMicFile(path string) error {
	mic, err := readMicFile(path)
	if err != nil {
		return err
	}
	p.mic, p.micPath = mic, path
	p.host.change(func(s *Settings) { s.MicFile = path })
	return nil
}

// clearCalibration forgets the level calibration and the microphone
// response (dB SPL turns back to dBFS).
func (p *calPanel) clearCalibration() {
	p.host.change(func(s *Settings) {
		s.CalNote, s.CalOffset, s.MicFile = "", 0, ""
		if s.Unit == dsp.DBSPL {
			s.Unit = dsp.DBFS
		}
	})
}

// build is the controls' unit and calibration section.
func (p *calPanel) build() fyne.CanvasObject {
	c := p
	c.unit = widget.NewSelect(view.UnitLabels, func(v string) {
		if c.syncing {
			return
		}
		switch err := p.setUnit(dsp.Unit(indexOf(view.UnitLabels, v))); {
		case errors.Is(err, errNotCalibrated):
			p.host.notices().Info("dB SPL needs a level calibration: calibrate below, or Cancel to stay in " + view.UnitLabels[p.host.settings().Unit] + ".")
			p.calibrateDialog()
		case err != nil:
			p.host.notices().Error(err)
		}
	})
	c.label = widget.NewLabel("")
	c.label.Wrapping = fyne.TextWrapWord
	p.sync()
	return container.NewVBox(
		widget.NewLabelWithStyle("Units and calibration", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewBorder(nil, nil, widget.NewLabel("Unit"), nil, c.unit),
		c.label,
		container.NewGridWithColumns(3,
			widget.NewButton("Calibrate…", p.calibrateDialog),
			widget.NewButton("Mic file…", p.micDialog),
			widget.NewButton("Clear", p.clearCalibration)),
	)
}

// sync shows the unit and calibration in the controls.
func (p *calPanel) sync() {
	c := p
	if c.unit == nil {
		return
	}
	c.syncing = true
	defer func() { c.syncing = false }()
	s := p.host.settings()
	c.unit.SetSelected(view.UnitLabels[s.Unit])
	text := "Not calibrated: dB SPL needs a calibration."
	if s.CalNote != "" {
		text = fmt.Sprintf("dB SPL = dBFS %+.1f dB (%s).", s.CalOffset, s.CalNote)
	}
	if c.mic != nil {
		text += " Microphone: " + c.mic.Name + "."
	}
	c.label.SetText(text)
}

// calibrateDialog asks how to calibrate: a full-scale sine's level, or
// the input now being a 1 kHz calibrator (its level and channel).
func (p *calPanel) calibrateDialog() {
	mode := widget.NewRadioGroup([]string{calModeFullScale, calModeInput}, nil)
	mode.Required = true
	mode.SetSelected(calModeInput)
	level := widget.NewEntry()
	level.SetText("94")
	var chans []string
	for c := range max(1, p.host.channels()) {
		chans = append(chans, strconv.Itoa(c+1))
	}
	ch := widget.NewSelect(chans, nil)
	ch.SetSelected(chans[0])
	items := []*widget.FormItem{
		widget.NewFormItem("", mode),
		widget.NewFormItem("Level (dB SPL)", level),
		widget.NewFormItem("Input channel", ch),
	}
	d := dialog.NewForm("Level calibration", "Calibrate", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		if err := p.calibrateAs(mode.Selected, level.Text, indexOf(chans, ch.Selected)); err != nil {
			p.host.notices().Fail(panel.Explain(err)+" Calibrate… again with a level in dB SPL.", err)
		}
	}, p.win)
	d.Resize(fyne.NewSize(460, 0))
	d.Show()
	p.dlg = d
}

// The calibration dialog's modes.
const (
	calModeFullScale = "A full-scale sine reads this level"
	calModeInput     = "The input now is a 1 kHz calibrator at this level"
)

// calibrateAs calibrates as the dialog says.
func (p *calPanel) calibrateAs(mode, levelText string, channel int) error {
	level, err := strconv.ParseFloat(strings.TrimSpace(levelText), 64)
	if err != nil || math.IsNaN(level) || math.IsInf(level, 0) {
		return fmt.Errorf("prism: calibration level %q is not a number of dB SPL", levelText)
	}
	if mode == calModeFullScale {
		return p.calibrateFullScale(level)
	}
	if _, err := dsp.CalFromRecording(-20, level); err != nil { // the level's range, before measuring
		return err
	}
	p.calibrateFromInput(max(0, channel), level, nil)
	return nil
}

// micDialog asks for a microphone response file; a bad one shows an
// error naming its line.
func (p *calPanel) micDialog() {
	p.host.chooseFile(storage.NewExtensionFileFilter([]string{".txt", ".TXT", ".cal", ".CAL", ".frd", ".FRD", ".csv", ".CSV"}), p.loadMicFile)
}
