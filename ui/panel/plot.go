package panel

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/ui/view"
)

// smoothingLabel names view.SmoothingFractions in the control.
func smoothingLabel(f int) string {
	if f == 0 {
		return "No smoothing"
	}
	return fmt.Sprintf("1/%d octave", f)
}

// PlotHost is what the plot section needs of the window.
type PlotHost interface {
	PlotView() view.PlotView
	// ChangePlot changes the plot view by fn and applies it.
	ChangePlot(fn func(v *view.PlotView))
	FreqRange() (lo, hi float64) // Hz, the live spectrum's axis shown
}

// Plot is the side panel's plot section: smoothing, the frequency range
// (Enter applies; Full goes back to the whole axis) and the exports under
// them; the dB range is the controls' presets or the wheel and drag on
// the plot.
type Plot struct {
	host   PlotHost
	smooth *widget.Select
	lo, hi *widget.Entry
	msg    *widget.Label
}

// NewPlot makes the section; Build makes its widgets.
func NewPlot(host PlotHost) *Plot { return &Plot{host: host} }

// Build makes the section, with extra (the exports) under it.
func (p *Plot) Build(extra fyne.CanvasObject) fyne.CanvasObject {
	c := p
	var labels []string
	for _, f := range view.SmoothingFractions {
		labels = append(labels, smoothingLabel(f))
	}
	c.smooth = widget.NewSelect(labels, func(v string) {
		i := slices.Index(labels, v)
		if i < 0 || view.SmoothingFractions[i] == p.host.PlotView().Smoothing {
			return
		}
		p.host.ChangePlot(func(v *view.PlotView) { v.Smoothing = view.SmoothingFractions[i] })
	})
	c.lo, c.hi = widget.NewEntry(), widget.NewEntry()
	c.lo.SetPlaceHolder("20")
	c.hi.SetPlaceHolder("Nyquist")
	c.msg = widget.NewLabel("")
	c.msg.Importance = widget.DangerImportance
	c.msg.Wrapping = fyne.TextWrapWord
	c.msg.Hide()
	apply := func(string) { p.SetFreqRangeText(c.lo.Text, c.hi.Text) }
	c.lo.OnSubmitted, c.hi.OnSubmitted = apply, apply
	full := widget.NewButton("Full", func() {
		p.host.ChangePlot(func(v *view.PlotView) { v.FreqMin, v.FreqMax = 0, 0 })
	})
	hz := container.NewBorder(nil, nil, widget.NewLabel("Hz"), full, container.NewGridWithColumns(2, c.lo, c.hi))
	p.Sync()
	hint := widget.NewLabel("On the spectrum: the wheel zooms (over the dB labels: the dB axis), a drag moves, a double-click shows the full range, a click sets the marker M.")
	hint.Wrapping = fyne.TextWrapWord
	hint.Importance = widget.LowImportance
	return container.NewVBox(
		widget.NewLabelWithStyle("Plot", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		hint,
		container.NewBorder(nil, nil, widget.NewLabel("Smoothing"), nil, c.smooth),
		hz, c.msg, extra)
}

// SetFreqRangeText applies a frequency range typed in the plot section
// ("" for an end: the full axis's); a bad one is said under the fields.
func (p *Plot) SetFreqRangeText(loText, hiText string) {
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
	c := p
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
	p.host.ChangePlot(func(v *view.PlotView) { v.FreqMin, v.FreqMax = lo, hi })
}

// Sync shows the plot view's settings in its controls.
func (p *Plot) Sync() {
	c := p
	if c.smooth == nil {
		return
	}
	c.smooth.SetSelected(smoothingLabel(p.host.PlotView().Smoothing))
	lo, hi := p.host.FreqRange()
	c.lo.SetText(strconv.FormatFloat(math.Round(lo*10)/10, 'f', -1, 64))
	c.hi.SetText(strconv.FormatFloat(math.Round(hi*10)/10, 'f', -1, 64))
}

// Entries are the frequency range's fields and the smoothing control
// (the window's tests type and choose in them as a person does).
func (p *Plot) Entries() (lo, hi *widget.Entry, smooth *widget.Select) { return p.lo, p.hi, p.smooth }

// Problem says whether a typed range was refused (shown under the fields).
func (p *Plot) Problem() bool { return p.msg.Visible() }
