package ui

import (
	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// Preference keys of the plot view (view.PlotView).
const (
	prefFreqMin   = prefPrefix + "plot.freq.min"
	prefFreqMax   = prefPrefix + "plot.freq.max"
	prefSmoothing = prefPrefix + "plot.smoothing"
)

// loadPlotView reads the plot view saved (a value that no longer makes
// sense reads as the default: the full range, no smoothing).
func loadPlotView(p fyne.Preferences) view.PlotView {
	v := view.PlotView{FreqMin: p.FloatWithFallback(prefFreqMin, 0), FreqMax: p.FloatWithFallback(prefFreqMax, 0),
		Smoothing: p.IntWithFallback(prefSmoothing, 0)}
	return v.Sane()
}

// savePlotView writes the plot view to the preferences.
func savePlotView(p fyne.Preferences, v view.PlotView) {
	p.SetFloat(prefFreqMin, v.FreqMin)
	p.SetFloat(prefFreqMax, v.FreqMax)
	p.SetInt(prefSmoothing, v.Smoothing)
}

// singleChannel is the input channel (from 0) that Settings.Channels
// shows alone ("ch1" … "ch8"), or −1 (the mix, or every channel).
// It does not allocate (the per-frame pull asks).
func singleChannel(s string) int {
	if len(s) != 3 || s[:2] != "ch" || s[2] < '1' || s[2] > '8' {
		return -1
	}
	return int(s[2] - '1')
}

// buildPlotControls makes the plot section (panel.Plot), with extra (the
// exports) under it.
func (w *Window) buildPlotControls(extra fyne.CanvasObject) fyne.CanvasObject {
	w.pc = panel.NewPlot((*host)(w))
	return w.pc.Build(extra)
}

// PlotView is the plot view shown (panel.PlotHost).
func (h *host) PlotView() view.PlotView { return h.set.Plot }

// ChangePlot changes the plot view by fn and applies it (panel.PlotHost).
func (h *host) ChangePlot(fn func(v *view.PlotView)) {
	(*Window)(h).change(func(s *Settings) { fn(&s.Plot) })
}

// FreqRange is the live spectrum's frequency axis shown (panel.PlotHost).
func (h *host) FreqRange() (lo, hi float64) { return h.spec.FreqRange() }

// applyPlotView brings the spectra to the plot view's settings, and
// listens to their zooms (installed once).
func (w *Window) applyPlotView() {
	pv := w.set.Plot
	for _, v := range []*view.SpectrumView{w.spec, w.fspec} {
		v.SetFreqRange(pv.FreqMin, pv.FreqMax)
		v.SetSmoothing(pv.Smoothing)
		if v.OnRange == nil {
			v.OnRange = w.zoomed
		}
	}
	w.wf.SetFreqRange(pv.FreqMin, pv.FreqMax) // under the live spectrum, on its axis
	if w.pc != nil {
		w.pc.Sync()
	}
}

// zoomed keeps a zoom or drag on a spectrum: its frequency range and its
// dB range (less the calibration's shift: Settings' dB range is the
// unshifted one) become the settings, so both spectra, the waterfall's
// colours and the next start follow.
func (w *Window) zoomed(fLo, fHi, dbMin, dbMax float64) {
	shift, _ := w.cal.Axes(w.set.calSettings())
	lo, hi := dbMin-shift, dbMax-shift
	if d := dbFloor - lo; d > 0 { // kept within what the plots may show
		lo, hi = lo+d, hi+d
	}
	if d := hi - dbCeiling; d > 0 {
		lo, hi = max(dbFloor, lo-d), hi-d
	}
	w.change(func(s *Settings) {
		s.Plot.FreqMin, s.Plot.FreqMax = fLo, fHi
		s.DBMin, s.DBMax = lo, hi
	})
}

// lowerChannel is the output channel the waterfall, the RTA and a
// recording of the analysis follow: the channel shown alone, else the mix.
func (w *Window) lowerChannel() int {
	if c := singleChannel(w.set.Channels); c >= 0 && c < w.stats.Channels && w.stats.Channels > 1 {
		return c
	}
	return w.stats.Channels
}

// channelName is input channel c's name in the legend: L and R of a
// stereo input, else "ch N".
func channelName(c, channels int) string {
	if channels == 2 {
		return [2]string{"L", "R"}[c]
	}
	return channelNames[c]
}
