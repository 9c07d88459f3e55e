package view

import (
	"image"
	"image/color"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/scope"
)

// ScopeSettings are what the oscilloscope shows: the channel (−1: the
// mix), the trigger, the time base (seconds per division, ten divisions
// across, the trigger point at the middle) and the amplitude scale (the
// full height is ±FullScale, 1 = 0 dBFS; eight divisions).
type ScopeSettings struct {
	Channel   int
	Trigger   scope.Trigger
	TimeDiv   float64
	FullScale float64
}

// scopeDivs are the oscilloscope's divisions across and up.
const scopeDivsX, scopeDivsY = 10, 8

// ScopeView is the oscilloscope: the input's waveform, triggered by
// package scope's rule, drawn across the time base with the trigger point
// at the middle to the fraction of a sample. It pulls from a scope.Source
// (the live input's tap). Only the Fyne goroutine uses it.
type ScopeView struct {
	plotBase
	set    ScopeSettings
	rate   int
	sc     *scope.Scope
	status []byte
}

// NewScopeView makes an oscilloscope with s.
func NewScopeView(s ScopeSettings) *ScopeView {
	v := &ScopeView{set: s}
	v.dark = true
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *ScopeView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(320, 120))
}

// SetDark chooses the palette.
func (v *ScopeView) SetDark(dark bool) { v.dark = dark }

// Dark reports the palette chosen.
func (v *ScopeView) Dark() bool { return v.dark }

// Settings is what the scope shows.
func (v *ScopeView) Settings() ScopeSettings { return v.set }

// Set changes what the scope shows; the trace starts again.
func (v *ScopeView) Set(s ScopeSettings) {
	v.set, v.sc = s, nil
	v.raster.Refresh()
}

// Arm re-arms a single-shot capture (and starts any other mode's trace
// again).
func (v *ScopeView) Arm() {
	if v.sc != nil {
		v.sc.Arm()
	}
	v.raster.Refresh()
}

// Held reports a single-shot capture waiting to be re-armed.
func (v *ScopeView) Held() bool { return v.sc != nil && v.sc.Held() }

// Trace is the trace shown (Scope.Trace), ok false before the first.
func (v *ScopeView) Trace() (x []float32, trigger float64, triggered, ok bool) {
	if v.sc == nil {
		return nil, 0, false, false
	}
	x, _, trigger, triggered, ok = v.sc.Trace()
	return x, trigger, triggered, ok
}

// Pull looks for a new trace in src and redraws when there is one. It
// does not allocate in steady state (a new rate or settings make a new
// scope).
func (v *ScopeView) Pull(src scope.Source) {
	_, _, channels, rate := src.Span()
	if rate == 0 {
		return
	}
	if v.set.Channel >= channels {
		v.set.Channel = -1
		v.sc = nil
	}
	if v.sc == nil || rate != v.rate {
		span := max(16, int(math.Round(v.set.TimeDiv*scopeDivsX*float64(rate))))
		v.rate = rate
		v.sc = scope.New(scope.Config{Span: span, Pre: span / 2, Channel: v.set.Channel, Trigger: v.set.Trigger, AutoAfter: max(span, rate/10)})
	}
	if v.sc.Update(src) {
		v.raster.Refresh()
	}
}

// Image is the last frame drawn.
func (v *ScopeView) Image() *image.RGBA { return v.img }

func (v *ScopeView) draw(w, h int) image.Image {
	key := bgKey{dbMin: -v.set.FullScale, dbMax: v.set.FullScale, extra: v.set.TimeDiv, extraI: v.rate}
	if v.begin(w, h, key) {
		v.drawBackground()
	}
	v.fromBackground()
	pal := paletteFor(v.dark)
	a, p := v.area, &v.p
	// the trigger level and point
	fs := v.set.FullScale
	ly := ampToY(v.set.Trigger.Level, fs, a)
	for x := a.Min.X; x < a.Max.X; x += 6 {
		p.hline(x, min(x+3, a.Max.X), ly, pal.marker)
	}
	p.dashedV((a.Min.X+a.Max.X)/2, a.Min.Y, a.Max.Y, pal.marker)
	x, trig, triggered, ok := v.Trace()
	if ok {
		drawWave(p, a, x, trig, v.set.FullScale, pal.traces[0])
	}
	v.status = v.appendStatus(v.status[:0], ok, triggered)
	p.textBytes(v.status, a.Min.X+p.px(4), p.px(2), 0, 0, pal.text)
	return v.img
}

// drawWave draws a trace across a (±fs full height): sample k sits at
// time (k − trigger)/rate from the middle; where a column covers several samples it spans their
// minimum to maximum.
func drawWave(p *painter, a image.Rectangle, x []float32, trigger, fs float64, c color.RGBA) {
	perPx := float64(len(x)) / float64(a.Dx())
	centre := float64(len(x)) / 2
	prev := -1
	for col := range a.Dx() {
		// samples whose position falls in this column
		k0 := trigger - centre + float64(col)*perPx
		lo, hi := int(math.Ceil(k0)), int(math.Ceil(k0+perPx))-1
		if perPx < 1 { // fewer samples than columns: interpolate
			k := int(math.Floor(k0))
			if k < 0 || k+1 >= len(x) {
				prev = -1
				continue
			}
			f := k0 - float64(k)
			y := ampToY(float64(x[k])*(1-f)+float64(x[k+1])*f, fs, a)
			if prev >= 0 {
				p.vline(a.Min.X+col, min(prev, y), max(prev, y), c)
			}
			p.set(a.Min.X+col, y, c)
			prev = y
			continue
		}
		lo, hi = max(lo, 0), min(hi, len(x)-1)
		if lo > hi {
			prev = -1
			continue
		}
		mn, mx := x[lo], x[lo]
		for _, s := range x[lo : hi+1] {
			mn, mx = min(mn, s), max(mx, s)
		}
		y0, y1 := ampToY(float64(mx), fs, a), ampToY(float64(mn), fs, a)
		if prev >= 0 {
			y0, y1 = min(y0, prev), max(y1, prev)
		}
		p.vline(a.Min.X+col, y0, y1, c)
		prev = (y0 + y1) / 2
	}
}

// ampToY maps a sample value to a row of area for ±fs (clamped).
func ampToY(v, fs float64, a image.Rectangle) int {
	t := min(1, max(0, (v/fs+1)/2))
	return a.Max.Y - 1 - int(t*float64(a.Dy()-1)+0.5)
}

// appendStatus is the line over the plot: channel, mode, edge and level,
// the time base and the state (waiting, free-running, held).
func (v *ScopeView) appendStatus(b []byte, ok, triggered bool) []byte {
	s := v.set
	if s.Channel < 0 {
		b = append(b, "mix"...)
	} else {
		b = append(b, "ch "...)
		b = strconv.AppendInt(b, int64(s.Channel+1), 10)
	}
	b = append(b, "   "...)
	b = append(b, s.Trigger.Mode.String()...)
	b = append(b, ", "...)
	b = append(b, s.Trigger.Edge.String()...)
	b = append(b, " at "...)
	b = strconv.AppendFloat(b, s.Trigger.Level, 'f', 2, 64)
	b = append(b, "   "...)
	b = appendSeconds(b, s.TimeDiv)
	b = append(b, "/div   ±"...)
	b = strconv.AppendFloat(b, s.FullScale, 'g', 3, 64)
	switch {
	case v.Held():
		b = append(b, "   held: O re-arms"...)
	case !ok && s.Trigger.Mode == scope.Single:
		b = append(b, "   armed"...)
	case !ok:
		b = append(b, "   waiting for a trigger"...)
	case !triggered:
		b = append(b, "   free-running"...)
	}
	return b
}

// appendSeconds writes a time base as s, ms or µs.
func appendSeconds(b []byte, sec float64) []byte {
	switch {
	case sec >= 1:
		return append(strconv.AppendFloat(b, sec, 'g', 3, 64), " s"...)
	case sec >= 1e-3:
		return append(strconv.AppendFloat(b, sec*1e3, 'g', 3, 64), " ms"...)
	}
	return append(strconv.AppendFloat(b, sec*1e6, 'g', 3, 64), " µs"...)
}

// drawDivisions draws the scope's grid over a: ten divisions across and
// eight up, the middle ones brighter.
func drawDivisions(p *painter, a image.Rectangle, pal *palette) {
	for i := 0; i <= scopeDivsX; i++ {
		c := pal.grid
		if i == scopeDivsX/2 {
			c = pal.gridMajor
		}
		p.vline(a.Min.X+i*(a.Dx()-1)/scopeDivsX, a.Min.Y, a.Max.Y-1, c)
	}
	for i := 0; i <= scopeDivsY; i++ {
		c := pal.grid
		if i == scopeDivsY/2 {
			c = pal.gridMajor
		}
		p.hline(a.Min.X, a.Max.X, a.Min.Y+i*(a.Dy()-1)/scopeDivsY, c)
	}
}

func (v *ScopeView) drawBackground() {
	pal := paletteFor(v.dark)
	p, a := &v.p, v.area
	v.clear()
	drawDivisions(p, a, pal)
	for i := 0; i <= scopeDivsX; i++ {
		x := a.Min.X + i*(a.Dx()-1)/scopeDivsX
		if i%2 == 0 {
			t := v.set.TimeDiv * float64(i-scopeDivsX/2)
			p.text(timeLabel(t), x, a.Max.Y+p.px(3), float64(i)/scopeDivsX, 0, pal.text) // the ends inside
		}
	}
	fs := v.set.FullScale
	for i := 0; i <= scopeDivsY; i++ {
		val := fs * (1 - 2*float64(i)/scopeDivsY)
		y := ampToY(val, fs, a)
		if i%2 == 0 {
			p.text(strconv.FormatFloat(val, 'g', 3, 64), a.Min.X-p.px(4), y, 1, 0.5, pal.text)
		}
	}
}

// timeLabel is a grid time from the trigger: "0", "+2 ms", "−500 µs".
func timeLabel(t float64) string {
	if math.Abs(t) < 1e-12 {
		return "0"
	}
	b := []byte("+")
	if t < 0 {
		b = []byte("−")
	}
	return string(appendSeconds(b, math.Abs(t)))
}
