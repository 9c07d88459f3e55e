package view

import (
	"image"
	"math"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
)

// plotBase is what the plot widgets share: a raster drawing into an image
// the widget owns (remade only when its pixel size changes), a cached
// background (grid and labels, redrawn only when what it shows changes),
// and the plot area in pixels. Only the Fyne goroutine touches it.
type plotBase struct {
	widget.BaseWidget
	raster *canvas.Raster
	img    *image.RGBA
	bg     *image.RGBA
	bgKey  bgKey
	p      painter
	dark   bool
	area   image.Rectangle // the plot area in pixels, set by draw
}

// bgKey says what a cached background was drawn for.
type bgKey struct {
	w, h         int
	scale        float32
	axis         plot.FreqAxis
	dbMin, dbMax float64
	dark         bool
	extra        float64 // per widget: the waterfall's time span, …
	extraS       string
	extraI       int
	unit         string // the level axis's unit label
}

// plotRenderer lays the raster over the whole widget.
type plotRenderer struct {
	raster *canvas.Raster
	min    fyne.Size
	objs   []fyne.CanvasObject
}

func newPlotRenderer(r *canvas.Raster, min fyne.Size) *plotRenderer {
	return &plotRenderer{raster: r, min: min, objs: []fyne.CanvasObject{r}}
}

func (r *plotRenderer) Layout(s fyne.Size)           { r.raster.Resize(s) }
func (r *plotRenderer) MinSize() fyne.Size           { return r.min }
func (r *plotRenderer) Refresh()                     { r.raster.Refresh() }
func (r *plotRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *plotRenderer) Destroy()                     {}

// begin prepares a w×h pixel frame: the image, the painter, the plot area,
// and whether the background must be redrawn for key.
func (b *plotBase) begin(w, h int, key bgKey) bool {
	b.img = ensureImage(b.img, w, h)
	scale := float32(1)
	if sw := b.Size().Width; sw > 0 {
		scale = float32(w) / sw
	}
	key.w, key.h, key.scale, key.dark = w, h, scale, b.dark
	b.p.img, b.p.scale = b.img, scale
	b.p.face = labelFace(max(8, b.p.px(11)))
	b.area = image.Rect(b.p.px(marginLeft), b.p.px(marginTop), w-b.p.px(marginRight), h-b.p.px(marginBottom))
	if b.area.Dx() < 2 || b.area.Dy() < 2 {
		b.area = image.Rect(0, 0, w, h)
	}
	if b.bg != nil && key == b.bgKey {
		return false
	}
	b.bg = ensureImage(b.bg, w, h)
	b.bgKey = key
	b.p.img = b.bg
	return true
}

// fromBackground starts the frame as a copy of the cached background and
// points the painter at the frame.
func (b *plotBase) fromBackground() {
	copy(b.img.Pix, b.bg.Pix)
	b.p.img = b.img
}

// pixelX converts a widget x (Fyne units) to a plot column, or −1 outside.
func (b *plotBase) pixelX(x float32) int {
	px := b.p.px(x) - b.area.Min.X
	if b.area.Dx() <= 0 || px < 0 || px >= b.area.Dx() {
		return -1
	}
	return px
}

// clear paints the background and the plot area.
func (b *plotBase) clear() {
	pal := paletteFor(b.dark)
	b.p.fill(b.p.img.Rect, pal.bg)
	b.p.fill(b.area, pal.plotBg)
}

// drawDBGrid draws horizontal grid lines with their dB labels left of the
// plot area, onto the background.
func (b *plotBase) drawDBGrid(dbMin, dbMax float64) {
	pal := paletteFor(b.dark)
	a := b.area
	for _, db := range dbTicks(dbMin, dbMax, a.Dy()) {
		y := dbToY(float32(db), dbMin, dbMax, a.Min.Y, a.Max.Y)
		b.p.hline(a.Min.X, a.Max.X, y, pal.grid)
		b.p.text(dbLabel(db), a.Min.X-b.p.px(4), y, 1, 0.5, pal.text)
	}
}

// dbLabel is a dB tick's label: "0", never "-0" (a calibrated axis's
// ticks are shifted, and a shift can land on −0 or a rounding error
// beside 0).
func dbLabel(db float64) string {
	db = math.Round(db*1000) / 1000
	if db == 0 {
		return "0"
	}
	return strconv.FormatFloat(db, 'f', -1, 64)
}

// drawFreqGrid draws vertical grid lines and, if labels, their frequency
// labels under the plot area, onto the background.
func (b *plotBase) drawFreqGrid(axis plot.FreqAxis, labels bool) {
	pal := paletteFor(b.dark)
	a := b.area
	ticks := plot.FreqTicks(axis, a.Dx())
	for _, f := range ticks {
		x := a.Min.X + int(axis.Pos(f)*float64(a.Dx()-1)+0.5)
		c := pal.grid
		if isMajor(axis, f) {
			c = pal.gridMajor
		}
		b.p.vline(x, a.Min.Y, a.Max.Y-1, c)
	}
	if !labels {
		return
	}
	for _, t := range placeLabels(axis, a.Dx(), ticks, func(s string) int { return b.p.textWidth(s) + b.p.px(8) }) {
		x := a.Min.X + int(axis.Pos(t)*float64(a.Dx()-1)+0.5)
		b.p.text(axis.Label(t), x, a.Max.Y+b.p.px(3), 0.5, 0, pal.text)
	}
}

// isDecade says whether f is a power of ten.
func isDecade(f float64) bool {
	return f > 0 && math.Abs(f/math.Pow(10, math.Floor(math.Log10(f)+1e-9))-1) < 1e-9
}

// placeLabels picks which ticks get a label on a horizontal axis `pixels`
// wide, given each label's width (with its margin): decades first, then
// the others in order, each only where it overlaps no label already
// placed. plot.FreqTicks spaces ticks for a vertical axis (18 px); across,
// "10k" is wider than that.
func placeLabels(axis plot.FreqAxis, pixels int, ticks []float64, width func(string) int) []float64 {
	type span struct{ x0, x1 int }
	var placed []span
	var out []float64
	try := func(f float64) {
		x := int(axis.Pos(f) * float64(pixels-1))
		w := width(axis.Label(f))
		s := span{x - w/2, x + w - w/2}
		for _, p := range placed {
			if s.x0 < p.x1 && p.x0 < s.x1 {
				return
			}
		}
		placed = append(placed, s)
		out = append(out, f)
	}
	for _, f := range ticks {
		if isMajor(axis, f) {
			try(f)
		}
	}
	if axis.Scale != plot.Lin {
		for _, f := range ticks {
			if !isMajor(axis, f) {
				try(f)
			}
		}
	}
	slices.Sort(out)
	return out
}

// appendHz formats a frequency for readouts: 1000.0 Hz, 12.35 kHz.
func appendHz(b []byte, f float64) []byte {
	if f >= 10000 {
		b = strconv.AppendFloat(b, f/1000, 'f', 3, 64)
		return append(b, " kHz"...)
	}
	b = strconv.AppendFloat(b, f, 'f', 1, 64)
	return append(b, " Hz"...)
}

// appendDB formats a level: −6.0 dBFS.
func appendDB(b []byte, db float64) []byte { return appendDBIn(b, db, "dBFS") }

// appendDBIn formats a level in a unit: −6.0 dBFS/Hz, 94.0 dB SPL.
func appendDBIn(b []byte, db float64, unit string) []byte {
	if db < -300 || math.IsInf(db, 0) || math.IsNaN(db) {
		b = append(b, "−∞ "...)
		return append(b, unit...)
	}
	if db < 0 {
		b = append(b, "−"...)
		db = -db
	}
	b = strconv.AppendFloat(b, db, 'f', 1, 64)
	b = append(b, ' ')
	return append(b, unit...)
}

// appendNote formats a note and its cents: A4 +3¢.
func appendNote(b []byte, f float64) []byte {
	name, cents := dsp.NoteName(f)
	if name == "" {
		return b
	}
	b = append(b, name...)
	b = append(b, ' ')
	c := int(math.Round(cents))
	switch {
	case c > 0:
		b = append(b, '+')
	case c < 0:
		b = append(b, "−"...)
		c = -c
	default:
		b = append(b, "±"...)
	}
	b = strconv.AppendInt(b, int64(c), 10)
	return append(b, "¢"...)
}

// levelAt is a spectrum's level at frequency f, interpolated between bins.
func levelAt(db []float32, binHz, f float64) float64 {
	if len(db) == 0 || binHz <= 0 {
		return math.Inf(-1)
	}
	p := f / binHz
	k := int(p)
	if k < 0 {
		return float64(db[0])
	}
	if k >= len(db)-1 {
		return float64(db[len(db)-1])
	}
	t := p - float64(k)
	return float64(db[k]) + t*float64(db[k+1]-db[k])
}
