package panel

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// MaxCalOffset bounds a saved calibration offset (dB SPL − dBFS): a
// calibrator at 200 dB SPL recorded at −200 dBFS.
const MaxCalOffset = 400

// calToneHz is the calibrator's frequency.
const calToneHz = 1000

// ErrNotCalibrated is SetUnit's error for dB SPL before a calibration
// (the unit control then opens Calibrate… instead).
var ErrNotCalibrated = errors.New("prism: dB SPL needs a level calibration first (Calibrate…)")

// CalSettings are the window's settings the calibration panel shows and
// changes: the spectrum's unit, the level calibration (CalNote says how
// it was made, "" none; with one, dB SPL = dBFS (sine level) + CalOffset)
// and the microphone response file ("" none).
type CalSettings struct {
	Unit      dsp.Unit
	CalNote   string
	CalOffset float64
	MicFile   string
}

// CalHost is what the calibration panel needs of the window.
type CalHost interface {
	CalSettings() CalSettings
	// ChangeCal changes the settings by fn and applies them (applyCal).
	ChangeCal(fn func(s *CalSettings))
	ChooseFile(filter storage.FileFilter, use func(path string) error)
	InputChannels() int // the input's channels (the dialog offers each)
	Notices() *Notice
}

// CalEngine measures a calibrator in the input.
type CalEngine interface {
	// MeasureCalibrator reads the last second of input channel c as a
	// calibrator's tone of toneHz at referenceDBSPL (live.Live's).
	MeasureCalibrator(c int, toneHz, referenceDBSPL float64) (dsp.LevelCal, error)
}

// Calibration is the unit and calibration: the conversion of the
// engine's dBFS spectra into the unit shown, the microphone response read
// and from where, the side panel's section showing them and the dialogs
// that change them.
type Calibration struct {
	host    CalHost
	eng     CalEngine
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

// UnitLabel is the spectrum's unit as shown: "dB SPL (umik.txt)".
func (p *Calibration) UnitLabel() string {
	l := view.UnitLabels[p.host.CalSettings().Unit]
	if p.mic != nil {
		l += " (" + p.mic.Name + ")"
	}
	return l
}

// NewCalibration makes the panel; spectra is the engine's, which it
// converts for the live views.
func NewCalibration(host CalHost, eng CalEngine, spectra view.SpectrumSource, win fyne.Window, do func(func())) *Calibration {
	p := &Calibration{host: host, eng: eng, win: win, do: do}
	p.src = view.CalSource{Src: spectra, Cal: &p.disp}
	return p
}

// Source is the engine's spectra in the unit shown, for the live views.
func (p *Calibration) Source() *view.CalSource { return &p.src }

// Follow brings the conversions to the settings' unit and calibration
// and to the live analysis's window win: it reads the microphone file
// when it changed; one no longer readable is the error (and none is
// applied).
func (p *Calibration) Follow(s CalSettings, win window.Func) error {
	var err error
	if s.MicFile != p.micPath {
		err = p.readMic(s.MicFile)
	}
	p.disp.Set(s.Unit, s.CalOffset, p.mic, win)
	p.file.Set(s.Unit, s.CalOffset, p.mic, win)
	return err
}

// Axes are the dB axes' shift for the unit (−120…0 dBFS shows as
// −6…114 dB SPL at 114 dB) and the RTA's unit.
func (p *Calibration) Axes(s CalSettings) (shift float64, rtaUnit string) {
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

// ShowFile shows a file's spectrum sp (dBFS, as the file view gives it;
// nil: the one shown last, converted again) in v in the unit shown,
// keeping a copy to convert again when the unit or calibration changes.
func (p *Calibration) ShowFile(v *view.SpectrumView, sp *live.Spectrum) {
	raw := &p.fileRaw
	if sp == nil {
		if len(raw.Current) == 0 {
			return
		}
		sp = raw
	}
	if sp != raw {
		raw.Current = append(raw.Current[:0], sp.Current...)
		raw.BinHz, raw.Peak, raw.Freqs, raw.ENBW = sp.BinHz, sp.Peak, sp.Freqs, sp.ENBW
	}
	v.ShowSpectrum(raw)
	p.file.Apply(v.Shown())
}

// readMic reads the microphone response file at path ("" none) in place
// of the one read before; a file that does not read leaves none.
func (p *Calibration) readMic(path string) error {
	p.mic, p.micPath = nil, ""
	if path == "" {
		return nil
	}
	mic, err := ReadMicFile(path)
	if err != nil {
		return err
	}
	p.mic, p.micPath = mic, path
	return nil
}

// ReadMicFile reads a microphone response file (REW/miniDSP text).
func ReadMicFile(path string) (*dsp.MicResponse, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("prism: microphone file: %w", err)
	}
	defer f.Close()
	return dsp.ParseMicResponse(f, filepath.Base(path))
}

// SetUnit shows the spectrum in unit u; dB SPL needs a level
// calibration (ErrNotCalibrated).
func (p *Calibration) SetUnit(u dsp.Unit) error {
	if u == dsp.DBSPL && p.host.CalSettings().CalNote == "" {
		p.Sync()
		return ErrNotCalibrated
	}
	p.host.ChangeCal(func(s *CalSettings) { s.Unit = u })
	return nil
}

// CalibrateFullScale calibrates the level so that a full-scale sine reads
// level dB SPL, and shows dB SPL.
func (p *Calibration) CalibrateFullScale(level float64) error {
	cal, err := dsp.CalFromDBSPL(level)
	if err != nil {
		return err
	}
	p.setCalibration(cal, "full-scale sine = "+strconv.FormatFloat(level, 'f', -1, 64)+" dB SPL")
	return nil
}

// CalibrateFromInput measures the last second of input channel c (from 0)
// as a 1 kHz calibrator of level dB SPL, on a goroutine; on the Fyne
// goroutine it then sets the calibration (showing dB SPL) or says in
// the notice line why not and what to do, and calls done (if not nil)
// with the outcome.
func (p *Calibration) CalibrateFromInput(c int, level float64, done func(error)) {
	go func() {
		cal, err := p.eng.MeasureCalibrator(c, calToneHz, level)
		p.do(func() {
			if err != nil {
				err = fmt.Errorf("prism: calibration from the input: %w", err)
				p.host.Notices().Fail(calFailure(err, c), err)
			} else {
				p.setCalibration(cal, fmt.Sprintf("input ch %d = %g dB SPL at 1 kHz", c+1, level))
				p.host.Notices().Info(fmt.Sprintf("Calibrated: input channel %d reads %g dB SPL at 1 kHz; the plots show dB SPL.", c+1, level))
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
	return "The calibration failed: " + Explain(err)
}

func (p *Calibration) setCalibration(cal dsp.LevelCal, note string) {
	p.host.ChangeCal(func(s *CalSettings) { s.CalOffset, s.CalNote, s.Unit = cal.OffsetDB, note, dsp.DBSPL })
}

// LoadMicFile reads a microphone response file and applies it to the
// spectrum and the RTA; a bad file is an error naming its line.
func (p *Calibration) LoadMicFile(path string) error {
	mic, err := ReadMicFile(path)
	if err != nil {
		return err
	}
	p.mic, p.micPath = mic, path
	p.host.ChangeCal(func(s *CalSettings) { s.MicFile = path })
	return nil
}

// Clear forgets the level calibration and the microphone
// response (dB SPL turns back to dBFS).
func (p *Calibration) Clear() {
	p.host.ChangeCal(func(s *CalSettings) {
		s.CalNote, s.CalOffset, s.MicFile = "", 0, ""
		if s.Unit == dsp.DBSPL {
			s.Unit = dsp.DBFS
		}
	})
}

// Build is the controls' unit and calibration section.
func (p *Calibration) Build() fyne.CanvasObject {
	c := p
	c.unit = widget.NewSelect(view.UnitLabels, func(v string) {
		if c.syncing {
			return
		}
		switch err := p.SetUnit(dsp.Unit(slices.Index(view.UnitLabels, v))); {
		case errors.Is(err, ErrNotCalibrated):
			p.host.Notices().Info("dB SPL needs a level calibration: calibrate below, or Cancel to stay in " + view.UnitLabels[p.host.CalSettings().Unit] + ".")
			p.CalibrateDialog()
		case err != nil:
			p.host.Notices().Error(err)
		}
	})
	c.label = widget.NewLabel("")
	c.label.Wrapping = fyne.TextWrapWord
	p.Sync()
	return container.NewVBox(
		widget.NewLabelWithStyle("Units and calibration", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewBorder(nil, nil, widget.NewLabel("Unit"), nil, c.unit),
		c.label,
		container.NewGridWithColumns(3,
			widget.NewButton("Calibrate…", p.CalibrateDialog),
			widget.NewButton("Mic file…", p.micDialog),
			widget.NewButton("Clear", p.Clear)),
	)
}

// Sync shows the unit and calibration in the controls.
func (p *Calibration) Sync() {
	c := p
	if c.unit == nil {
		return
	}
	c.syncing = true
	defer func() { c.syncing = false }()
	s := p.host.CalSettings()
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

// CalibrateDialog asks how to calibrate: a full-scale sine's level, or
// the input now being a 1 kHz calibrator (its level and channel).
func (p *Calibration) CalibrateDialog() {
	mode := widget.NewRadioGroup([]string{CalModeFullScale, CalModeInput}, nil)
	mode.Required = true
	mode.SetSelected(CalModeInput)
	level := widget.NewEntry()
	level.SetText("94")
	var chans []string
	for c := range max(1, p.host.InputChannels()) {
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
		if err := p.CalibrateAs(mode.Selected, level.Text, slices.Index(chans, ch.Selected)); err != nil {
			p.host.Notices().Fail(Explain(err)+" Calibrate… again with a level in dB SPL.", err)
		}
	}, p.win)
	d.Resize(fyne.NewSize(460, 0))
	d.Show()
	p.dlg = d
}

// The calibration dialog's modes.
const (
	CalModeFullScale = "A full-scale sine reads this level"
	CalModeInput     = "The input now is a 1 kHz calibrator at this level"
)

// CalibrateAs calibrates as the dialog says.
func (p *Calibration) CalibrateAs(mode, levelText string, channel int) error {
	level, err := strconv.ParseFloat(strings.TrimSpace(levelText), 64)
	if err != nil || math.IsNaN(level) || math.IsInf(level, 0) {
		return fmt.Errorf("prism: calibration level %q is not a number of dB SPL", levelText)
	}
	if mode == CalModeFullScale {
		return p.CalibrateFullScale(level)
	}
	if _, err := dsp.CalFromRecording(-20, level); err != nil { // the level's range, before measuring
		return err
	}
	p.CalibrateFromInput(max(0, channel), level, nil)
	return nil
}

// micDialog asks for a microphone response file; a bad one shows an
// error naming its line.
func (p *Calibration) micDialog() {
	p.host.ChooseFile(storage.NewExtensionFileFilter([]string{".txt", ".TXT", ".cal", ".CAL", ".frd", ".FRD", ".csv", ".CSV"}), p.LoadMicFile)
}

// Mic is the microphone response applied (nil none).
func (p *Calibration) Mic() *dsp.MicResponse { return p.mic }

// Dialog is the calibration dialog last shown (nil before one), for the
// window's tests.
func (p *Calibration) Dialog() *dialog.FormDialog { return p.dlg }

// UnitSelect is the unit control (the window's tests choose in it as a
// person does).
func (p *Calibration) UnitSelect() *widget.Select { return p.unit }

// Label is the text under the unit control: the calibration and the
// microphone.
func (p *Calibration) Label() string { return p.label.Text }
