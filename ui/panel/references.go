package panel

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/ui/view"
)

// RefHost is what the references panel needs of the window.
type RefHost interface {
	ShownSpectrum() (*live.Spectrum, string, error) // what a reference stores
	// Measured is the unit of the spectrum ShownSpectrum gives and how it
	// was measured (calibration, microphone, rate, FFT, window, averaging).
	Measured() (unit string, info dsp.TraceInfo)
	ReferencesChanged() // the views follow the set
	Harmonics(on bool)
	HarmonicsOn() bool
	SaveDialog(name string, fn func(path string))
	ChooseFile(filter storage.FileFilter, use func(path string) error)
	AddNotice(msg string)
	Clock() time.Time
}

// References is the references: the set the spectra draw (with the
// difference to one of them) and the transfer functions the transfer view
// draws, kept between sessions in dir (refstore.go), and its part of the
// side panel: Store and Load, one row per reference (shown, colour, name,
// unit, save, delete, and why it is not drawn on the axis shown), the
// reference the difference is taken to, the harmonics switch, and the
// last message about them (inline, with the error behind Details).
type References struct {
	host      RefHost
	win       fyne.Window
	dir       string      // Options.ReferenceDir ("" none)
	set       view.RefSet // drawn by the live and file spectra
	seq       int         // the order number of the last reference kept in dir
	list      *fyne.Container
	diff      *widget.Select
	syncing   bool
	rows      []refRow       // one per reference, in order
	harmonics *widget.Check  // the markers and distortion readout
	msg       *widget.Label  // the last message ("" none)
	details   *widget.Button // the error behind it
	detail    string
	choosing  *traceChoice // a file of several traces being chosen from

	// OnChange, when set, is called after every change of the set (a
	// reference stored, loaded, deleted, shown or hidden): the transfer
	// view redraws its references (Transfers).
	OnChange func()
}

// NewReferences makes the panel, with no reference yet; dir keeps them
// between sessions ("" not: Options.ReferenceDir).
func NewReferences(host RefHost, win fyne.Window, dir string) *References {
	p := &References{host: host, win: win, dir: dir}
	p.set.SetDiffTo(-1)
	return p
}

// Set is the references, which the window's spectra draw and its
// difference plots subtract; only the panel changes it.
func (p *References) Set() *view.RefSet { return &p.set }

// ShowHarmonics shows the harmonics switch on or off (the D key).
func (p *References) ShowHarmonics(on bool) {
	if p.harmonics != nil && p.harmonics.Checked != on {
		p.harmonics.SetChecked(on)
	}
}

// refRow is one reference's row: shown, unit, save, delete, and why it is
// not drawn (nil: it is).
type refRow struct {
	shown     *widget.Check
	unit, why *widget.Label
	save, del *widget.Button
}

// diffNone is the difference picker's "no difference" entry.
const diffNone = "None"

// Build makes the panel's references and distortion section.
func (p *References) Build() fyne.CanvasObject {
	p.list = container.NewVBox()
	p.diff = widget.NewSelect([]string{diffNone}, func(v string) {
		if !p.syncing {
			p.SetDifference(p.index(v))
		}
	})
	p.harmonics = widget.NewCheck("Harmonics, THD (D)", func(on bool) {
		if on != p.host.HarmonicsOn() {
			p.host.Harmonics(on)
		}
	})
	p.msg = widget.NewLabel("")
	p.msg.Wrapping = fyne.TextWrapWord
	p.msg.Importance = widget.WarningImportance
	p.details = widget.NewButton("Details", func() {
		dialog.ShowInformation("References: details", p.detail, p.win)
	})
	p.msg.Hide()
	p.details.Hide()
	p.Sync()
	return container.NewVBox(
		container.NewGridWithColumns(2,
			widget.NewButton("Store (S)", p.StoreDialog),
			widget.NewButton("Load…", p.loadDialog)),
		container.NewBorder(nil, nil, nil, p.details, p.msg),
		p.list,
		container.NewBorder(nil, nil, widget.NewLabel("Difference to"), nil, p.diff),
		p.harmonics,
	)
}

// index is the index of the reference named name, or −1.
func (p *References) index(name string) int {
	for i, r := range p.set.Refs() {
		if r.Trace.Name == name {
			return i
		}
	}
	return -1
}

// unitText is what a reference's row says of its unit.
func unitText(r *view.Reference) string {
	switch {
	case r.IsTransfer():
		return "transfer function"
	case r.Trace.Unit == "":
		return "unit not known"
	}
	return r.Trace.Unit
}

// Sync rebuilds the panel's reference rows and the difference
// picker from the set.
func (p *References) Sync() {
	if p.list == nil {
		return
	}
	p.syncing = true
	defer func() { p.syncing = false }()
	p.list.RemoveAll()
	p.rows = p.rows[:0]
	opts := []string{diffNone}
	for i, r := range p.set.Refs() {
		sw := canvas.NewRectangle(r.Color)
		sw.SetMinSize(fyne.NewSize(12, 12))
		shown := widget.NewCheck(r.Trace.Name, func(on bool) {
			if !p.syncing {
				p.Show(i, on)
			}
		})
		shown.SetChecked(r.Shown)
		unit := widget.NewLabel(unitText(r))
		unit.Importance = widget.LowImportance
		var unitObj fyne.CanvasObject = unit
		if r.Trace.Unit == "" && !r.IsTransfer() { // the user can say it
			pick := widget.NewSelect(view.UnitLabels, func(u string) { p.report(p.SetUnit(i, u)) })
			pick.PlaceHolder = "unit?"
			unitObj = pick
		}
		save := widget.NewButtonWithIcon("", theme.DocumentSaveIcon(), func() { p.saveDialog(i) })
		del := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { p.report(p.Delete(i)) })
		row := refRow{shown: shown, unit: unit, save: save, del: del}
		p.list.Add(container.NewBorder(nil, nil, container.NewCenter(sw), container.NewHBox(unitObj, save, del), shown))
		if !r.IsTransfer() && r.NotDrawn != "" {
			row.why = widget.NewLabel("Not drawn. " + r.NotDrawn)
			row.why.Wrapping = fyne.TextWrapWord
			row.why.Importance = widget.WarningImportance
			p.list.Add(row.why)
		}
		p.rows = append(p.rows, row)
		if !r.IsTransfer() {
			opts = append(opts, r.Trace.Name)
		}
	}
	p.diff.SetOptions(opts)
	sel := diffNone
	if p.set.DiffTo() >= 0 {
		sel = p.set.Refs()[p.set.DiffTo()].Trace.Name
	}
	p.diff.SetSelected(sel)
}

// Rows are what each reference's row shows: its name, its unit ("transfer
// function"; "unit not known", where a picker lets the user say it:
// SetUnit) and why it is not drawn ("" it is).
func (p *References) Rows() (names, units, whyNot []string) {
	for _, r := range p.rows {
		names, units = append(names, r.shown.Text), append(units, r.unit.Text)
		why := ""
		if r.why != nil {
			why = r.why.Text
		}
		whyNot = append(whyNot, why)
	}
	return names, units, whyNot
}

// Message is the message shown above the rows ("" none) and the error
// behind its Details button.
func (p *References) Message() (msg, details string) {
	if p.msg == nil || !p.msg.Visible() {
		return "", ""
	}
	return p.msg.Text, p.detail
}

// report shows err's sentence above the rows, its chain behind Details
// (nil: the message goes).
func (p *References) report(err error) {
	if p.msg == nil {
		return
	}
	if err == nil {
		p.msg.Hide()
		p.details.Hide()
		p.detail = ""
		return
	}
	p.msg.SetText(userMessage(err))
	p.detail = err.Error()
	p.msg.Show()
	p.details.Show()
}

// inform shows msg above the rows, with nothing behind Details.
func (p *References) inform(msg string) {
	if p.msg == nil {
		return
	}
	p.report(nil)
	p.msg.SetText(msg)
	p.msg.Show()
}

// StoreDialog takes the spectrum shown now (the press of S or
// Store) and asks for its name (the time by default) before storing it.
func (p *References) StoreDialog() {
	t, err := p.shownTrace("ref")
	if err != nil {
		p.report(err)
		return
	}
	name := widget.NewEntry()
	name.SetText("ref " + p.host.Clock().Format("15:04:05"))
	d := dialog.NewForm("Store the spectrum shown as a reference", "Store", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
			if !ok {
				return
			}
			t.Name = strings.TrimSpace(name.Text)
			p.report(p.add(t))
		}, p.win)
	name.OnSubmitted = func(string) { d.Submit() } // Enter stores
	d.Show()
	p.win.Canvas().Focus(name)
}

// shownTrace is the spectrum shown as a trace named name, with its unit
// and how it was measured.
func (p *References) shownTrace(name string) (*dsp.Trace, error) {
	sp, avg, err := p.host.ShownSpectrum()
	if err != nil {
		return nil, err
	}
	t, err := view.TraceAt(name, view.ShownLevels(sp, avg), sp.BinHz, sp.Freqs)
	if err != nil {
		return nil, err
	}
	unit, info := p.host.Measured()
	t.Unit, t.Info = unit, &info
	return t, nil
}

// refFiles are the files Load… offers: CSV and REW's text.
var refFiles = []string{".csv", ".CSV", ".txt", ".TXT", ".frd", ".FRD"}

// loadDialog asks for a reference file and loads it (a file of several
// traces asks which); a bad file is a message naming the line.
func (p *References) loadDialog() {
	p.host.ChooseFile(storage.NewExtensionFileFilter(refFiles), func(path string) error {
		p.Open(path)
		return nil // said in the panel
	})
}

// Open is what Load… does with the file chosen: its one trace is
// loaded, or a dialog asks which of its traces to load (Choosing,
// Choose). An error is also said above the rows (Message).
func (p *References) Open(path string) error {
	err := p.open(path)
	p.report(err)
	return err
}

func (p *References) open(path string) error {
	ts, err := dsp.ReadTracesFile(path)
	if err != nil {
		return &loadError{file: filepath.Base(path), err: fmt.Errorf("prism: load reference: %w", err)}
	}
	if len(ts) == 1 {
		return p.addLoaded(ts)
	}
	p.chooseDialog(filepath.Base(path), ts)
	return nil
}

// traceChoice is the dialog asking which traces of a file to load.
type traceChoice struct {
	traces []*dsp.Trace
	pick   *widget.Select
	dlg    dialog.Dialog
}

// everyTrace is the choice that loads all the traces of a file.
const everyTrace = "every one"

// chooseDialog asks which of a file's traces to load (one, or every one;
// the average first where there is one).
func (p *References) chooseDialog(file string, ts []*dsp.Trace) {
	c := &traceChoice{traces: ts}
	opts := []string{}
	for _, t := range ts {
		opts = append(opts, t.Name)
	}
	opts = append(opts, everyTrace)
	c.pick = widget.NewSelect(opts, nil)
	c.pick.SetSelected(ts[0].Name)
	for _, t := range ts { // a spectrum export: its average, as Store takes it
		if strings.HasSuffix(t.Name, " average") {
			c.pick.SetSelected(t.Name)
		}
	}
	c.dlg = dialog.NewForm(fmt.Sprintf("%s holds %d traces: load which?", file, len(ts)), "Load", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Trace", c.pick)}, func(ok bool) {
			p.choosing = nil
			if ok {
				p.report(p.loadChoice(c, c.pick.Selected))
			}
		}, p.win)
	p.choosing = c
	c.dlg.Show()
}

// Choosing is what the dialog asking which traces of a file to load
// offers and has chosen (nil, "": no such dialog is open).
func (p *References) Choosing() (offered []string, chosen string) {
	if p.choosing == nil {
		return nil, ""
	}
	return p.choosing.pick.Options, p.choosing.pick.Selected
}

// Choose loads the trace named name ("every one": all) of the file the
// open dialog asks about, as its Load button does, and closes it.
func (p *References) Choose(name string) error {
	c := p.choosing
	if c == nil {
		return errors.New("prism: no file is being chosen from")
	}
	p.choosing = nil
	c.dlg.Hide()
	err := p.loadChoice(c, name)
	p.report(err)
	return err
}

// loadChoice loads the traces chosen.
func (p *References) loadChoice(c *traceChoice, name string) error {
	if name == everyTrace {
		return p.addLoaded(c.traces)
	}
	for _, t := range c.traces {
		if t.Name == name {
			return p.addLoaded([]*dsp.Trace{t})
		}
	}
	return fmt.Errorf("prism: no trace %q in the file", name)
}

// saveDialog asks where to save reference i as CSV.
func (p *References) saveDialog(i int) {
	if i < 0 || i >= len(p.set.Refs()) {
		return
	}
	p.host.SaveDialog(p.set.Refs()[i].Trace.Name+".csv", func(path string) {
		err := p.Save(i, path)
		p.report(err)
		if err == nil {
			p.inform(fmt.Sprintf("Saved “%s” to %s.", p.set.Refs()[i].Trace.Name, path))
		}
	})
}

// Store stores the spectrum shown (live: the average if one is
// on, else the latest, of the first channel shown; file: the spectrum
// under the cursor) as a reference named name, with its unit and how it
// was measured.
func (p *References) Store(name string) error {
	t, err := p.shownTrace(name)
	if err != nil {
		return err
	}
	return p.add(t)
}

// StoreTrace stores t (a transfer function, from the transfer view's
// Store reference; or any trace) as a reference, under its name or, if a
// reference has it, the name with a number ("NAME (2)"). The set keeps t:
// the caller must not change it afterwards.
func (p *References) StoreTrace(t *dsp.Trace) error {
	return p.addLoaded([]*dsp.Trace{t})
}

// Transfers are the transfer-function references shown, in order, for the
// transfer view to draw over its plots (Refs has their colours).
func (p *References) Transfers() []*dsp.Trace {
	var ts []*dsp.Trace
	for _, r := range p.set.Refs() {
		if r.IsTransfer() && r.Shown {
			ts = append(ts, r.Trace)
		}
	}
	return ts
}

// Load reads every trace of a file Prism or REW writes (dsp.ReadTraces:
// a reference, a spectrum export, `prism spectrum`'s or `prism transfer`'s
// CSV, REW's text) as references, named after the file ("NAME (2)" if a
// reference has that name; "NAME ch1", … for a file of several).
func (p *References) Load(path string) error {
	ts, err := dsp.ReadTracesFile(path)
	if err != nil {
		return fmt.Errorf("prism: load reference: %w", err)
	}
	return p.addLoaded(ts)
}

// addLoaded adds the traces, each named as it is or, if a reference has
// that name, with a number: all of them, or none if they do not fit.
func (p *References) addLoaded(ts []*dsp.Trace) error {
	if n := len(p.set.Refs()) + len(ts); n > view.MaxReferences {
		return fmt.Errorf("prism: %d references do not fit: at most %d are kept, delete %d first", len(ts), view.MaxReferences, n-view.MaxReferences)
	}
	for _, t := range ts {
		base := t.Name
		for n := 2; p.index(t.Name) >= 0; n++ {
			t.Name = base + " (" + strconv.Itoa(n) + ")"
		}
		if err := p.add(t); err != nil {
			return err
		}
	}
	return nil
}

// Save writes reference i to path in the file Prism reads back (its
// unit and how it was measured, then every value exact), through a
// temporary file renamed into place.
func (p *References) Save(i int, path string) error {
	if i < 0 || i >= len(p.set.Refs()) {
		return fmt.Errorf("prism: no reference %d", i)
	}
	if err := writeTrace(p.set.Refs()[i].Trace, path); err != nil {
		return fmt.Errorf("prism: save reference: %w", err)
	}
	return nil
}

// Delete forgets reference i, and removes its file from the
// reference directory (the error says if that failed).
func (p *References) Delete(i int) error {
	if i < 0 || i >= len(p.set.Refs()) {
		return fmt.Errorf("prism: no reference %d", i)
	}
	r := p.set.Refs()[i]
	p.set.Remove(i)
	p.changed()
	return p.forget(r)
}

// Show draws reference i (over the spectra, or the transfer function) or
// hides it.
func (p *References) Show(i int, on bool) {
	if i >= 0 && i < len(p.set.Refs()) && p.set.Refs()[i].Shown != on {
		p.set.SetShown(i, on)
		p.changed()
	}
}

// Refs are the stored references, spectra and transfer functions, in
// order.
func (p *References) Refs() []*view.Reference { return p.set.Refs() }

// SetDifference shows the spectrum shown less reference i (−1: the
// spectra again) in the spectrum's place, live and in the file tab. A
// transfer function's reference is no spectrum's: the difference ends.
func (p *References) SetDifference(i int) {
	if i >= len(p.set.Refs()) || (i >= 0 && p.set.Refs()[i].IsTransfer()) {
		i = -1
	}
	p.set.SetDiffTo(i)
	p.changed()
}

// SetUnit says the unit of reference i, whose file did not say it (an
// old reference, `prism spectrum`'s CSV): one of view.UnitLabels. It is
// converted onto the axis from now on, and its kept file says the unit.
func (p *References) SetUnit(i int, unit string) error {
	if i < 0 || i >= len(p.set.Refs()) || p.set.Refs()[i].Trace.Unit != "" || p.set.Refs()[i].IsTransfer() {
		return fmt.Errorf("prism: reference %d has a unit", i)
	}
	p.set.SetUnit(i, unit)
	p.changed()
	if r := p.set.Refs()[i]; r.File != "" {
		if err := writeTrace(r.Trace, r.File); err != nil {
			return fmt.Errorf("prism: reference %q: its unit is kept for this session only: %w", r.Trace.Name, err)
		}
	}
	return nil
}

// SetAxis converts the references for the spectrum axis a (its unit,
// calibration and microphone: view.RefSet.SetAxis) and shows, in each
// row, why one is not drawn.
func (p *References) SetAxis(a view.RefAxis) {
	if a == p.set.Axis() {
		return
	}
	p.set.SetAxis(a)
	p.changed()
}

// changed tells the window and OnChange that the set changed.
func (p *References) changed() {
	p.host.ReferencesChanged()
	if p.OnChange != nil {
		p.OnChange()
	}
}

// loadError is a file that did not load, and which.
type loadError struct {
	file string
	err  error
}

func (e *loadError) Error() string { return e.err.Error() }
func (e *loadError) Unwrap() error { return e.err }

// userMessage is err in a user's words: one sentence and the action to
// take (the Go chain goes behind Details).
func userMessage(err error) string {
	var te *dsp.TraceError
	var pe *fs.PathError
	var le *loadError
	file := ""
	if errors.As(err, &le) {
		file = le.file
	}
	switch {
	case errors.As(err, &te) && te.Line > 0:
		return fmt.Sprintf("Line %d of %s: %s — fix the file or load another.", te.Line, cmp.Or(file, te.Name), strings.TrimSuffix(te.Reason, "."))
	case errors.As(err, &te):
		return fmt.Sprintf("%s: %s — load another file.", cmp.Or(file, te.Name), strings.TrimSuffix(te.Reason, "."))
	case errors.As(err, &pe):
		return fmt.Sprintf("%s could not be read (%v): choose another file.", filepath.Base(pe.Path), pe.Err)
	}
	msg := err.Error()
	for _, pre := range []string{"prism: ", "save reference: ", "load reference: "} {
		msg = strings.TrimPrefix(msg, pre)
	}
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}
