// A/B comparison in the file tab: the open file (A) and a second file (B)
// each analysed into its long-term spectrum by the pipeline of `prism
// spectrum` (Welch, power-averaged), both drawn, and B − A beneath.

package view

import (
	"errors"
	"fmt"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
)

// ABView shows two files' long-term spectra (A and B, labelled with the
// files' names) and their difference B − A. Only the Fyne goroutine uses
// it.
type ABView struct {
	widget.BaseWidget
	spectra *LinePlot // A and B
	diff    *LinePlot // B − A
	info    *widget.Label
	content fyne.CanvasObject
	active  bool
	OnClose func() // the Close button
}

// NewABView makes an empty A/B view.
func NewABView() *ABView {
	v := &ABView{spectra: NewLinePlot("dBFS", -120, 0), diff: NewLinePlot("dB", -DiffRangeDB, DiffRangeDB), info: widget.NewLabel("")}
	v.diff.SetZeroLine(true)
	v.info.Truncation = fyne.TextTruncateEllipsis
	closeBtn := widget.NewButton("Close A/B", func() {
		if v.OnClose != nil {
			v.OnClose()
		}
	})
	v.content = container.NewBorder(container.NewBorder(nil, nil, nil, closeBtn, v.info), nil, nil, nil,
		container.NewGridWithRows(2, v.spectra, v.diff))
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *ABView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.content) }

// SetDisplay follows the frequency scale and theme.
func (v *ABView) SetDisplay(scale plot.Scale, dark bool) {
	for _, p := range []*LinePlot{v.spectra, v.diff} {
		p.SetConfig(p.rate, p.fft, scale)
		p.SetDark(dark)
		p.Refresh()
	}
}

// Spectra is the plot of A's and B's spectra; DiffPlot that of B − A.
func (v *ABView) Spectra() *LinePlot { return v.spectra }

// DiffPlot is the plot of B − A.
func (v *ABView) DiffPlot() *LinePlot { return v.diff }

// Info is the line above the plots.
func (v *ABView) Info() string { return v.info.Text }

// Active says whether a comparison is shown.
func (v *ABView) Active() bool { return v.active }

// SetResults shows spectra a and b (one column each, of one sample rate
// and size) of files nameA and nameB, and b − a: B's levels less A's,
// A taken as a reference trace (dsp.Trace.Difference, as `prism spectrum
// --ref` does).
func (v *ABView) SetResults(nameA, nameB string, a, b analysis.SpectrumResult, scale plot.Scale) error {
	if len(a.Levels) == 0 || len(b.Levels) == 0 {
		return errors.New("prism: A/B: no spectrum")
	}
	if a.SampleRate != b.SampleRate || a.FFT != b.FFT {
		return fmt.Errorf("prism: A/B: A is %d Hz, B %d Hz: compare files of one sample rate", a.SampleRate, b.SampleRate)
	}
	ref, err := dsp.NewTrace(nameA, a.FreqHz, a.Levels[0])
	if err != nil {
		return fmt.Errorf("prism: A/B: %w", err)
	}
	d := make([]float64, len(b.FreqHz))
	ref.Difference(d, b.FreqHz, b.Levels[0])
	for k := range d {
		if math.IsNaN(d[k]) { // silent in both (−Inf − −Inf): no difference, as DifferenceDB
			d[k] = 0
		}
	}
	pal := paletteFor(true)
	lines := v.spectra.SetLines(2)
	lines[0] = plotLine{Name: "A: " + nameA, DB: toFloat32(a.Levels[0]), Color: pal.traces[0]}
	lines[1] = plotLine{Name: "B: " + nameB, DB: toFloat32(b.Levels[0]), Color: pal.traces[1]}
	dl := &v.diff.SetLines(1)[0]
	*dl = plotLine{Name: "B − A", DB: toFloat32(d), Color: refColors[0]}
	for _, p := range []*LinePlot{v.spectra, v.diff} {
		p.SetConfig(a.SampleRate, a.FFT, scale)
		p.Refresh()
	}
	v.spectra.SetTitle("long-term spectra (Welch, N=" + fmt.Sprint(a.FFT) + ")")
	v.diff.SetTitle("B − A")
	v.info.SetText(fmt.Sprintf("A: %s · B: %s · %d Hz, N=%d hop %d · %d and %d frames averaged in power",
		nameA, nameB, a.SampleRate, a.FFT, a.Hop, a.Frames, b.Frames))
	v.active = true
	return nil
}

// toFloat32 converts levels for the plot.
func toFloat32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// Clear marks the comparison ended (Active reports false).
func (v *ABView) Clear() { v.active = false }
