package ui

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// refHost is what the references panel needs of the window.
type refHost interface {
	shownSpectrum() (*live.Spectrum, string, error) // what a reference stores
	referencesChanged()                             // the views follow the set
	harmonics(on bool)
	harmonicsOn() bool
	saveDialog(name string, fn func(path string))
	chooseFile(filter storage.FileFilter, use func(path string) error)
	addNotice(msg string)
	clock() time.Time
}

// refPanel is the references: the set the spectra draw (with the
// difference to one of them), kept between sessions in dir (refstore.go),
// and its part of the side panel: Store and Load, one row per reference
// (shown, colour, name, save, delete), the reference the difference is
// taken to, and the harmonics switch.
type refPanel struct {
	host      refHost
	win       fyne.Window
	dir       string      // Options.ReferenceDir ("" none)
	set       view.RefSet // drawn by the live and file spectra
	seq       int         // the order number of the last reference kept in dir
	list      *fyne.Container
	diff      *widget.Select
	syncing   bool
	storeDlg  *dialog.FormDialog // the Store dialog last shown (tests)
	name      *widget.Entry      // its name entry
	rows      []refRow           // one per reference, in order
	harmonics *widget.Check      // the markers and distortion readout (harmonics.go)
}

// refRow is one reference's row: shown, save, delete.
type refRow struct {
	shown     *widget.Check
	save, del *widget.Button
}

// diffNone is the difference picker's "no difference" entry.
const diffNone = "None"

// buildMeasureViews makes the live difference plot (the file tab makes
// its own) and connects the references and the harmonics to the spectra.
func (w *Window) buildMeasureViews() {
	w.rp.set.SetDiffTo(-1)
	w.diff = panel.NewDiffPlot()
	w.spec.SetReferences(&w.rp.set)
	w.fspec.SetReferences(&w.rp.set)
	w.spec.SetHarmonics(&w.harm)
	w.fspec.SetHarmonics(&w.fharm)
}

// applyMeasureDisplay follows the frequency scale and theme.
func (w *Window) applyMeasureDisplay(scale plot.Scale, dark bool) {
	for _, d := range []*view.LinePlot{w.diff, w.fdiff} {
		d.SetScale(scale)
		d.SetDark(dark)
		if i := w.rp.set.DiffTo(); i >= 0 && len(d.Lines()) > 0 {
			d.Lines()[0].Color = view.RefColor(w.rp.set.Refs()[i].Color, dark)
		}
		d.Refresh()
	}
	w.fab.Spectra().SetRange(w.set.DBMin, w.set.DBMax)
	w.fab.SetDisplay(scale, dark)
}

// build makes the panel's references and distortion section.
func (p *refPanel) build() fyne.CanvasObject {
	p.list = container.NewVBox()
	p.diff = widget.NewSelect([]string{diffNone}, func(v string) {
		if !p.syncing {
			p.setDifference(p.index(v))
		}
	})
	p.harmonics = widget.NewCheck("Harmonics, THD (D)", func(on bool) {
		if on != p.host.harmonicsOn() {
			p.host.harmonics(on)
		}
	})
	p.sync()
	return container.NewVBox(
		container.NewGridWithColumns(2,
			widget.NewButton("Store (S)", p.storeDialog),
			widget.NewButton("Load…", p.loadDialog)),
		p.list,
		container.NewBorder(nil, nil, widget.NewLabel("Difference to"), nil, p.diff),
		p.harmonics,
	)
}

// index is the index of the reference named name, or −1.
func (p *refPanel) index(name string) int {
	for i, r := range p.set.Refs() {
		if r.Trace.Name == name {
			return i
		}
	}
	return -1
}

// sync rebuilds the panel's reference rows and the difference
// picker from the set.
func (p *refPanel) sync() {
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
				p.show(i, on)
			}
		})
		shown.SetChecked(r.Shown)
		save := widget.NewButtonWithIcon("", theme.DocumentSaveIcon(), func() { p.saveDialog(i) })
		del := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
			if err := p.delete(i); err != nil {
				dialog.ShowError(err, p.win)
			}
		})
		p.list.Add(container.NewBorder(nil, nil, container.NewCenter(sw), container.NewHBox(save, del), shown))
		p.rows = append(p.rows, refRow{shown, save, del})
		opts = append(opts, r.Trace.Name)
	}
	p.diff.SetOptions(opts)
	sel := diffNone
	if p.set.DiffTo() >= 0 {
		sel = p.set.Refs()[p.set.DiffTo()].Trace.Name
	}
	p.diff.SetSelected(sel)
}

// storeDialog takes the spectrum shown now (the press of S or
// Store) and asks for its name (the time by default) before storing it.
func (p *refPanel) storeDialog() {
	sp, avg, err := p.host.shownSpectrum()
	if err != nil {
		dialog.ShowError(err, p.win)
		return
	}
	t, err := view.TraceOf("ref", view.ShownLevels(sp, avg), sp.BinHz)
	if err != nil {
		dialog.ShowError(err, p.win)
		return
	}
	name := widget.NewEntry()
	name.SetText("ref " + p.host.clock().Format("15:04:05"))
	d := dialog.NewForm("Store the spectrum shown as a reference", "Store", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
			if !ok {
				return
			}
			t.Name = strings.TrimSpace(name.Text)
			if err := p.add(t); err != nil {
				dialog.ShowError(err, p.win)
			}
		}, p.win)
	name.OnSubmitted = func(string) { d.Submit() } // Enter stores
	p.storeDlg, p.name = d, name
	d.Show()
	p.win.Canvas().Focus(name)
}

// loadDialog asks for a reference CSV and loads it; a bad file
// is an error dialog naming the line.
func (p *refPanel) loadDialog() {
	p.host.chooseFile(storage.NewExtensionFileFilter([]string{".csv", ".CSV"}), p.load)
}

// saveDialog asks where to save reference i as CSV.
func (p *refPanel) saveDialog(i int) {
	if i < 0 || i >= len(p.set.Refs()) {
		return
	}
	p.host.saveDialog(p.set.Refs()[i].Trace.Name+".csv", func(path string) {
		if err := p.save(i, path); err != nil {
			dialog.ShowError(err, p.win)
		}
	})
}
