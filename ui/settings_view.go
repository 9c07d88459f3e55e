package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/ui/view"
)

// PlotView is how the spectra are shown beyond the dB range (Settings'
// DBMin/DBMax, which a zoom changes freely): the frequency range (0 for
// an end: the full axis's, 20 Hz or 0 … Nyquist) and the 1/N-octave
// smoothing of the traces (0 off; view.SmoothingFractions).
type PlotView struct {
	FreqMin, FreqMax float64 // Hz
	Smoothing        int
}

// Preference keys of PlotView.
const (
	prefFreqMin   = prefPrefix + "plot.freq.min"
	prefFreqMax   = prefPrefix + "plot.freq.max"
	prefSmoothing = prefPrefix + "plot.smoothing"
)

// loadPlotView reads the plot view saved (a value that no longer makes
// sense reads as the default: the full range, no smoothing).
func loadPlotView(p fyne.Preferences) PlotView {
	v := PlotView{FreqMin: p.FloatWithFallback(prefFreqMin, 0), FreqMax: p.FloatWithFallback(prefFreqMax, 0),
		Smoothing: p.IntWithFallback(prefSmoothing, 0)}
	return v.sane()
}

// sane drops what no longer makes sense.
func (v PlotView) sane() PlotView {
	ok := func(f float64) bool { return f >= 0 && f < 1e7 && !math.IsNaN(f) }
	if !ok(v.FreqMin) || !ok(v.FreqMax) || (v.FreqMax > 0 && v.FreqMin >= v.FreqMax) {
		v.FreqMin, v.FreqMax = 0, 0
	}
	found := false
	for _, f := range view.SmoothingFractions {
		found = found || f == v.Smoothing
	}
	if !found {
		v.Smoothing = 0
	}
	return v
}

// save writes the plot view to the preferences.
func (v PlotView) save(p fyne.Preferences) {
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

// smoothingLabels name view.SmoothingFractions in the control.
func smoothingLabel(f int) string {
	if f == 0 {
		return "No smoothing"
	}
	return fmt.Sprintf("1/%d octave", f)
}

// plotControls are the side panel's plot section: smoothing, the
// frequency range (Enter applies; Full goes back to the whole axis) and
// the exports under them; the dB range is the controls' presets or
// the wheel and drag on the plot.
type plotControls struct {
	smooth *widget.Select
	lo, hi *widget.Entry
	msg    *widget.Label
}

// buildPlotControls makes the section, with extra (the exports) under it.
func (w *Window) buildPlotControls(extra fyne.CanvasObject) fyne.CanvasObject {
	c := &w.pc
	var labels []string
	for _, f := range view.SmoothingFractions {
		labels = append(labels, smoothingLabel(f))
	}
	c.smooth = widget.NewSelect(labels, func(v string) {
		i := indexOf(labels, v)
		if i < 0 || view.SmoothingFractions[i] == w.set.Plot.Smoothing {
			return
		}
		w.change(func(s *Settings) { s.Plot.Smoothing = view.SmoothingFractions[i] })
	})
	c.lo, c.hi = widget.NewEntry(), widget.NewEntry()
	c.lo.SetPlaceHolder("20")
	c.hi.SetPlaceHolder("Nyquist")
	c.msg = widget.NewLabel("")
	c.msg.Importance = widget.DangerImportance
	c.msg.Wrapping = fyne.TextWrapWord
	c.msg.Hide()
	apply := func(string) { w.setFreqRangeText(c.lo.Text, c.hi.Text) }
	c.lo.OnSubmitted, c.hi.OnSubmitted = apply, apply
	full := widget.NewButton("Full", func() {
		w.change(func(s *Settings) { s.Plot.FreqMin, s.Plot.FreqMax = 0, 0 })
	})
	hz := container.NewBorder(nil, nil, widget.NewLabel("Hz"), full, container.NewGridWithColumns(2, c.lo, c.hi))
	w.syncPlotControls()
	hint := widget.NewLabel("On the spectrum: the wheel zooms (over the dB labels: the dB axis), a drag moves, a double-click shows the full range, a click sets the marker M.")
	hint.Wrapping = fyne.TextWrapWord
	hint.Importance = widget.LowImportance
	return container.NewVBox(
		widget.NewLabelWithStyle("Plot", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		hint,
		container.NewBorder(nil, nil, widget.NewLabel("Smoothing"), nil, c.smooth),
		hz, c.msg, extra)
}

// setFreqRangeText applies a frequency range typed in the plot section
// ("" for an end: the full axis's); a bad one is said under the fields.
func (w *Window) setFreqRangeText(loText, hiText string) {
	parse := func(t string) (float64, error) {
		t = strings.TrimSpace(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(t)), "hz"))
		if t == "" {
			return 0, nil
		}
		mul := 1.0
		if strings.HasSuffix(t, "k") {
			mul, t = 1000, strings.TrimSuffix(t, "k")
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%q is not a frequency", t)
		}
		return f * mul, nil
	}
	lo, err1 := parse(loText)
	hi, err2 := parse(hiText)
	c := &w.pc
	switch {
	case err1 != nil || err2 != nil:
		c.msg.SetText("Type frequencies in Hz (or 2k for 2000 Hz), the lower first.")
		c.msg.Show()
		return
	case hi > 0 && lo >= hi:
		c.msg.SetText("The lower frequency must be below the upper one.")
		c.msg.Show()
		return
	}
	c.msg.Hide()
	w.change(func(s *Settings) { s.Plot.FreqMin, s.Plot.FreqMax = lo, hi })
}

// syncPlotControls shows the plot view's settings in its controls.
func (w *Window) syncPlotControls() {
	c := &w.pc
	if c.smooth == nil {
		return
	}
	c.smooth.SetSelected(smoothingLabel(w.set.Plot.Smoothing))
	lo, hi := w.spec.FreqRange()
	c.lo.SetText(strconv.FormatFloat(math.Round(lo*10)/10, 'f', -1, 64))
	c.hi.SetText(strconv.FormatFloat(math.Round(hi*10)/10, 'f', -1, 64))
}

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
	w.syncPlotControls()
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
