package view

import (
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// RTAView draws fractional-octave band levels as bars (a real-time
// analyzer) on a log frequency axis, labelled with the bands' nominal
// mid-band frequencies. Only the Fyne goroutine uses it.
type RTAView struct {
	plotBase
	sp           live.Spectrum
	rate         int
	axis         plot.FreqAxis
	dbMin, dbMax float64
	fraction     int
	weighting    dsp.Weighting
	unit         string   // the levels' unit label (SetUnit)
	labels       [][]byte // nominal labels, per band (remade when the bands change)
	labelFor     []float64
	caps         []float64   // per band: the peak cap's level (dB)
	capAt        []time.Time // when each cap was last raised
	now          func() time.Time
	hover        bool
	cursorX      float32
	readout      []byte
	note         string     // ResolutionNote, for noteKey
	noteKey      [3]float64 // bin width, band count, rate
}

// Peak caps: a band's cap holds its highest level for capHold, then
// falls at capFall dB per second until the level catches it.
const (
	capHold = 1500 * time.Millisecond
	capFall = 20.0
)

// NewRTAView makes a bar view for a sample rate and dB range.
func NewRTAView(rate int, dbMin, dbMax float64) *RTAView {
	v := &RTAView{dbMin: dbMin, dbMax: dbMax, fraction: 3, weighting: dsp.DefaultWeighting, unit: "dBFS", now: time.Now}
	v.dark = true
	v.SetRate(rate)
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *RTAView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(320, 120))
}

// SetRate sets the sample rate (the axis runs from 20 Hz to Nyquist).
func (v *RTAView) SetRate(rate int) {
	if rate > 0 {
		v.rate, v.axis = rate, plot.NewFreqAxis(plot.Log, rate, 1<<16)
	}
}

// SetBands says which bands the levels are (for the title).
func (v *RTAView) SetBands(fraction int, weighting dsp.Weighting) {
	v.fraction, v.weighting = fraction, weighting
}

// SetRange sets the dB axis.
func (v *RTAView) SetRange(dbMin, dbMax float64) {
	if dbMin < dbMax {
		v.dbMin, v.dbMax = dbMin, dbMax
	}
}

// SetDark chooses the palette.
func (v *RTAView) SetDark(dark bool) { v.dark = dark }

// SetUnit names the unit of the band levels pulled ("dBFS", "dB SPL").
func (v *RTAView) SetUnit(label string) { v.unit = label }

// Pull copies output channel c's band levels from src, moves the peak
// caps and redraws.
func (v *RTAView) Pull(src SpectrumSource, c int) {
	v.sp.Want = live.WantBandsOnly
	src.Latest(c, &v.sp)
	v.updateCaps(v.now())
	v.raster.Refresh()
}

// updateCaps raises each band's cap to its level, or lets it fall once
// it has been held for capHold.
func (v *RTAView) updateCaps(now time.Time) {
	n := len(v.sp.Bands)
	if len(v.caps) != n {
		v.caps = slices.Grow(v.caps[:0], n)[:n]
		v.capAt = slices.Grow(v.capAt[:0], n)[:n]
		for i := range n {
			v.caps[i], v.capAt[i] = math.Inf(-1), now
		}
	}
	for i, b := range v.sp.Bands {
		held := now.Sub(v.capAt[i])
		switch {
		case b.LevelDB >= v.caps[i]:
			v.caps[i], v.capAt[i] = b.LevelDB, now
		case held > capHold:
			v.caps[i] = max(b.LevelDB, v.caps[i]-capFall*(held-capHold).Seconds())
			v.capAt[i] = now.Add(-capHold) // fall from here on
		}
	}
}

// Caps are the bands' peak-cap levels (dB).
func (v *RTAView) Caps() []float64 { return v.caps }

// UnderResolved says, per band, whether it is drawn as under-resolved at
// the bin width of the last spectrum pulled.
func (v *RTAView) UnderResolved() []bool {
	out := make([]bool, len(v.sp.Bands))
	for i, b := range v.sp.Bands {
		out[i] = b.UnderResolved || dsp.UnderResolved(b.Band, v.sp.BinHz)
	}
	return out
}

// MouseIn, MouseMoved and MouseOut implement desktop.Hoverable: the
// readout of the band under the cursor.
func (v *RTAView) MouseIn(e *desktop.MouseEvent) { v.MouseMoved(e) }

// MouseMoved implements desktop.Hoverable.
func (v *RTAView) MouseMoved(e *desktop.MouseEvent) {
	v.hover, v.cursorX = true, e.Position.X
	v.raster.Refresh()
}

// MouseOut implements desktop.Hoverable.
func (v *RTAView) MouseOut() {
	v.hover = false
	v.raster.Refresh()
}

// Readout is the hover readout (empty when the cursor is not over a
// band).
func (v *RTAView) Readout() string { return string(v.readout) }

// bandAt is the index of the band under plot column px, or −1.
func (v *RTAView) bandAt(px int) int {
	if px < 0 {
		return -1
	}
	f := v.axis.Freq((float64(px) + 0.5) / float64(v.area.Dx()))
	for i, b := range v.sp.Bands {
		if f >= b.Lower && f < b.Upper {
			return i
		}
	}
	return -1
}

// Levels are the band levels last pulled.
func (v *RTAView) Levels() []dsp.BandLevel { return v.sp.Bands }

// Image is the last frame drawn.
func (v *RTAView) Image() *image.RGBA { return v.img }

func (v *RTAView) draw(w, h int) image.Image {
	note := v.ResolutionNote()
	wk := 0 // the weighting's letter, for the title
	if s := v.weighting.String(); s != "" {
		wk = int(s[0])
	}
	key := bgKey{axis: v.axis, dbMin: v.dbMin, dbMax: v.dbMax, extra: float64(v.fraction), extraS: note, extraI: wk, unit: v.unit}
	if v.begin(w, h, key) {
		pal := paletteFor(v.dark)
		p := &v.p
		a := v.area
		v.clear()
		v.drawDBGrid(v.dbMin, v.dbMax)
		p.text(v.Title(), a.Min.X+p.px(4), p.px(2), 0, 0, pal.text)
		// the legend of the hatched bars
		lx := a.Max.X - p.textWidth(note)
		sw := p.textHeight() - p.px(2)
		v.hatch(image.Rect(lx-sw-p.px(4), p.px(3), lx-p.px(4), p.px(3)+sw), blend(pal.traces[0], pal.plotBg, 120), pal.plotBg)
		p.text(note, lx, p.px(2), 0, 0, pal.text)
	}
	v.fromBackground()
	pal := paletteFor(v.dark)
	a := v.area
	lastLabel := -1 << 30
	for i, b := range v.sp.Bands {
		x0 := a.Min.X + int(v.axis.Pos(b.Lower)*float64(a.Dx()))
		x1 := a.Min.X + int(v.axis.Pos(b.Upper)*float64(a.Dx()))
		if x1 <= a.Min.X || x0 >= a.Max.X {
			continue
		}
		gap := max(1, (x1-x0)/8)
		y := dbToY(float32(b.LevelDB), v.dbMin, v.dbMax, a.Min.Y, a.Max.Y)
		bar := image.Rect(max(a.Min.X, x0+gap), y, min(a.Max.X, x1-gap), a.Max.Y)
		if b.UnderResolved || dsp.UnderResolved(b.Band, v.sp.BinHz) {
			v.hatch(bar, blend(pal.traces[0], pal.plotBg, 120), pal.plotBg)
		} else {
			v.p.fill(bar, pal.traces[0])
		}
		if i < len(v.caps) && v.caps[i] >= v.dbMin {
			cy := dbToY(float32(v.caps[i]), v.dbMin, v.dbMax, a.Min.Y, a.Max.Y)
			v.p.fill(image.Rect(bar.Min.X, cy-v.p.px(1), bar.Max.X, cy+v.p.px(1)), pal.hold)
		}
		// the nominal label, where it does not overlap the previous one
		lb := v.label(i, b.Nominal)
		wid := v.p.textWidthBytes(lb)
		xc := (x0 + x1) / 2
		if xc-wid/2 > lastLabel+v.p.px(4) {
			v.p.textBytes(lb, xc, a.Max.Y+v.p.px(3), 0.5, 0, pal.text)
			lastLabel = xc + wid/2
		}
	}
	v.drawReadout(pal)
	return v.img
}

// Title names the bands and the weighting in use (drawn over the bars).
func (v *RTAView) Title() string {
	if v.fraction == 1 {
		return "octave bands, " + v.weighting.String() + "-weighted, " + v.unit
	}
	return "1/" + strconv.Itoa(v.fraction) + " octave, " + v.weighting.String() + "-weighted, " + v.unit
}

// underResolvedNote explains the hatched bars.
const underResolvedNote = "under-resolved (< 4 FFT bins)"

// ResolutionNote is the legend of the hatched bars and, when some are
// hatched, the FFT size (up to MaxFFT) that resolves every band shown —
// or, if none does, the lowest band MaxFFT resolves. It is remade only
// when the bands or the bin width change.
func (v *RTAView) ResolutionNote() string {
	key := [3]float64{v.sp.BinHz, float64(len(v.sp.Bands)), float64(v.rate)}
	if key == v.noteKey && v.note != "" {
		return v.note
	}
	v.noteKey, v.note = key, underResolvedNote
	bands := v.sp.Bands
	if len(bands) == 0 || !(v.sp.BinHz > 0) || !v.underResolvedAt(0, v.sp.BinHz) {
		return v.note
	}
	fft := int(math.Round(float64(v.rate) / v.sp.BinHz))
	for n := fft; n <= engine.MaxFFT; n *= 2 {
		binHz := float64(v.rate) / float64(n)
		if !v.underResolvedAt(0, binHz) {
			v.note += ": N=" + strconv.Itoa(n) + " resolves every band"
			return v.note
		}
		if n == engine.MaxFFT {
			for i := range bands {
				if !v.underResolvedAt(i, binHz) {
					v.note += ": N=" + strconv.Itoa(n) + " resolves from " + string(v.label(i, bands[i].Nominal)) + " Hz"
					return v.note
				}
			}
		}
	}
	return v.note
}

// underResolvedAt says whether band i is under-resolved at binHz
// (dsp.UnderResolved). Bands widen with frequency: when the first is
// resolved, all are.
func (v *RTAView) underResolvedAt(i int, binHz float64) bool {
	return dsp.UnderResolved(v.sp.Bands[i].Band, binHz)
}

// hatch fills r with diagonal stripes of c on bg.
func (v *RTAView) hatch(r image.Rectangle, c, bg color.RGBA) {
	v.p.fill(r, bg)
	r = r.Intersect(v.p.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if (x+y)%4 < 2 {
				v.p.set(x, y, c)
			}
		}
	}
}

// drawReadout writes the hovered band's nominal frequency, edges and level
// (and whether it is under-resolved) at the top of the plot.
func (v *RTAView) drawReadout(pal *palette) {
	v.readout = v.readout[:0]
	if !v.hover {
		return
	}
	px := v.pixelX(v.cursorX)
	i := v.bandAt(px)
	if i < 0 {
		return
	}
	b := v.sp.Bands[i]
	a := v.area
	r := append(v.readout, v.label(i, b.Nominal)...)
	if n := len(r); n > len(v.readout) && r[n-1] == 'k' { // "4k": 4 kHz
		r = append(r[:n-1], " kHz band ("...)
	} else {
		r = append(r, " Hz band ("...)
	}
	r = strconv.AppendFloat(r, b.Lower, 'f', 0, 64)
	r = append(r, "–"...)
	r = strconv.AppendFloat(r, b.Upper, 'f', 0, 64)
	r = append(r, " Hz)   "...)
	r = appendDBIn(r, b.LevelDB, v.unit)
	if i < len(v.caps) {
		r = append(r, "   cap "...)
		r = appendDBIn(r, v.caps[i], v.unit)
	}
	if b.UnderResolved || dsp.UnderResolved(b.Band, v.sp.BinHz) {
		r = append(r, "   under-resolved"...)
	}
	v.readout = r
	x, ax := a.Min.X+px+v.p.px(6), 0.0
	if px > a.Dx()/2 {
		x, ax = a.Min.X+px-v.p.px(6), 1
	}
	v.p.dashedV(a.Min.X+px, a.Min.Y, a.Max.Y, pal.cursor)
	v.p.textBytes(r, x, a.Min.Y+v.p.px(4), ax, 0, pal.cursor)
}

// label is band i's nominal frequency as text (cached).
func (v *RTAView) label(i int, nominal float64) []byte {
	for len(v.labels) <= i {
		v.labels = append(v.labels, nil)
	}
	for len(v.labelFor) <= i {
		v.labelFor = append(v.labelFor, -1)
	}
	if v.labelFor[i] != nominal {
		b := v.labels[i][:0]
		if nominal >= 1000 {
			b = append(strconv.AppendFloat(b, nominal/1000, 'f', -1, 64), 'k')
		} else {
			b = strconv.AppendFloat(b, nominal, 'f', -1, 64)
		}
		v.labels[i] = b
		v.labelFor[i] = nominal
	}
	return v.labels[i]
}
