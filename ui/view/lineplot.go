package view

import (
	"image"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/plot"
)

// LinePlot draws named per-bin traces (bins 0…N/2 of one geometry) on a
// frequency axis with its own labelled dB axis and a legend: the
// difference to a reference (around 0 dB) and the A/B comparison. Each
// trace is mapped by its own length through the same bin maps as the
// spectrum, so a column shows the maximum of the bins it covers. Only the
// Fyne goroutine uses it.
type LinePlot struct {
	plotBase
	rate, fft    int
	axis         plot.FreqAxis
	maps         binMaps
	dbMin, dbMax float64
	unit, title  string
	titleKey     string // unit and title, for the background cache
	zero         bool   // mark 0 dB
	lines        []plotLine
	legend       []legendItem
	hover        bool
	cursorX      float32 // widget units
	readout      []byte
}

// plotLine is one trace of a LinePlot: its legend label, its levels (dB,
// one per bin) and colour.
type plotLine struct {
	Name  string
	DB    []float32
	Color color.RGBA
	Freqs []float64 // DB's bins' centre frequencies (an analysis mode's, modes.go); nil: uniform
}

// NewLinePlot makes an empty plot whose dB axis is labelled unit.
func NewLinePlot(unit string, dbMin, dbMax float64) *LinePlot {
	v := &LinePlot{dbMin: dbMin, dbMax: dbMax}
	v.SetUnit(unit)
	v.dark = true
	v.SetConfig(48000, 4096, plot.Log)
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *LinePlot) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(320, 120))
}

// SetConfig sets the sample rate, FFT size and frequency scale.
func (v *LinePlot) SetConfig(rate, fft int, scale plot.Scale) {
	if rate > 0 && fft >= 2 {
		v.rate, v.fft, v.axis = rate, fft, plot.NewFreqAxis(scale, rate, fft)
	}
}

// SetRange sets the dB axis.
func (v *LinePlot) SetRange(dbMin, dbMax float64) {
	if dbMin < dbMax {
		v.dbMin, v.dbMax = dbMin, dbMax
	}
}

// Range is the dB axis.
func (v *LinePlot) Range() (dbMin, dbMax float64) { return v.dbMin, v.dbMax }

// SetTitle sets the label in the top-left corner.
func (v *LinePlot) SetTitle(s string) {
	v.title = s
	v.titleKey = v.unit + "\x00" + v.title
}

// SetUnit labels the dB axis.
func (v *LinePlot) SetUnit(s string) {
	v.unit = s
	v.titleKey = v.unit + "\x00" + v.title
}

// SetZeroLine marks 0 dB with a brighter grid line.
func (v *LinePlot) SetZeroLine(on bool) { v.zero = on }

// SetDark chooses the palette.
func (v *LinePlot) SetDark(dark bool) { v.dark = dark }

// SetLines keeps n traces (their slices are reused) and returns them for
// the caller to fill: Name, Color and DB.
func (v *LinePlot) SetLines(n int) []plotLine {
	for len(v.lines) < n {
		v.lines = append(v.lines, plotLine{})
	}
	v.lines = v.lines[:n]
	return v.lines
}

// Lines are the traces shown.
func (v *LinePlot) Lines() []plotLine { return v.lines }

// Image is the last frame drawn.
func (v *LinePlot) Image() *image.RGBA { return v.img }

// Legend is the legend last drawn.
func (v *LinePlot) Legend() []legendItem { return v.legend }

func (v *LinePlot) legendKey() int {
	k := len(v.lines)
	for i, l := range v.lines {
		for _, r := range l.Name {
			k = k*31 + int(r) + i
		}
		k = k*31 + int(l.Color.R)<<16 + int(l.Color.G)<<8 + int(l.Color.B)
	}
	if v.zero {
		k++
	}
	return k
}

func (v *LinePlot) draw(w, h int) image.Image {
	key := bgKey{axis: v.axis, dbMin: v.dbMin, dbMax: v.dbMax, extraS: v.titleKey, extraI: v.legendKey()}
	if v.begin(w, h, key) {
		v.drawBackground()
	}
	v.fromBackground()
	for _, l := range v.lines {
		drawTrace(&v.p, v.area, v.maps.getFor(v.axis, v.area.Dx(), v.rate, len(l.DB), l.Freqs), l.DB, v.dbMin, v.dbMax, l.Color, false)
	}
	v.drawCursor()
	return v.img
}

// MouseIn, MouseMoved and MouseOut implement desktop.Hoverable: the
// readout of every trace at the cursor's frequency.
func (v *LinePlot) MouseIn(e *desktop.MouseEvent) { v.MouseMoved(e) }

// MouseMoved implements desktop.Hoverable.
func (v *LinePlot) MouseMoved(e *desktop.MouseEvent) {
	v.hover, v.cursorX = true, e.Position.X
	v.raster.Refresh()
}

// MouseOut implements desktop.Hoverable.
func (v *LinePlot) MouseOut() {
	v.hover = false
	v.raster.Refresh()
}

// Readout is the cursor readout (empty when the cursor is not over the
// plot): the frequency, then each trace's name and level there.
func (v *LinePlot) Readout() string { return string(v.readout) }

// drawCursor draws the cursor line and the readout on the plot's second
// line, on the side of the cursor with more room.
func (v *LinePlot) drawCursor() {
	v.readout = v.readout[:0]
	px := v.pixelX(v.cursorX)
	if !v.hover || px < 0 {
		return
	}
	pal := paletteFor(v.dark)
	a := v.area
	p := &v.p
	f := v.axis.Freq((float64(px) + 0.5) / float64(a.Dx()))
	p.dashedV(a.Min.X+px, a.Min.Y, a.Max.Y, pal.cursor)
	b := appendHz(v.readout, f)
	binHz := float64(v.rate) / float64(v.fft)
	for _, l := range v.lines {
		b = append(b, "   "...)
		b = append(b, l.Name...)
		b = append(b, ' ')
		b = appendRatio(b, levelOf(l.DB, binHz, l.Freqs, f))
	}
	v.readout = b
	x, ax := a.Min.X+px+p.px(6), 0.0
	if px > a.Dx()/2 {
		x, ax = a.Min.X+px-p.px(6), 1
	}
	p.textBytes(b, x, a.Min.Y+p.px(4)+p.textHeight()+p.px(2), ax, 0, pal.cursor)
}

func (v *LinePlot) drawBackground() {
	pal := paletteFor(v.dark)
	p := &v.p
	a := v.area
	v.clear()
	v.drawDBGrid(v.dbMin, v.dbMax)
	v.drawFreqGrid(v.axis, true)
	if v.zero && v.dbMin < 0 && v.dbMax > 0 {
		p.hline(a.Min.X, a.Max.X, dbToY(0, v.dbMin, v.dbMax, a.Min.Y, a.Max.Y), pal.gridMajor)
	}
	p.text(v.unit, p.px(4), p.px(2), 0, 0, pal.text)
	if v.title != "" {
		p.text(v.title, a.Min.X+p.px(4), p.px(2), 0, 0, pal.text)
	}
	v.legend = v.legend[:0]
	for _, l := range v.lines {
		v.legend = append(v.legend, legendItem{Label: l.Name, Color: l.Color})
	}
	drawLegendItems(p, v.legend, a.Max.X, p.px(2), pal)
}

// drawLegendItems draws legend entries right-aligned to x, at y: a
// swatch in each item's colour (dashed if so) and its label; it records
// where each swatch went.
func drawLegendItems(p *painter, items []legendItem, right, y int, pal *palette) {
	sw, gap, pad := p.px(16), p.px(4), p.px(12)
	total := 0
	for _, it := range items {
		total += sw + gap + it.width(p) + pad
	}
	x := right - total + pad
	mid := y + p.textHeight()/2
	for i := range items {
		it := &items[i]
		it.Swatch = image.Rect(x, mid-1, x+sw, mid+1)
		for sx := x; sx < x+sw; sx++ {
			if !it.Dashed || (sx-x)%9 < 6 {
				p.vline(sx, mid-1, mid, it.Color)
			}
		}
		x += sw + gap
		if len(it.buf) > 0 {
			x += p.textBytes(it.buf, x, y, 0, 0, pal.text) + pad
		} else {
			x += p.text(it.Label, x, y, 0, 0, pal.text) + pad
		}
	}
}

// drawTrace draws a per-bin trace (dB) as a line across area through its
// bin map m (nil: nothing), joining columns with vertical steps split
// half and half (dashed: 6 columns drawn, 3 left out).
func drawTrace(p *painter, a image.Rectangle, m *binMap, db []float32, dbMin, dbMax float64, c color.RGBA, dashed bool) {
	if m == nil {
		return
	}
	prev := -1
	for x := range m.width() {
		y := dbToY(m.value(x, db), dbMin, dbMax, a.Min.Y, a.Max.Y)
		switch {
		case dashed && x%9 >= 6:
			prev = -1
			continue
		case prev < 0:
			p.set(a.Min.X+x, y, c)
		default:
			// join to the previous column: half the step here, half there
			mid := (prev + y) / 2
			p.vline(a.Min.X+x-1, prev, mid, c)
			p.vline(a.Min.X+x, mid, y, c)
		}
		prev = y
	}
}

// SetScale changes the frequency scale, keeping
// the rate and FFT size.
func (v *LinePlot) SetScale(scale plot.Scale) { v.SetConfig(v.rate, v.fft, scale) }

// Redraw repaints the plot (the traces changed in place).
func (v *LinePlot) Redraw() { v.raster.Refresh() }

// FirstLine is SetLines(1)'s line, whose levels are at the bins' centre
// frequencies freqs (an analysis mode's, modes.go; nil: uniform bins).
func (v *LinePlot) FirstLine(freqs []float64) *plotLine {
	l := &v.SetLines(1)[0]
	l.Freqs = freqs
	return l
}
