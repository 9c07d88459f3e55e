package panel

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/plot"
)

// ArchiveParams are what the Archive tab's LTSA is computed with.
type ArchiveParams struct {
	Channel int                 // 0-based
	FFT     int                 // frame length; 0: about 50 Hz bins (ltsaFFT)
	Average time.Duration       // time bin; 0: fit the view
	Cal     archive.Calibration // as `prism ltsa`'s flags make it
}

// Params are the parameters of the LTSA shown (or being computed).
func (a *Archive) Params() ArchiveParams { return a.par }

// ArchiveSideWidgets are the side panel's controls (for tests and the
// screenshot).
type ArchiveSideWidgets struct {
	Channel, FFT, Unit, Colormap                        *widget.Select
	Average                                             *widget.SelectEntry
	Sensitivity, Gain, FullScale, Curve, SPL, Low, High *widget.Entry
	AutoRange                                           *widget.Check
}

// SideWidgets are the side panel's controls.
func (a *Archive) SideWidgets() ArchiveSideWidgets {
	s := &a.side
	return ArchiveSideWidgets{s.channel, s.fft, s.unit, s.colormap, s.average, s.sens, s.gain, s.fullScale, s.curve, s.spl, s.lo, s.hi, s.autoRange}
}

// The level units the side panel offers, as `prism ltsa`'s calibration
// flags.
const (
	unitFS    = "dBFS/Hz (or the manifest's)"
	unitHydro = "Hydrophone: dB re 1 µPa²/Hz"
	unitCurve = "Hydrophone, sensitivity file"
	unitSPL   = "Microphone: dB SPL"
)

// archiveSide is the Archive tab's side panel: the analysis (channel,
// resolution, average, calibration), the colours, the archive's summary
// and gaps, and Export….
type archiveSide struct {
	scroll                       *container.Scroll
	channel, fft, unit, colormap *widget.Select
	average                      *widget.SelectEntry
	sens, gain, fullScale        *widget.Entry
	curve, spl, lo, hi           *widget.Entry
	hydroRows, curveRow, splRow  *fyne.Container
	autoRange                    *widget.Check
	summary, report, problem     *widget.Label
	wait                         *time.Timer
	fftWant                      int // the frame length chosen (0: auto), kept across archives
}

// Side is the tab's side panel, hidden until Show.
func (a *Archive) Side() fyne.CanvasObject { return a.side.scroll }

// Show shows the side panel in place of instead (hidden), and takes the
// tab's keys, while the tab is shown.
func (a *Archive) Show(shown bool, instead ...fyne.CanvasObject) {
	a.shown = shown
	if !shown {
		a.side.scroll.Hide()
		return
	}
	for _, o := range instead {
		o.Hide()
	}
	a.side.scroll.Show()
}

// SidePanelShown says whether the side panel shows.
func (a *Archive) SidePanelShown() bool { return a.side.scroll.Visible() }

func (a *Archive) buildSide() {
	s := &a.side
	entry := func(text string) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(text)
		e.OnChanged = func(string) { a.typed() }
		return e
	}
	s.channel = widget.NewSelect([]string{"1"}, nil)
	s.channel.SetSelectedIndex(0)
	s.fft = widget.NewSelect([]string{"Auto (about 50 Hz)"}, nil)
	s.fft.SetSelectedIndex(0)
	s.average = widget.NewSelectEntry([]string{"auto", "0.5", "1", "10", "60", "600", "3600"})
	s.average.SetText("auto")
	s.average.OnChanged = func(string) { a.typed() }
	s.sens, s.gain, s.fullScale = entry("-170"), entry("0"), entry("1")
	s.curve, s.spl = entry(""), entry("94")
	s.curve.SetPlaceHolder("/path/to/sensitivity.csv (hz,db)")
	s.hydroRows = container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Sensitivity dB re 1 V/µPa"), nil, s.sens),
		container.NewBorder(nil, nil, widget.NewLabel("Gain dB"), nil, s.gain),
		container.NewBorder(nil, nil, widget.NewLabel("Full scale V"), nil, s.fullScale))
	s.curveRow = container.NewVBox(s.curve, widget.NewButton("Choose a sensitivity file…", a.chooseCurve))
	s.splRow = container.NewBorder(nil, nil, widget.NewLabel("Full-scale sine, dB SPL"), nil, s.spl)
	s.unit = widget.NewSelect([]string{unitFS, unitHydro, unitCurve, unitSPL}, nil)
	s.unit.SetSelected(unitFS)
	s.autoRange = widget.NewCheck("Auto", nil)
	s.autoRange.SetChecked(true)
	s.lo, s.hi = widget.NewEntry(), widget.NewEntry()
	s.lo.OnChanged, s.hi.OnChanged = func(string) { a.rangeChanged() }, func(string) { a.rangeChanged() }
	var maps []string
	for _, c := range plot.Colormaps {
		maps = append(maps, c.String())
	}
	s.colormap = widget.NewSelect(maps, nil)
	s.colormap.SetSelected(plot.Viridis.String())
	s.summary, s.report, s.problem = widget.NewLabel("No archive open."), widget.NewLabel(""), widget.NewLabel("")
	for _, l := range []*widget.Label{s.summary, s.report, s.problem} {
		l.Wrapping = fyne.TextWrapWord
	}
	s.problem.Importance = widget.DangerImportance
	s.problem.Hide()
	s.scroll = container.NewVScroll(container.NewVBox(
		widget.NewLabelWithStyle("Archive", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		form("Channel", s.channel), form("Resolution", s.fft), form("Average, s", s.average),
		widget.NewLabel("Level"), s.unit, s.hydroRows, s.curveRow, s.splRow,
		container.NewBorder(nil, nil, widget.NewLabel("Colours, dB"), s.autoRange),
		container.NewGridWithColumns(2, form("from", s.lo), form("to", s.hi)),
		form("Colormap", s.colormap), s.problem,
		widget.NewButton("Export…", a.exportDialog),
		widget.NewSeparator(), s.summary, s.report))
	s.scroll.SetMinSize(fyne.NewSize(280, 200))
	s.scroll.Hide()
	a.showCalRows()
	a.rangeChanged()
	s.channel.OnChanged, s.fft.OnChanged = func(string) { a.changed() }, func(string) { a.fftChosen() }
	s.unit.OnChanged = func(string) { a.showCalRows(); a.changed() }
	s.autoRange.OnChanged = func(bool) { a.rangeChanged() }
	s.colormap.OnChanged = func(name string) {
		if c, err := plot.ParseColormap(name); err == nil {
			a.view.SetColormap(c)
		}
		a.saveSettings()
	}
}

func form(label string, o fyne.CanvasObject) fyne.CanvasObject {
	return container.NewBorder(nil, nil, widget.NewLabel(label), nil, o)
}

// showCalRows shows the entries the level unit chosen takes.
func (a *Archive) showCalRows() {
	s := &a.side
	u := s.unit.Selected
	s.hydroRows.Hidden = u != unitHydro && u != unitCurve
	s.hydroRows.Objects[0].(*fyne.Container).Hidden = u == unitCurve
	s.curveRow.Hidden = u != unitCurve
	s.splRow.Hidden = u != unitSPL
	s.scroll.Refresh()
}

// sideOpened fills the side panel for the archive opened: its channels,
// the frame lengths at its rate, the summary and the gaps.
func (a *Archive) sideOpened() {
	s, f := &a.side, a.cat.Files[0]
	var chans []string
	for c := range f.Channels {
		chans = append(chans, strconv.Itoa(c+1))
	}
	s.channel.Options = chans
	if s.channel.SelectedIndex() < 0 || s.channel.SelectedIndex() >= len(chans) {
		s.channel.Selected = chans[0]
	}
	s.channel.Refresh()
	res := func(n int) string { return fmt.Sprintf("%s Hz (%d)", plot.FormatHz(f.Rate/float64(n)), n) }
	opts := []string{"Auto: " + res(ltsaFFT(f.Rate))}
	for n := 256; n <= 32768; n *= 2 {
		opts = append(opts, res(n))
	}
	s.fft.Options = opts
	a.selectFFT()
	s.summary.SetText(Summary(a.cat))
	s.report.SetText(Report(a.cat))
}

// params reads the side panel (an error: a value that cannot be used).
func (a *Archive) params() (ArchiveParams, error) {
	s := &a.side
	p := ArchiveParams{Channel: max(0, s.channel.SelectedIndex())}
	if i := s.fft.SelectedIndex(); i > 0 {
		p.FFT = 256 << (i - 1)
	}
	if t := strings.TrimSpace(s.average.Text); t != "" && t != "auto" {
		sec, err := strconv.ParseFloat(t, 64)
		if err != nil || !(sec >= 0.01) || sec > 366*86400 {
			return p, fmt.Errorf("average %q: want auto or seconds (at least 0.01)", t)
		}
		p.Average = time.Duration(math.Round(sec * 1e9))
	}
	var err error
	p.Cal, err = a.calibration()
	return p, err
}

// fullScaleSineDB is 10·log10 of a full-scale sine's power (0.5 FS²).
var fullScaleSineDB = 10 * math.Log10(0.5)

// calibration is the level unit's calibration, made as `prism ltsa`'s
// --sensitivity/--gain/--full-scale, --sensitivity-file and --cal-dbspl
// make theirs (the same Source, so exports carry the same attributes).
func (a *Archive) calibration() (archive.Calibration, error) {
	s := &a.side
	num := func(e *widget.Entry, what string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(e.Text), 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s %q: want a number", what, e.Text)
		}
		return v, nil
	}
	switch s.unit.Selected {
	case unitSPL:
		l, err := num(s.spl, "dB SPL")
		return archive.Calibration{Transducer: archive.Microphone, FullScaleV: 1,
			SensitivityDB: -(l - fullScaleSineDB) - 20*math.Log10(20e-6), Source: fmt.Sprintf("--cal-dbspl %g", l)}, err
	case unitHydro, unitCurve:
	default:
		return archive.Calibration{}, nil
	}
	gain, err1 := num(s.gain, "gain")
	fs, err2 := num(s.fullScale, "full scale")
	c := archive.Calibration{Transducer: archive.Hydrophone, GainDB: gain, FullScaleV: fs, Source: "--sensitivity"}
	if err := errors.Join(err1, err2); err != nil {
		return c, err
	}
	if s.unit.Selected == unitCurve {
		if strings.TrimSpace(s.curve.Text) == "" {
			return c, errors.New("choose a sensitivity file (hz,db lines)")
		}
		curve, err := archive.ReadCurve(strings.TrimSpace(s.curve.Text))
		if err != nil {
			return c, err
		}
		c.Curve, c.Source = curve, strings.TrimSpace(s.curve.Text)
		return c, c.Check()
	}
	var err error
	if c.SensitivityDB, err = num(s.sens, "sensitivity"); err != nil {
		return c, err
	}
	return c, c.Check()
}

func (a *Archive) chooseCurve() {
	a.dlg.Open("Sensitivity file", []string{".csv", ".txt"}, "a sensitivity-versus-frequency file", "hz,db lines", func(p string) error {
		a.side.curve.SetText(p)
		return nil
	})
}

// typed recomputes once typing settles.
func (a *Archive) typed() {
	if a.side.wait != nil {
		a.side.wait.Stop()
	}
	gen := a.gen
	a.side.wait = time.AfterFunc(400*time.Millisecond, func() {
		a.do(func() {
			if gen == a.gen {
				a.changed()
			}
		})
	})
}

// changed recomputes the LTSA with the side panel's parameters when they
// differ from those shown (or says what is wrong with them).
func (a *Archive) changed() {
	a.saveSettings()
	p, err := a.params()
	if err != nil {
		a.side.problem.SetText(err.Error())
		a.side.problem.Show()
		return
	}
	a.side.problem.Hide()
	if !a.stale && p.Channel == a.par.Channel && p.FFT == a.par.FFT && p.Average == a.par.Average && sameCal(p.Cal, a.par.Cal) {
		return
	}
	a.par = p
	a.recompute()
}

func sameCal(x, y archive.Calibration) bool {
	return fmt.Sprintf("%+v", x) == fmt.Sprintf("%+v", y)
}

// rangeChanged sets the view's colour range: auto, or the two levels.
func (a *Archive) rangeChanged() {
	s := &a.side
	defer a.saveSettings()
	if s.autoRange.Checked {
		s.lo.Disable()
		s.hi.Disable()
		a.view.SetRange(0, 0, true)
		a.showRange()
		return
	}
	s.lo.Enable()
	s.hi.Enable()
	lo, err1 := strconv.ParseFloat(strings.TrimSpace(s.lo.Text), 64)
	hi, err2 := strconv.ParseFloat(strings.TrimSpace(s.hi.Text), 64)
	if err1 == nil && err2 == nil && hi > lo {
		a.view.SetRange(lo, hi, false)
	}
}

// showRange shows the view's colour range in the entries (while auto).
func (a *Archive) showRange() {
	s := &a.side
	if !s.autoRange.Checked {
		return
	}
	lo, hi := a.view.Range()
	for _, x := range []struct {
		e *widget.Entry
		v float64
	}{{s.lo, lo}, {s.hi, hi}} {
		fn := x.e.OnChanged
		x.e.OnChanged = nil
		x.e.SetText(strconv.FormatFloat(x.v, 'f', -1, 64))
		x.e.OnChanged = fn
	}
}
