package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"github.com/prismaudio/prism/ui/panel"
)

// The Measure tab (panel.Measure and its view): a sweep measurement. While
// it is shown the spectrum analysis is paused (the session still records
// the input for the measurement) and the side panel shows the Measure
// panel; its view is drawn when a measurement ends, not pulled.

func (w *Window) buildMeasure() {
	w.mp = panel.NewMeasure(w.eng, (*host)(w), w.note, w.do, w.stats.Channels)
	w.mp.OnStore = w.rp.StoreTrace
	w.measTab = container.NewTabItem("Measure", w.mp.View())
	w.measSide = container.NewVScroll(w.mp.Content())
	w.measSide.SetMinSize(fyne.NewSize(280, 200))
	w.measSide.Hide()
	w.mp.ListOutputs()
}

// showMeasure shows the Measure panel while its tab is shown (after
// showWorkspace chose between the others).
func (w *Window) showMeasure(t *container.TabItem) {
	if t == w.measTab {
		w.liveSide.Hide()
		w.xferSide.Hide()
		w.measSide.Show()
		return
	}
	w.measSide.Hide()
}
