package ui

import (
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// Averaging modes: which average the spectrum's average trace shows.
const (
	AvgOff = "off"
	AvgExp = "exp"
	AvgLin = "lin"
)

// SpectrumSource is where a SpectrumView pulls spectra from (live.Monitor).
type SpectrumSource interface {
	Latest(c int, dst *live.Spectrum)
}

// SpectrumView draws per-channel spectrum traces with average and
// peak-hold traces, a labelled frequency axis (log, linear or mel) and dB
// axis, the dominant peak with its interpolated frequency, a marked band,
// and a cursor readout on hover. Only the Fyne goroutine uses it.
type SpectrumView struct {
	plotBase
	spectra     []live.Spectrum // one per trace set shown
	n           int             // spectra in use
	rate, fft   int
	scale       string
	axis        plot.FreqAxis
	bmap        binMap
	bmapKey     [3]int // width, rate, fft the map was made for
	dbMin       float64
	dbMax       float64
	avg         string // AvgOff, AvgExp, AvgLin
	peakHold    bool
	bandLo      float64 // Hz; bandHi 0: no band marked
	bandHi      float64
	hover       bool
	cursorX     float32 // widget units
	readout     []byte
	peakLabel   []byte
	title       string
	OnHoverFreq func(f float64, ok bool) // optional: the frequency under the cursor
}

// NewSpectrumView makes a spectrum plot for rate and FFT size on a
// frequency scale ("log", "lin", "mel") and dB range.
func NewSpectrumView(rate, fft int, scale string, dbMin, dbMax float64) *SpectrumView {
	v := &SpectrumView{dbMin: dbMin, dbMax: dbMax, avg: AvgExp, peakHold: true}
	v.dark = true
	v.SetConfig(rate, fft, scale)
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *SpectrumView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(320, 160))
}

// SetConfig sets the sample rate, FFT size and frequency scale.
func (v *SpectrumView) SetConfig(rate, fft int, scale string) {
	if rate <= 0 || fft < 2 {
		return
	}
	axis, err := newFreqAxis(scale, rate, fft)
	if err != nil {
		return
	}
	v.rate, v.fft, v.scale, v.axis = rate, fft, scale, axis
	v.bmapKey = [3]int{}
}

// Axis is the frequency axis in use.
func (v *SpectrumView) Axis() plot.FreqAxis { return v.axis }

// SetRange sets the dB axis.
func (v *SpectrumView) SetRange(dbMin, dbMax float64) {
	if dbMin < dbMax {
		v.dbMin, v.dbMax = dbMin, dbMax
	}
}

// SetTraces chooses the average trace (AvgOff, AvgExp, AvgLin) and
// whether the peak-hold trace shows.
func (v *SpectrumView) SetTraces(avg string, peakHold bool) { v.avg, v.peakHold = avg, peakHold }

// SetBand marks the band lo…hi Hz (hi = 0: none; lo = 0: from 0 Hz).
func (v *SpectrumView) SetBand(lo, hi float64) { v.bandLo, v.bandHi = lo, hi }

// SetDark chooses the dark or light palette.
func (v *SpectrumView) SetDark(dark bool) { v.dark = dark }

// SetTitle sets the label drawn in the top-left corner.
func (v *SpectrumView) SetTitle(s string) { v.title = s }

// Pull copies the latest spectra of output channels chans from src and
// redraws. It does not allocate once the spectra have their size.
func (v *SpectrumView) Pull(src SpectrumSource, chans []int) {
	v.ensure(len(chans))
	for i, c := range chans {
		src.Latest(c, &v.spectra[i])
	}
	v.n = len(chans)
	v.raster.Refresh()
}

// ShowSpectrum displays one spectrum (a file's column under the cursor): only its
// Current trace is drawn.
func (v *SpectrumView) ShowSpectrum(sp *live.Spectrum) {
	v.ensure(1)
	d := &v.spectra[0]
	d.Current = append(d.Current[:0], sp.Current...)
	d.ExpAvg, d.LinAvg, d.PeakHold, d.MinHold = d.ExpAvg[:0], d.LinAvg[:0], d.PeakHold[:0], d.MinHold[:0]
	d.BinHz, d.Peak = sp.BinHz, sp.Peak
	v.n = 1
	v.raster.Refresh()
}

func (v *SpectrumView) ensure(n int) {
	for len(v.spectra) < n {
		v.spectra = append(v.spectra, live.Spectrum{})
	}
}

// MouseIn, MouseMoved and MouseOut implement desktop.Hoverable: the
// cursor readout.
func (v *SpectrumView) MouseIn(e *desktop.MouseEvent) { v.MouseMoved(e) }

// MouseMoved implements desktop.Hoverable.
func (v *SpectrumView) MouseMoved(e *desktop.MouseEvent) {
	v.hover, v.cursorX = true, e.Position.X
	if v.OnHoverFreq != nil {
		f, ok := v.FreqAt(e.Position.X)
		v.OnHoverFreq(f, ok)
	}
	v.raster.Refresh()
}

// MouseOut implements desktop.Hoverable.
func (v *SpectrumView) MouseOut() {
	v.hover = false
	if v.OnHoverFreq != nil {
		v.OnHoverFreq(0, false)
	}
	v.raster.Refresh()
}

// FreqAt is the frequency at widget x (units), and whether x is inside
// the plot area.
func (v *SpectrumView) FreqAt(x float32) (float64, bool) {
	if v.area.Dx() <= 0 {
		return 0, false
	}
	px := v.pixelX(x)
	if px < 0 {
		return 0, false
	}
	return v.axis.Freq((float64(px) + 0.5) / float64(v.area.Dx())), true
}

// XFor is the widget x (units) where frequency f is drawn.
func (v *SpectrumView) XFor(f float64) float32 {
	px := float64(v.area.Min.X) + v.axis.Pos(f)*float64(v.area.Dx())
	return float32(px) / max(v.p.scale, 1e-6)
}

// PlotArea is the plot area in widget units.
func (v *SpectrumView) PlotArea() (fyne.Position, fyne.Size) {
	s := max(v.p.scale, 1e-6)
	a := v.area
	return fyne.NewPos(float32(a.Min.X)/s, float32(a.Min.Y)/s), fyne.NewSize(float32(a.Dx())/s, float32(a.Dy())/s)
}

// Readout is the cursor readout text (empty when the cursor is not over
// the plot).
func (v *SpectrumView) Readout() string { return string(v.readout) }

// PeakLabel is the dominant peak's label.
func (v *SpectrumView) PeakLabel() string { return string(v.peakLabel) }

// Image is the last frame drawn (for exporting the view as PNG).
func (v *SpectrumView) Image() *image.RGBA { return v.img }

func (v *SpectrumView) draw(w, h int) image.Image {
	key := bgKey{axis: v.axis, dbMin: v.dbMin, dbMax: v.dbMax, extraS: v.title}
	if v.begin(w, h, key) {
		v.drawBackground()
	}
	v.fromBackground()
	a := v.area
	if k := [3]int{a.Dx(), v.rate, v.fft}; k != v.bmapKey {
		v.bmap = newBinMap(v.axis, a.Dx(), v.fft, v.rate)
		v.bmapKey = k
	}
	pal := paletteFor(v.dark)
	if v.bandHi > 0 {
		x0 := a.Min.X + int(math.Max(0, v.axis.Pos(v.bandLo))*float64(a.Dx()))
		x1 := a.Min.X + int(math.Min(1, v.axis.Pos(v.bandHi))*float64(a.Dx()))
		v.p.blendFill(image.Rect(x0, a.Min.Y, x1, a.Max.Y), pal.band, 40)
		v.p.vline(x0, a.Min.Y, a.Max.Y-1, pal.band)
		v.p.vline(x1, a.Min.Y, a.Max.Y-1, pal.band)
	}
	bins := v.fft/2 + 1
	for i := range v.n {
		sp := &v.spectra[i]
		c := pal.traces[min(i, len(pal.traces)-1)]
		if v.peakHold && len(sp.PeakHold) == bins {
			v.trace(sp.PeakHold, blend(c, pal.hold, 160), true)
		}
		if len(sp.Current) == bins {
			v.trace(sp.Current, c, false)
		}
		switch {
		case v.avg == AvgExp && len(sp.ExpAvg) == bins:
			v.trace(sp.ExpAvg, blend(c, pal.avg, 150), false)
		case v.avg == AvgLin && len(sp.LinAvg) == bins:
			v.trace(sp.LinAvg, blend(c, pal.avg, 150), false)
		}
	}
	v.drawPeak(pal)
	v.drawCursor(pal)
	return v.img
}

// drawBackground draws the plot area, grids and axis labels.
func (v *SpectrumView) drawBackground() {
	pal := paletteFor(v.dark)
	p := &v.p
	a := v.area
	v.clear()
	v.drawDBGrid(v.dbMin, v.dbMax)
	v.drawFreqGrid(v.axis, true)
	p.text("dBFS", p.px(4), p.px(2), 0, 0, pal.text)
	if v.title != "" {
		p.text(v.title, a.Min.X+p.px(4), p.px(2), 0, 0, pal.text)
	}
}

// trace draws a spectrum as a line across the plot (dotted: every other
// column).
func (v *SpectrumView) trace(db []float32, c color.RGBA, dotted bool) {
	a := v.area
	prev := -1
	for x := range v.bmap.width() {
		y := dbToY(v.bmap.value(x, db), v.dbMin, v.dbMax, a.Min.Y, a.Max.Y)
		switch {
		case dotted:
			if x%3 == 0 {
				v.p.set(a.Min.X+x, y, c)
			}
		case prev < 0:
			v.p.set(a.Min.X+x, y, c)
		default:
			// join to the previous column: half the step here, half there
			mid := (prev + y) / 2
			v.p.vline(a.Min.X+x-1, prev, mid, c)
			v.p.vline(a.Min.X+x, mid, y, c)
		}
		prev = y
	}
}

// drawPeak marks the first trace's dominant peak and labels it.
func (v *SpectrumView) drawPeak(pal *palette) {
	v.peakLabel = v.peakLabel[:0]
	if v.n == 0 {
		return
	}
	pk := v.spectra[0].Peak
	if pk.Freq <= 0 || pk.LevelDB < v.dbMin {
		return
	}
	a := v.area
	pos := v.axis.Pos(pk.Freq)
	if pos < 0 || pos > 1 {
		return
	}
	x := a.Min.X + int(pos*float64(a.Dx()))
	y := dbToY(float32(pk.LevelDB), v.dbMin, v.dbMax, a.Min.Y, a.Max.Y)
	s := v.p.px(5)
	for i := range s {
		v.p.hline(x-s+i, x+s-i+1, y-s-v.p.px(2)+i-s, pal.peak)
	}
	b := append(v.peakLabel, "peak "...)
	b = appendHz(b, pk.Freq)
	b = append(b, "  "...)
	b = appendDB(b, pk.LevelDB)
	b = append(b, "  "...)
	b = appendNote(b, pk.Freq)
	v.peakLabel = b
	v.p.textBytes(b, a.Max.X-v.p.px(4), a.Min.Y+v.p.px(4), 1, 0, pal.peak)
}

// drawCursor draws the cursor line and its readout: frequency, the first
// trace's level there, and the note.
func (v *SpectrumView) drawCursor(pal *palette) {
	v.readout = v.readout[:0]
	if !v.hover {
		return
	}
	px := v.pixelX(v.cursorX)
	if px < 0 {
		return
	}
	a := v.area
	f := v.axis.Freq((float64(px) + 0.5) / float64(a.Dx()))
	v.p.dashedV(a.Min.X+px, a.Min.Y, a.Max.Y, pal.cursor)
	b := appendHz(v.readout, f)
	if v.n > 0 {
		b = append(b, "   "...)
		b = appendDB(b, levelAt(v.spectra[0].Current, v.spectra[0].BinHz, f))
	}
	b = append(b, "   "...)
	b = appendNote(b, f)
	v.readout = b
	tx := a.Min.X + px + v.p.px(6)
	ax := 0.0
	if px > a.Dx()/2 {
		tx, ax = a.Min.X+px-v.p.px(6), 1
	}
	v.p.textBytes(b, tx, a.Min.Y+v.p.px(4)+v.p.textHeight()+v.p.px(2), ax, 0, pal.cursor)
}

// blend mixes b into a with weight w/255.
func blend(a, b color.RGBA, w uint8) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8((uint32(x)*uint32(255-w) + uint32(y)*uint32(w)) / 255) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 255}
}
