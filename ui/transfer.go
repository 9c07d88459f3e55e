package ui

import (
	"time"

	"github.com/prismaudio/prism/app/dsp"

	"fyne.io/fyne/v2/container"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/panel"
)

// The Transfer tab (panel.Transfer and its view): while it is shown the
// spectrum analysis is paused (the session still feeds the transfer
// analyzer), the side panel shows the Transfer panel, and each frame
// pulls its view.

var _ panel.TransferHost = (*host)(nil)

func (w *Window) buildTransfer() {
	w.tp = panel.NewTransfer(w.eng, (*host)(w), w.win, w.do, nil, w.stats.Channels)
	w.xferTab = container.NewTabItem("Transfer", w.tp.View())
	// the references: a transfer function stored here is kept with the
	// others; those shown are drawn over the transfer view
	w.tp.OnStore = func(t *dsp.Trace) {
		if err := w.rp.StoreTrace(t); err != nil {
			w.note.Fail("The transfer function was not stored as a reference.", err)
			return
		}
		w.note.Info("Stored " + t.Name + " as a reference (References lists it).")
	}
	w.rp.OnChange = func() { w.tp.SetReferences(w.rp.Transfers()) }
}

// The Transfer tab's keys, in the keys overlay's table.
func init() {
	for _, k := range panel.TransferKeys {
		keyRows = append(keyRows, keyRow{k.Key, k.Help, "Transfer"})
	}
}

// showWorkspace shows tab t's side panel and runs the transfer analyzer
// while its tab is shown.
func (w *Window) showWorkspace(t *container.TabItem) {
	if t == w.xferTab {
		w.liveSide.Hide()
		w.xferSide.Show()
		w.tp.Activate()
		return
	}
	w.tp.Deactivate()
	w.xferSide.Hide()
	w.liveSide.Show()
}

// pullTransfer pulls the transfer view within the views' share of the
// window's time (pullShare), as the live views do.
func (w *Window) pullTransfer() {
	start := w.now()
	if start.Before(w.pullDue) {
		return
	}
	w.tp.View().SetDark(w.set.Theme != "light")
	w.tp.Pull()
	if w.pullShare > 1 {
		w.pullDue = start.Add(w.now().Sub(start) * time.Duration(w.pullShare))
	}
}

// closeTransfer stops the analyzer; a stress preset still on gives the
// source back (the preset is never saved).
func (w *Window) closeTransfer() {
	if w.tp.Stressed() {
		w.set.Source = w.tp.PresetSource()
	}
	w.tp.Close()
}

// Source is the source the window asks for (panel.TransferHost).
func (h *host) Source() session.SourceSpec { return h.set.Source }

// UseSource switches the source as the source control does.
func (h *host) UseSource(spec session.SourceSpec) {
	(*Window)(h).change(func(s *Settings) { s.Source = spec })
	(*Window)(h).syncControls()
}
