package panel

import (
	"fmt"
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
	ReferencesChanged()                             // the views follow the set
	Harmonics(on bool)
	HarmonicsOn() bool
	SaveDialog(name string, fn func(path string))
	ChooseFile(filter storage.FileFilter, use func(path string) error)
	AddNotice(msg string)
	Clock() time.Time
}

// References is the references: the set the spectra draw (with the
// difference to one of them), kept between sessions in dir (refstore.go),
// and its part of the side panel: Store and Load, one row per reference
// (shown, colour, name, save, delete), the reference the difference is
// taken to, and the harmonics switch.
type References struct {
	host      RefHost
	win       fyne.Window
	dir       string      // Options.ReferenceDir ("" none)
	set       view.RefSet // drawn by the live and file spectra
	seq       int         // the order number of the last reference kept in dir
	list      *fyne.Container
	diff      *widget.Select
	syncing   bool
	rows      []refRow      // one per reference, in order
	harmonics *widget.Check // the markers and distortion readout
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

// refRow is one reference's row: shown, save, delete.
type refRow struct {
	shown     *widget.Check
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
	p.Sync()
	return container.NewVBox(
		container.NewGridWithColumns(2,
			widget.NewButton("Store (S)", p.StoreDialog),
			widget.NewButton("Load…", p.loadDialog)),
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
		save := widget.NewButtonWithIcon("", theme.DocumentSaveIcon(), func() { p.saveDialog(i) })
		del := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
			if err := p.Delete(i); err != nil {
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

// StoreDialog takes the spectrum shown now (the press of S or
// Store) and asks for its name (the time by default) before storing it.
func (p *References) StoreDialog() {
	sp, avg, err := p.host.ShownSpectrum()
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
	name.SetText("ref " + p.host.Clock().Format("15:04:05"))
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
	d.Show()
	p.win.Canvas().Focus(name)
}

// loadDialog asks for a reference CSV and loads it; a bad file
// is an error dialog naming the line.
func (p *References) loadDialog() {
	p.host.ChooseFile(storage.NewExtensionFileFilter([]string{".csv", ".CSV"}), p.Load)
}

// saveDialog asks where to save reference i as CSV.
func (p *References) saveDialog(i int) {
	if i < 0 || i >= len(p.set.Refs()) {
		return
	}
	p.host.SaveDialog(p.set.Refs()[i].Trace.Name+".csv", func(path string) {
		if err := p.Save(i, path); err != nil {
			dialog.ShowError(err, p.win)
		}
	})
}

// Store stores the spectrum shown (live: the average if one is
// on, else the latest, of the first channel shown; file: the spectrum
// under the cursor) as a reference named name.
func (p *References) Store(name string) error {
	sp, avg, err := p.host.ShownSpectrum()
	if err != nil {
		return err
	}
	t, err := view.TraceOf(name, view.ShownLevels(sp, avg), sp.BinHz)
	if err != nil {
		return err
	}
	return p.add(t)
}

// Load reads a reference CSV (freq_hz,level, as `prism
// spectrum` writes it), named after the file ("NAME (2)" if a reference
// has that name).
func (p *References) Load(path string) error {
	t, err := dsp.ReadTraceFile(path)
	if err != nil {
		return fmt.Errorf("prism: load reference: %w", err)
	}
	// a file loaded again, or one named like a stored reference: the
	// name with a number
	base := t.Name
	for n := 2; p.index(t.Name) >= 0; n++ {
		t.Name = base + " (" + strconv.Itoa(n) + ")"
	}
	return p.add(t)
}

// Save writes reference i to path as CSV (freq_hz,level, every
// value exact), through a temporary file renamed into place.
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
	p.host.ReferencesChanged()
	return p.forget(r)
}

// Show draws reference i over the spectra or hides it.
func (p *References) Show(i int, on bool) {
	if i >= 0 && i < len(p.set.Refs()) && p.set.Refs()[i].Shown != on {
		p.set.SetShown(i, on)
		p.host.ReferencesChanged()
	}
}

// Refs are the stored references, in order.
func (p *References) Refs() []*view.Reference { return p.set.Refs() }

// SetDifference shows the spectrum shown less reference i (−1: the
// spectra again) in the spectrum's place, live and in the file tab.
func (p *References) SetDifference(i int) {
	if i >= len(p.set.Refs()) {
		i = -1
	}
	p.set.SetDiffTo(i)
	p.host.ReferencesChanged()
}
