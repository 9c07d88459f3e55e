package view

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// Averaging modes: which average the spectrum's average trace shows.
// AvgLong is the engine's long-term average: the power mean of every
// frame since the analysis settings were last applied (R restarts it).
const (
	AvgOff  = "off"
	AvgExp  = "exp"
	AvgLin  = "lin"
	AvgLong = "long"
)

// AvgModes are the averaging modes in the order the A key cycles them.
var AvgModes = []string{AvgOff, AvgExp, AvgLin, AvgLong}

// AverageTrace is the average of sp that mode avg shows: nil with
// AvgOff, or while sp has no such trace of its current spectrum's length.
func AverageTrace(sp *live.Spectrum, avg string) []float32 {
	var t []float32
	switch avg {
	case AvgExp:
		t = sp.ExpAvg
	case AvgLin:
		t = sp.LinAvg
	case AvgLong:
		t = sp.LongAvg
	}
	if len(t) < 2 || len(t) != len(sp.Current) {
		return nil
	}
	return t
}

// longSeconds is the time sp's long-term average covers: its frames ×
// hop / rate (0 while the geometry is unknown).
func longSeconds(sp *live.Spectrum) float64 {
	if sp.Geometry.Rate <= 0 {
		return 0
	}
	return float64(sp.LongFrames) * sp.Geometry.HopSeconds()
}

// appendLongLabel appends the long-term average's legend label for secs
// seconds averaged: tenths below 10 s, whole seconds above.
func appendLongLabel(b []byte, secs float64) []byte {
	prec := 1
	if secs >= 9.95 {
		prec = 0
	}
	b = append(b, "long-term average ("...)
	b = strconv.AppendFloat(b, secs, 'f', prec, 64)
	return append(b, " s)"...)
}

// SpectrumSource is where a SpectrumView pulls spectra from (session.Session).
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
	scale       plot.Scale
	axis        plot.FreqAxis // the range shown
	full        plot.FreqAxis // the whole axis (20 Hz or 0 … Nyquist)
	fLo, fHi    float64       // the range asked for (SetFreqRange; 0: the full axis's end)
	dragging    bool
	smoothing   int // 1/N octave; 0 off (spectrumzoom.go)
	smoothers   []smootherOf
	smoothPow   []float64
	smoothBuf   [][]float32 // the smoothed traces drawn, by slot
	markF       float64     // the marker's frequency (Hz), if marked
	marked      bool
	markLabel   []byte
	maps        binMaps // per spectrum geometry: each trace is mapped by its own length
	dbMin       float64
	dbMax       float64
	avg         string // AvgOff, AvgExp, AvgLin, AvgLong
	longLabel   []byte // the long-term average's legend label, remade each frame
	peakHold    bool
	bandLo      float64 // Hz; bandHi 0: no band marked
	bandHi      float64
	hover       bool
	cursorX     float32 // widget units
	readout     []byte
	readoutRect image.Rectangle // where the readout was drawn (pixels)
	peakLabel   []byte
	peakRects   [2]image.Rectangle // the peak's marker and label (pixels)
	title       string
	unit        string                   // the level unit's label: "dBFS", "dBFS/Hz", "dB SPL (mic.txt)"
	unitID      string                   // its name in exports: dbfs, dbfs_hz, dbspl
	names       []string                 // the channels' names, one per spectrum: the legend
	chanIdx     []int                    // the input channel of each spectrum (its colour), nil: in order
	legend      []legendItem             // where the legend was drawn
	OnHoverFreq func(f float64, ok bool) // optional: the frequency under the cursor
	// OnRange (optional) is told the ranges after a zoom or drag: the
	// frequency range asked for (0: the full axis's end) and the dB range.
	OnRange func(fLo, fHi, dbMin, dbMax float64)
	refs    refOverlay     // reference traces drawn over the spectra (reference.go)
	harm    *HarmonicMeter // harmonic markers and readout, if on (harmonics.go)
}

// NewSpectrumView makes a spectrum plot for rate and FFT size on a
// frequency scale and dB range.
func NewSpectrumView(rate, fft int, scale plot.Scale, dbMin, dbMax float64) *SpectrumView {
	v := &SpectrumView{dbMin: dbMin, dbMax: dbMax, avg: AvgExp, peakHold: true, unit: "dBFS", unitID: "dbfs"}
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
func (v *SpectrumView) SetConfig(rate, fft int, scale plot.Scale) {
	if rate <= 0 || fft < 2 {
		return
	}
	v.rate, v.fft, v.scale, v.full = rate, fft, scale, plot.NewFreqAxis(scale, rate, fft)
	v.axis = v.full.Range(v.fLo, v.fHi)
}

// Axis is the frequency axis in use.
func (v *SpectrumView) Axis() plot.FreqAxis { return v.axis }

// SetRange sets the dB axis.
func (v *SpectrumView) SetRange(dbMin, dbMax float64) {
	if dbMin < dbMax {
		v.dbMin, v.dbMax = dbMin, dbMax
	}
}

// SetTraces chooses the average trace (AvgOff, AvgExp, AvgLin, AvgLong) and
// whether the peak-hold trace shows.
func (v *SpectrumView) SetTraces(avg string, peakHold bool) { v.avg, v.peakHold = avg, peakHold }

// SetBand marks the band lo…hi Hz (hi = 0: none; lo = 0: from 0 Hz).
func (v *SpectrumView) SetBand(lo, hi float64) { v.bandLo, v.bandHi = lo, hi }

// SetDark chooses the dark or light palette.
func (v *SpectrumView) SetDark(dark bool) { v.dark = dark }

// SetChannels names the spectra pulled, in order ("L", "R"; "mix"); with
// names set the plot draws a legend of channels and traces.
func (v *SpectrumView) SetChannels(names ...string) {
	v.names = append(v.names[:0], names...)
}

// SetUnit names the unit of the levels pulled: label on the axis and in
// the readouts ("dB SPL (mic.txt)"), id in exported column names (dbspl).
func (v *SpectrumView) SetUnit(label, id string) { v.unit, v.unitID = label, id }

// Unit is the level unit's label and export id.
func (v *SpectrumView) Unit() (label, id string) { return v.unit, v.unitID }

// SetTitle sets the label drawn in the top-left corner.
func (v *SpectrumView) SetTitle(s string) { v.title = s }

// Pull copies the latest spectra of output channels chans from src and
// redraws: the traces it draws (wanted), not the others. It does not
// allocate once the spectra have their size.
func (v *SpectrumView) Pull(src SpectrumSource, chans []int) {
	v.ensure(len(chans))
	want := v.wanted()
	for i, c := range chans {
		v.spectra[i].Want = want
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
	d.LongAvg, d.LongFrames = d.LongAvg[:0], 0
	d.BinHz, d.Peak, d.Freqs = sp.BinHz, sp.Peak, sp.Freqs
	v.n = 1
	v.raster.Refresh()
}

// wanted is the traces the view draws: the current spectrum, the average
// shown and the peak hold if shown.
func (v *SpectrumView) wanted() live.Traces {
	t := live.WantCurrent
	switch v.avg {
	case AvgExp:
		t |= live.WantExpAvg
	case AvgLin:
		t |= live.WantLinAvg
	case AvgLong:
		t |= live.WantLongAvg
	}
	if v.peakHold {
		t |= live.WantPeakHold
	}
	return t
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
	v.longLabel = v.longLabel[:0]
	if v.avg == AvgLong && v.n > 0 {
		v.longLabel = appendLongLabel(v.longLabel, longSeconds(&v.spectra[0]))
	}
	key := bgKey{axis: v.axis, dbMin: v.dbMin, dbMax: v.dbMax, extraS: v.title, extraI: v.refs.key(), unit: v.unit}
	if v.begin(w, h, key) {
		v.drawBackground()
	}
	v.fromBackground()
	a := v.area
	pal := paletteFor(v.dark)
	v.drawLegend(pal)
	if v.bandHi > 0 {
		x0 := a.Min.X + int(math.Max(0, v.axis.Pos(v.bandLo))*float64(a.Dx()))
		x1 := a.Min.X + int(math.Min(1, v.axis.Pos(v.bandHi))*float64(a.Dx()))
		v.p.blendFill(image.Rect(x0, a.Min.Y, x1, a.Max.Y), pal.band, 40)
		v.p.vline(x0, a.Min.Y, a.Max.Y-1, pal.band)
		v.p.vline(x1, a.Min.Y, a.Max.Y-1, pal.band)
	}
	for i := range v.n {
		sp := &v.spectra[i]
		c := v.traceColor(i, pal)
		if v.peakHold && len(sp.PeakHold) > 1 {
			v.trace(v.smoothed(sp.PeakHold, 3*i), holdColor(c, pal), true)
		}
		v.trace(v.smoothed(sp.Current, 3*i+1), c, false)
		if avg := AverageTrace(sp, v.avg); avg != nil {
			v.trace(v.smoothed(avg, 3*i+2), avgColor(c, pal), false)
		}
	}
	v.drawRefs()
	v.drawHarmonics(pal)
	v.drawPeak(pal)
	v.drawMarker(pal)
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
	p.text(v.axisUnit(), p.px(4), p.px(2), 0, 0, pal.text)
	if v.title != "" {
		p.text(v.title, a.Min.X+p.px(4), p.px(2), 0, 0, pal.text)
	}
	v.drawRefLegend(pal)
}

// axisUnit is the unit's label over the dB axis: whole where it fits
// the left margin, else without its parenthesis (the microphone file's
// name, which the readouts still give), so it never runs into the
// title or the references' legend.
func (v *SpectrumView) axisUnit() string {
	room := v.area.Min.X - v.p.px(6)
	if v.p.textWidth(v.unit) <= room {
		return v.unit
	}
	if i := strings.Index(v.unit, " ("); i > 0 {
		return v.unit[:i]
	}
	return v.unit
}

// legendItem is one entry of a legend: its label, the colour of its
// swatch and where the swatch was drawn (pixels).
type legendItem struct {
	Label  string
	buf    []byte // the label instead, when it changes while shown (drawn without allocating)
	Color  color.RGBA
	Dashed bool
	Swatch image.Rectangle
}

// Text is the item's label.
func (it legendItem) Text() string {
	if len(it.buf) > 0 {
		return string(it.buf)
	}
	return it.Label
}

// width is the label's width in pixels.
func (it *legendItem) width(p *painter) int {
	if len(it.buf) > 0 {
		return p.textWidthBytes(it.buf)
	}
	return p.textWidth(it.Label)
}

// Legend is the legend last drawn.
func (v *SpectrumView) Legend() []legendItem { return v.legend }

// drawLegend draws, right-aligned in the top margin, a swatch per channel
// (in its colour) and per trace kind shown (live, average, peak hold, in
// the first channel's colours). It is drawn over each frame, not into
// the cached background: the long-term average's label changes as it
// averages.
func (v *SpectrumView) drawLegend(pal *palette) {
	v.legend = v.legend[:0]
	if len(v.names) == 0 {
		return
	}
	c0 := v.traceColor(0, pal)
	// the channels: several, or one shown alone (not the mix, not a mono
	// input: those need no name)
	if len(v.names) > 1 || (len(v.names) == 1 && v.names[0] != MixName && v.names[0] != "mono") {
		for i, n := range v.names {
			v.legend = append(v.legend, legendItem{Label: n, Color: v.traceColor(i, pal)})
		}
	}
	v.legend = append(v.legend, legendItem{Label: "live", Color: c0})
	switch v.avg {
	case AvgExp:
		v.legend = append(v.legend, legendItem{Label: "average", Color: avgColor(c0, pal)})
	case AvgLin:
		v.legend = append(v.legend, legendItem{Label: "linear average", Color: avgColor(c0, pal)})
	case AvgLong:
		v.legend = append(v.legend, legendItem{Label: "long-term average", buf: v.longLabel, Color: avgColor(c0, pal)})
	}
	if v.peakHold {
		v.legend = append(v.legend, legendItem{Label: "peak hold", Color: holdColor(c0, pal), Dashed: true})
	}
	drawLegendItems(&v.p, v.legend, v.area.Max.X, v.p.px(2), pal)
}

// traceColor is spectrum i's colour: the channel's (ch 1/L blue, ch 2/R
// orange, …), and for the mix a colour of its own, never a channel's.
func (v *SpectrumView) traceColor(i int, pal *palette) color.RGBA {
	if i < len(v.names) && v.names[i] == MixName {
		return pal.mix
	}
	if i < len(v.chanIdx) {
		i = v.chanIdx[i]
	}
	return pal.traces[min(i, len(pal.traces)-1)]
}

// MixName is the mix's name in SetChannels: drawn in its own colour.
const MixName = "mix"

// SetChannelIndex says which input channel each spectrum is (0 for the
// first), so a channel keeps its colour when shown alone (nil: in order).
func (v *SpectrumView) SetChannelIndex(idx ...int) { v.chanIdx = append(v.chanIdx[:0], idx...) }

// holdColor and avgColor are the peak-hold and average traces' colours
// for a channel drawn in c.
func holdColor(c color.RGBA, pal *palette) color.RGBA { return blend(c, pal.hold, 200) }
func avgColor(c color.RGBA, pal *palette) color.RGBA  { return blend(c, pal.avg, 150) }

// trace draws a spectrum as a line across the plot, mapping it by its own
// length (dashed: 6 columns drawn, 3 left out).
func (v *SpectrumView) trace(db []float32, c color.RGBA, dashed bool) {
	drawTrace(&v.p, v.area, v.maps.getFor(v.axis, v.area.Dx(), v.rate, len(db), v.shownFreqs(len(db))), db, v.dbMin, v.dbMax, c, dashed)
}

// drawPeak marks the first trace's dominant peak and labels it.
func (v *SpectrumView) drawPeak(pal *palette) {
	v.peakLabel = v.peakLabel[:0]
	v.peakRects = [2]image.Rectangle{}
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
	v.peakRects[0] = image.Rect(x-s, y-2*s-v.p.px(2), x+s+1, y-v.p.px(2))
	b := append(v.peakLabel, "peak "...)
	b = appendHz(b, pk.Freq)
	b = append(b, "  "...)
	b = appendDBIn(b, pk.LevelDB, v.unit)
	b = append(b, "  "...)
	b = appendNote(b, pk.Freq)
	v.peakLabel = b
	lw := v.p.textBytes(b, a.Max.X-v.p.px(4), a.Min.Y+v.p.px(4), 1, 0, pal.peak)
	v.peakRects[1] = image.Rect(a.Max.X-v.p.px(4)-lw, a.Min.Y+v.p.px(4), a.Max.X-v.p.px(4), a.Min.Y+v.p.px(4)+v.p.textHeight())
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
	level := math.NaN()
	if v.n > 0 {
		level = v.levelShown(f)
		b = append(b, "   "...)
		b = appendDBIn(b, level, v.unit)
	}
	b = append(b, "   "...)
	b = appendNote(b, f)
	if v.marked && v.n > 0 {
		b = append(b, "   Δf "...)
		b = appendSignedHz(b, f-v.markF)
		b = append(b, "  ΔdB "...)
		b = appendSignedDB(b, level-v.levelShown(v.markF))
	}
	v.readout = b
	v.readoutRect = v.placeReadout(px, v.p.textWidthBytes(b))
	v.p.textBytes(b, v.readoutRect.Min.X, v.readoutRect.Min.Y, 0, 0, pal.cursor)
}

// placeReadout is where a readout `wid` pixels wide goes beside the
// cursor at column px: on the side with more room, on the second line of
// the plot, or lower where that would cover the peak's marker or label.
func (v *SpectrumView) placeReadout(px, wid int) image.Rectangle {
	a := v.area
	p := &v.p
	th := p.textHeight()
	x := a.Min.X + px + p.px(6)
	if px > a.Dx()/2 {
		x = a.Min.X + px - p.px(6) - wid
	}
	clear := func(r image.Rectangle) bool {
		grown := r.Inset(-p.px(2))
		return !grown.Overlaps(v.peakRects[0]) && !grown.Overlaps(v.peakRects[1])
	}
	y0 := a.Min.Y + p.px(4) + th + p.px(2)
	r := image.Rect(x, y0, x+wid, y0+th)
	if clear(r) {
		return r
	}
	// below the marker, then the bottom of the plot
	if y := v.peakRects[0].Max.Y + p.px(4); y+th <= a.Max.Y {
		if r2 := image.Rect(x, y, x+wid, y+th); clear(r2) {
			return r2
		}
	}
	y := a.Max.Y - p.px(4) - th
	return image.Rect(x, y, x+wid, y+th)
}

// blend mixes b into a with weight w/255.
func blend(a, b color.RGBA, w uint8) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8((uint32(x)*uint32(255-w) + uint32(y)*uint32(w)) / 255) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 255}
}

// Shown is the first spectrum the view holds (the one a reference stores
// and the harmonics measure), nil before any. It stays the view's: valid
// until the next Pull or ShowSpectrum.
func (v *SpectrumView) Shown() *live.Spectrum {
	if v.n == 0 {
		return nil
	}
	return &v.spectra[0]
}

// Scale is the frequency scale the view draws on.
func (v *SpectrumView) Scale() plot.Scale { return v.scale }
