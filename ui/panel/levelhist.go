package panel

import (
	"fmt"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live/levelhist"
	"github.com/prismaudio/prism/ui/view"
)

// LevelEngine is what the level-history strip needs of the analysis
// (session.Session): the input's level history.
type LevelEngine interface {
	LevelHistory() *levelhist.History
}

// LevelHost is what the strip needs of the window.
type LevelHost interface {
	SaveDialog(name string, fn func(path string))
}

// LevelHistory is the level-history strip under the Live workspace's
// plots and meters (hidden until Toggle, key W): the view, its span
// (a minute to 12 h) and the CSV export of the history (the level log of
// `prism levels --every`, in dB SPL when the level is calibrated). Only
// the Fyne goroutine uses it.
type LevelHistory struct {
	eng    LevelEngine
	host   LevelHost
	note   *Notice
	name   func() string // the source's name, for the proposed file name
	view   *view.LevelHistoryView
	span   *widget.Select
	box    *fyne.Container
	offset float64 // the calibration's, for the export
}

// NewLevelHistory makes the strip, hidden.
func NewLevelHistory(eng LevelEngine, host LevelHost, note *Notice, name func() string) *LevelHistory {
	p := &LevelHistory{eng: eng, host: host, note: note, name: name, view: view.NewLevelHistoryView()}
	labels := make([]string, len(view.LevelSpans))
	for i, d := range view.LevelSpans {
		labels[i] = spanLabel(d)
	}
	p.span = widget.NewSelect(labels, func(s string) {
		for i, l := range labels {
			if l == s {
				p.view.SetSpan(view.LevelSpans[i])
			}
		}
	})
	p.span.SetSelected(spanLabel(p.view.Span()))
	export := widget.NewButton("Export levels…", p.ExportDialog)
	p.box = container.NewBorder(nil, nil, nil, container.NewVBox(p.span, export), p.view)
	p.box.Hide()
	return p
}

// spanLabel is a span's name in the picker: "10 min", "1 h".
func spanLabel(d time.Duration) string {
	if d >= time.Hour {
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	return fmt.Sprintf("%d min", int(d/time.Minute))
}

// Object is the strip for the window to lay out.
func (p *LevelHistory) Object() fyne.CanvasObject { return p.box }

// View is the strip's view.
func (p *LevelHistory) View() *view.LevelHistoryView { return p.view }

// Toggle shows or hides the strip.
func (p *LevelHistory) Toggle() {
	if p.box.Visible() {
		p.box.Hide()
	} else {
		p.box.Show()
		p.Pull()
	}
}

// Shown says whether the strip shows.
func (p *LevelHistory) Shown() bool { return p.box.Visible() }

// Pull brings the view up to date with the history (while shown).
func (p *LevelHistory) Pull() {
	if p.box.Visible() {
		p.view.Pull(p.eng.LevelHistory())
	}
}

// SetDark chooses the dark or light palette.
func (p *LevelHistory) SetDark(dark bool) { p.view.SetDark(dark) }

// SetCalibration shows and exports the levels in dB SPL (on: dB SPL = dB
// re full scale + offsetDB) or in dB re full scale.
func (p *LevelHistory) SetCalibration(on bool, offsetDB float64) {
	p.view.SetCalibration(on, offsetDB)
	p.offset = 0
	if on {
		p.offset = offsetDB
	}
}

// ExportDialog asks where to save the level history as CSV.
func (p *LevelHistory) ExportDialog() {
	p.host.SaveDialog(ProposedName(p.name(), "levels", ".csv", time.Now()), func(path string) {
		if err := p.Export(path); err != nil {
			p.note.Error(err)
			return
		}
		p.note.Info("Saved the level history in " + path + ".")
	})
}

// Export writes the level history to path as CSV (time_s,laeq_db,…).
func (p *LevelHistory) Export(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.eng.LevelHistory().WriteCSV(f, p.offset); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
