package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/ui/view"
)

// refPanel is the side panel's part for references and distortion: Store
// and Load, one row per reference (shown, colour, name, save, delete),
// the reference the difference is taken to, and the harmonics switch.
type refPanel struct {
	list     *fyne.Container
	diff     *widget.Select
	syncing  bool
	storeDlg *dialog.FormDialog // the Store dialog last shown (tests)
	name     *widget.Entry      // its name entry
	rows     []refRow           // one per reference, in order
}

// refRow is one reference's row: shown, save, delete.
type refRow struct {
	shown     *widget.Check
	save, del *widget.Button
}

// diffNone is the difference picker's "no difference" entry.
const diffNone = "None"

// buildMeasureViews makes the difference plots (live and file) and the
// A/B view, hidden, and connects the references to the spectra.
func (w *Window) buildMeasureViews() {
	w.refs.SetDiffTo(-1)
	w.diff = view.NewLinePlot("dB", -view.DiffRangeDB, view.DiffRangeDB)
	w.fdiff = view.NewLinePlot("dB", -view.DiffRangeDB, view.DiffRangeDB)
	for _, d := range []*view.LinePlot{w.diff, w.fdiff} {
		d.SetZeroLine(true)
		d.Hide()
	}
	w.spec.SetReferences(&w.refs)
	w.fspec.SetReferences(&w.refs)
	w.spec.SetHarmonics(&w.harm)
	w.fspec.SetHarmonics(&w.fharm)
	w.ab = view.NewABView()
	w.ab.OnClose = w.closeAB
	w.ab.Hide()
}

// applyMeasureDisplay follows the frequency scale and theme.
func (w *Window) applyMeasureDisplay(scale string, dark bool) {
	for _, d := range []*view.LinePlot{w.diff, w.fdiff} {
		d.SetScale(scale)
		d.SetDark(dark)
		if i := w.refs.DiffTo(); i >= 0 && len(d.Lines()) > 0 {
			d.Lines()[0].Color = view.RefColor(w.refs.Refs()[i].Color, dark)
		}
		d.Refresh()
	}
	w.ab.Spectra().SetRange(w.set.DBMin, w.set.DBMax)
	w.ab.SetDisplay(scale, dark)
}

// buildRefControls is the panel's references and distortion section.
func (w *Window) buildRefControls() fyne.CanvasObject {
	rp := &w.rp
	rp.list = container.NewVBox()
	rp.diff = widget.NewSelect([]string{diffNone}, func(v string) {
		if !rp.syncing {
			w.setDifference(w.refIndex(v))
		}
	})
	w.c.harmonics = widget.NewCheck("Harmonics, THD (D)", func(on bool) {
		if on != w.harm.On() {
			w.harmonics(on)
		}
	})
	w.syncRefControls()
	return container.NewVBox(
		container.NewGridWithColumns(2,
			widget.NewButton("Store (S)", w.storeReferenceDialog),
			widget.NewButton("Load…", w.loadReferenceDialog)),
		rp.list,
		container.NewBorder(nil, nil, widget.NewLabel("Difference to"), nil, rp.diff),
		w.c.harmonics,
	)
}

// refIndex is the index of the reference named name, or −1.
func (w *Window) refIndex(name string) int {
	for i, r := range w.refs.Refs() {
		if r.Trace.Name == name {
			return i
		}
	}
	return -1
}

// syncRefControls rebuilds the panel's reference rows and the difference
// picker from the set.
func (w *Window) syncRefControls() {
	rp := &w.rp
	if rp.list == nil {
		return
	}
	rp.syncing = true
	defer func() { rp.syncing = false }()
	rp.list.RemoveAll()
	rp.rows = rp.rows[:0]
	opts := []string{diffNone}
	for i, r := range w.refs.Refs() {
		sw := canvas.NewRectangle(r.Color)
		sw.SetMinSize(fyne.NewSize(12, 12))
		shown := widget.NewCheck(r.Trace.Name, func(on bool) {
			if !rp.syncing {
				w.showReference(i, on)
			}
		})
		shown.SetChecked(r.Shown)
		save := widget.NewButtonWithIcon("", theme.DocumentSaveIcon(), func() { w.saveReferenceDialog(i) })
		del := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
			if err := w.deleteReference(i); err != nil {
				dialog.ShowError(err, w.win)
			}
		})
		rp.list.Add(container.NewBorder(nil, nil, container.NewCenter(sw), container.NewHBox(save, del), shown))
		rp.rows = append(rp.rows, refRow{shown, save, del})
		opts = append(opts, r.Trace.Name)
	}
	rp.diff.SetOptions(opts)
	sel := diffNone
	if w.refs.DiffTo() >= 0 {
		sel = w.refs.Refs()[w.refs.DiffTo()].Trace.Name
	}
	rp.diff.SetSelected(sel)
}

// storeReferenceDialog takes the spectrum shown now (the press of S or
// Store) and asks for its name (the time by default) before storing it.
func (w *Window) storeReferenceDialog() {
	sp, avg, err := w.shownSpectrum()
	if err != nil {
		dialog.ShowError(err, w.win)
		return
	}
	t, err := view.TraceOf("ref", view.ShownLevels(sp, avg), sp.BinHz)
	if err != nil {
		dialog.ShowError(err, w.win)
		return
	}
	name := widget.NewEntry()
	name.SetText("ref " + w.now().Format("15:04:05"))
	d := dialog.NewForm("Store the spectrum shown as a reference", "Store", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
			if !ok {
				return
			}
			t.Name = strings.TrimSpace(name.Text)
			if err := w.addReference(t); err != nil {
				dialog.ShowError(err, w.win)
			}
		}, w.win)
	name.OnSubmitted = func(string) { d.Submit() } // Enter stores
	w.rp.storeDlg, w.rp.name = d, name
	d.Show()
	w.win.Canvas().Focus(name)
}

// loadReferenceDialog asks for a reference CSV and loads it; a bad file
// is an error dialog naming the line.
func (w *Window) loadReferenceDialog() {
	w.pickFile(w.startFolder(), storage.NewExtensionFileFilter([]string{".csv", ".CSV"}), w.loadReference)
}

// saveReferenceDialog asks where to save reference i as CSV.
func (w *Window) saveReferenceDialog(i int) {
	if i < 0 || i >= len(w.refs.Refs()) {
		return
	}
	w.saveDialog(w.refs.Refs()[i].Trace.Name+".csv", func(path string) {
		if err := w.saveReference(i, path); err != nil {
			dialog.ShowError(err, w.win)
		}
	})
}
