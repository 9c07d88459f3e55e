package ui

import (
	"time"

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
