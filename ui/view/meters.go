package view

import (
	"image"
	"image/color"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/meter"
)

// MeterSource is where a MetersView pulls the level meters from
// (session.Session).
type MeterSource interface {
	ReadMeters(dst *meter.Meters)
}

// The meters' bar scale, dBFS: a true peak may read above full scale.
const (
	meterMinDB  = -60.0
	meterMaxDB  = 3.0
	meterWarnDB = -9.0 // bars turn yellow above
	meterOverDB = -1.0 // and red above (EBU R128's maximum true peak)
)

// MetersView draws the live level meters: per input channel a peak bar
// (the sample peak solid, the true peak above it lighter) with hold
// markers (sample peak: a line in the bar's colour; true peak: red) and a
// narrow RMS bar, on a dBFS scale with ticks every 6 dB; under them the
// numbers: momentary and short-term loudness with their maxima,
// integrated loudness and loudness range since the reset, and per
// channel the largest true peak and the RMS (in dB SPL when the level is
// calibrated). Only the Fyne goroutine uses it.
type MetersView struct {
	plotBase
	m       meter.Meters
	pulled  bool
	drawnAt float64 // the input time (Meters.Seconds) of the meters last refreshed
	drawnCh int
	calOn   bool    // RMS readouts in dB SPL
	calDB   float64 // dB SPL = dBFS + calDB
	lines   [][]byte
	bars    [MaxShownMeters]meterBars // where each channel's bars were drawn (pixels)
}

// MaxShownMeters is how many channels' bars the view draws.
const MaxShownMeters = meter.MaxChannels

// meterBars are a channel's bar rectangles as drawn: the peak column and
// the RMS column, each the full height of the scale.
type meterBars struct{ Peak, RMS image.Rectangle }

// NewMetersView makes an empty meters view.
func NewMetersView() *MetersView {
	v := &MetersView{}
	v.dark = true
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *MetersView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(190, 260))
}

// SetDark chooses the dark or light palette.
func (v *MetersView) SetDark(dark bool) { v.dark = dark }

// SetCalibration makes the RMS readouts dB SPL (on: dB SPL = dBFS +
// offsetDB) or dBFS.
func (v *MetersView) SetCalibration(on bool, offsetDB float64) {
	v.calOn, v.calDB = on, offsetDB
	v.raster.Refresh()
}

// meterRefreshSeconds is how often the meters redraw, in input time:
// 25 times a second (the bars move in MeterStepSeconds), so that a window
// with nothing else new to show repaints no more often than that.
const meterRefreshSeconds = 0.04

// Pull copies the latest meters from src and redraws when
// meterRefreshSeconds of input have passed since the meters drawn (or the
// channels changed, or the meters were reset). It does not allocate.
func (v *MetersView) Pull(src MeterSource) {
	prev := v.m
	src.ReadMeters(&v.m)
	if v.pulled && (v.m == prev || v.m.Channels == v.drawnCh && v.m.Seconds >= v.drawnAt && v.m.Seconds < v.drawnAt+meterRefreshSeconds-1e-9) {
		return
	}
	v.pulled, v.drawnAt, v.drawnCh = true, v.m.Seconds, v.m.Channels
	v.raster.Refresh()
}

// Meters are the meters last pulled.
func (v *MetersView) Meters() meter.Meters { return v.m }

// Text is the numeric readouts last drawn, one line each.
func (v *MetersView) Text() string {
	var b []byte
	for i, l := range v.lines {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, l...)
	}
	return string(b)
}

// Bars is where channel c's peak and RMS columns were last drawn (pixels).
func (v *MetersView) Bars(c int) (peak, rms image.Rectangle) { return v.bars[c].Peak, v.bars[c].RMS }

// LevelY is the pixel row of level db (dBFS) on the bars' scale as last drawn.
func (v *MetersView) LevelY(db float64) int {
	return dbToY(float32(db), meterMinDB, meterMaxDB, v.area.Min.Y, v.area.Max.Y)
}

// Image is the last frame drawn.
func (v *MetersView) Image() *image.RGBA { return v.img }

// meterLines is the number of readout lines under the bars for n channels.
func meterLines(n int) int { return 4 + n }

func (v *MetersView) draw(w, h int) image.Image {
	n := min(v.m.Channels, MaxShownMeters)
	key := bgKey{dbMin: meterMinDB, dbMax: meterMaxDB, extraI: n}
	fresh := v.begin(w, h, key)
	// the scale takes the top; the readouts the lines under it
	p := &v.p
	lh := p.textHeight() + p.px(2)
	v.area = image.Rect(p.px(30), p.px(10)+lh, w-p.px(6), h-p.px(18)-meterLines(n)*lh)
	if v.area.Dy() < p.px(40) { // too short for bars: readouts only
		v.area.Max.Y = v.area.Min.Y
	}
	if fresh {
		v.drawScale(n)
	}
	v.fromBackground()
	pal := paletteFor(v.dark)
	for c := range n {
		v.drawBars(c, pal)
	}
	v.drawReadouts(n, v.area.Max.Y+p.px(16), lh, pal)
	return v.img
}

// drawScale draws the background: the ticks and their labels, and each
// channel's empty columns and name.
func (v *MetersView) drawScale(n int) {
	pal := paletteFor(v.dark)
	p := &v.p
	p.fill(p.img.Rect, pal.bg)
	a := v.area
	if a.Dy() <= 0 || n == 0 {
		return
	}
	p.text("peak dBFS · dBTP, RMS", p.px(4), p.px(2), 0, 0, pal.text)
	colW := a.Dx() / n
	pw, rw, gap := max(2, colW*5/10), max(1, colW*2/10), max(1, colW/20)
	for c := range n {
		x := a.Min.X + c*colW + gap
		v.bars[c] = meterBars{Peak: image.Rect(x, a.Min.Y, x+pw, a.Max.Y), RMS: image.Rect(x+pw+gap, a.Min.Y, x+pw+gap+rw, a.Max.Y)}
		p.fill(v.bars[c].Peak, pal.plotBg)
		p.fill(v.bars[c].RMS, pal.plotBg)
		p.text(meterChannelName(c, n), x+pw/2, a.Max.Y+p.px(2), 0.5, 0, pal.text)
	}
	for db := 0.0; db >= meterMinDB; db -= 6 {
		y := v.LevelY(db)
		p.hline(a.Min.X-p.px(4), a.Min.X, y, pal.text)
		for c := range n {
			p.hline(v.bars[c].Peak.Min.X, v.bars[c].RMS.Max.X, y, pal.grid)
		}
		p.text(strconv.FormatFloat(db, 'f', -1, 64), a.Min.X-p.px(6), y, 1, 0.5, pal.text)
	}
}

// meterChannelName names channel c of n under its bars.
func meterChannelName(c, n int) string {
	if n == 2 {
		return [2]string{"L", "R"}[c]
	}
	return strconv.Itoa(c + 1)
}

// meterColor is the bar's colour at level db.
func meterColor(db float64, pal *palette) color.RGBA {
	switch {
	case db > meterOverDB:
		return pal.peak
	case db > meterWarnDB:
		return color.RGBA{240, 200, 40, 255}
	}
	return pal.traces[2]
}

// drawBars draws channel c's bars and hold markers over its columns.
func (v *MetersView) drawBars(c int, pal *palette) {
	a := v.area
	if a.Dy() <= 0 {
		return
	}
	ch := &v.m.Ch[c]
	b := v.bars[c]
	v.levelBar(b.Peak, ch.SamplePeak, pal)
	if ch.TruePeak > ch.SamplePeak { // the inter-sample part, lighter
		top, bottom := v.LevelY(ch.TruePeak), v.LevelY(ch.SamplePeak)
		r := image.Rect(b.Peak.Min.X, top, b.Peak.Max.X, bottom).Intersect(b.Peak)
		v.p.blendFill(r, meterColor(ch.TruePeak, pal), 110)
	}
	v.levelBar(b.RMS, ch.RMS, pal)
	v.marker(b.Peak, ch.SamplePeakHold, meterColor(ch.SamplePeakHold, pal))
	v.marker(b.Peak, ch.TruePeakHold, pal.hold)
}

// levelBar fills column r from the bottom up to level db, coloured by
// the zone each part is in.
func (v *MetersView) levelBar(r image.Rectangle, db float64, pal *palette) {
	if !(db > meterMinDB) {
		return
	}
	top := v.LevelY(min(db, meterMaxDB))
	for _, z := range [...]struct{ lo, hi float64 }{{meterMinDB, meterWarnDB}, {meterWarnDB, meterOverDB}, {meterOverDB, meterMaxDB}} {
		if db <= z.lo {
			break
		}
		y0, y1 := max(top, v.LevelY(z.hi)), v.LevelY(z.lo)
		v.p.fill(image.Rect(r.Min.X, y0, r.Max.X, y1), meterColor((z.lo+z.hi)/2, pal))
	}
}

// marker draws a hold marker at level db across column r.
func (v *MetersView) marker(r image.Rectangle, db float64, c color.RGBA) {
	if !(db > meterMinDB) {
		return
	}
	y := v.LevelY(min(db, meterMaxDB))
	v.p.fill(image.Rect(r.Min.X, max(r.Min.Y, y-v.p.px(1)), r.Max.X, y+v.p.px(1)), c)
}

// drawReadouts writes the numbers, one line each from y.
func (v *MetersView) drawReadouts(n, y, lh int, pal *palette) {
	m := &v.m
	for len(v.lines) < meterLines(n) {
		v.lines = append(v.lines, make([]byte, 0, 64))
	}
	v.lines = v.lines[:meterLines(n)]
	l := v.lines
	l[0] = appendLoud(append(l[0][:0], "M "...), m.Momentary, " LUFS  max ", m.MomentaryMax)
	l[1] = appendLoud(append(l[1][:0], "S "...), m.ShortTerm, " LUFS  max ", m.ShortTermMax)
	l[2] = appendLevel(append(l[2][:0], "I "...), m.Integrated, " LUFS  LRA ")
	l[2] = append(strconv.AppendFloat(l[2], m.Range, 'f', 1, 64), " LU"...)
	l[3] = appendDuration(l[3][:0], m.Seconds)
	l[3] = append(l[3], " since reset (R)"...)
	for c := range n {
		ch := &m.Ch[c]
		b := append(l[4+c][:0], meterChannelName(c, n)...)
		b = appendLevel(append(b, "  TP max "...), ch.TruePeakMax, "  RMS ")
		if v.calOn {
			b = appendLevel(b, ch.RMS+v.calDB, " dB SPL")
		} else {
			b = appendLevel(b, ch.RMS, "")
		}
		l[4+c] = b
	}
	for i, b := range l {
		v.p.textBytes(b, v.p.px(4), y+i*lh, 0, 0, pal.text)
	}
}

// appendLevel appends a level with one decimal (−∞ for silence) and a
// suffix.
func appendLevel(b []byte, db float64, suffix string) []byte {
	switch {
	case math.IsNaN(db) || db < -300:
		b = append(b, "−∞"...)
	case db < 0:
		b = strconv.AppendFloat(append(b, "−"...), -db, 'f', 1, 64)
	default:
		b = strconv.AppendFloat(b, db, 'f', 1, 64)
	}
	return append(b, suffix...)
}

// appendLoud appends "L<mid>MAX" for a loudness and its maximum.
func appendLoud(b []byte, l float64, mid string, maxL float64) []byte {
	return appendLevel(appendLevel(b, l, mid), maxL, "")
}

// appendDuration appends seconds as m:ss (h:mm:ss past an hour).
func appendDuration(b []byte, sec float64) []byte {
	s := int64(sec)
	if s >= 3600 {
		b = append(strconv.AppendInt(b, s/3600, 10), ':')
		s %= 3600
		if s < 600 {
			b = append(b, '0')
		}
	}
	b = append(strconv.AppendInt(b, s/60, 10), ':')
	if s%60 < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, s%60, 10)
}
