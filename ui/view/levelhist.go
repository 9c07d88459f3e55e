package view

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/live/levelhist"
	"github.com/prismaudio/prism/app/meter/soundlevel"
)

// LevelSource is where a LevelHistoryView pulls its rows from
// (levelhist.History).
type LevelSource interface {
	Rows(dst []soundlevel.Row, after int64) (n int, next int64)
}

// LevelSpans are the time spans the level-history strip offers, from
// a minute to its history's 12 hours.
var LevelSpans = []time.Duration{time.Minute, 10 * time.Minute, time.Hour, 12 * time.Hour}

// The strip's level scale, dB re a full-scale sine (a calibration shifts
// its labels into dB SPL).
const (
	levelMinDB = -90.0
	levelMaxDB = 10.0
)

// peakScaleDB puts a true peak (dBTP) on the sound levels' scale, where
// a peak reads 3.01 dB above the RMS level of a sine of that amplitude
// (as LCpeak does).
var peakScaleDB = 10 * math.Log10(2)

// levelTrace is one trace of the strip: its name in the legend and
// colour, and how a column takes its rows (energy mean or maximum).
type levelTrace struct {
	name  string
	color func(*palette) color.RGBA
	value func(*soundlevel.Row) float64
	mean  bool
}

var levelTraces = [...]levelTrace{
	{"LAeq", func(p *palette) color.RGBA { return p.traces[0] }, func(r *soundlevel.Row) float64 { return r.LAeq }, true},
	{"LCeq", func(p *palette) color.RGBA { return p.traces[1] }, func(r *soundlevel.Row) float64 { return r.LCeq }, true},
	{"LAFmax", func(p *palette) color.RGBA { return p.traces[2] }, func(r *soundlevel.Row) float64 { return r.LAFmax }, false},
	{"LASmax", func(p *palette) color.RGBA { return p.traces[3] }, func(r *soundlevel.Row) float64 { return r.LASmax }, false},
	{"LCpeak", func(p *palette) color.RGBA { return p.peak }, func(r *soundlevel.Row) float64 { return r.LCpeak }, false},
	{"TP", func(p *palette) color.RGBA { return p.avg }, func(r *soundlevel.Row) float64 { return r.TruePeakDBTP + peakScaleDB }, false},
}

// LevelHistoryView is the level-history strip: levels against time, the
// newest at the right edge and Span back from it, one trace each for
// LAeq and LCeq per interval (energy-averaged where several intervals
// share a pixel column), LAFmax, LASmax, LCpeak and the true peak (their
// maxima per column; the true peak on the sound levels' peak scale,
// dBTP + 3.01), with a legend and the newest interval's numbers above.
// Only the Fyne goroutine uses it.
type LevelHistoryView struct {
	plotBase
	rows  []soundlevel.Row // pulled, oldest first
	next  int64
	chunk []soundlevel.Row
	span  time.Duration
	calOn bool
	calDB float64
	cols  [len(levelTraces)][]float64 // per pixel column: linear sum (means) or max, dB
	count []int
	line  []byte
}

// NewLevelHistoryView makes an empty strip spanning LevelSpans[0] (a minute).
func NewLevelHistoryView() *LevelHistoryView {
	v := &LevelHistoryView{span: LevelSpans[0], chunk: make([]soundlevel.Row, 512), line: make([]byte, 0, 128)}
	v.dark = true
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *LevelHistoryView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(300, 150))
}

// SetDark chooses the dark or light palette.
func (v *LevelHistoryView) SetDark(dark bool) { v.dark = dark; v.raster.Refresh() }

// SetCalibration labels the levels in dB SPL (on: dB SPL = dB re full
// scale + offsetDB) or in dB re full scale.
func (v *LevelHistoryView) SetCalibration(on bool, offsetDB float64) {
	v.calOn, v.calDB = on, offsetDB
	v.raster.Refresh()
}

// SetSpan sets the time shown (> 0).
func (v *LevelHistoryView) SetSpan(d time.Duration) {
	if d > 0 && d != v.span {
		v.span = d
		v.raster.Refresh()
	}
}

// Span is the time shown.
func (v *LevelHistoryView) Span() time.Duration { return v.span }

// Rows are the rows pulled so far, oldest first (the view's own; valid
// until the next Pull).
func (v *LevelHistoryView) Rows() []soundlevel.Row { return v.rows }

// Pull copies the rows src has that the view has not and redraws when
// there were any; a source that started over is read again from its
// start. It allocates only while its copy grows to levelhist.Capacity.
func (v *LevelHistoryView) Pull(src LevelSource) {
	got := false
	for {
		n, next := src.Rows(v.chunk, v.next)
		if next < v.next { // started over
			v.rows, v.next, got = v.rows[:0], 0, true
			continue
		}
		if len(v.rows)+n > levelhist.Capacity {
			drop := len(v.rows) + n - levelhist.Capacity
			v.rows = append(v.rows[:0], v.rows[drop:]...)
		}
		v.rows = append(v.rows, v.chunk[:n]...)
		v.next = next
		got = got || n > 0
		if n < len(v.chunk) {
			break
		}
	}
	if got {
		v.raster.Refresh()
	}
}

// Text is the legend with the newest interval's numbers, as drawn above
// the strip.
func (v *LevelHistoryView) Text() string { return string(v.line) }

func (v *LevelHistoryView) offset() float64 {
	if v.calOn {
		return v.calDB
	}
	return 0
}

func (v *LevelHistoryView) draw(w, h int) image.Image {
	unit := "dB"
	if v.calOn {
		unit = "dB SPL"
	}
	key := bgKey{dbMin: levelMinDB + v.offset(), dbMax: levelMaxDB + v.offset(), extra: v.span.Seconds(), unit: unit}
	if v.begin(w, h, key) {
		v.drawBackground(key)
	}
	v.fromBackground()
	v.drawTraces()
	v.drawReadout()
	return v.img
}

// drawBackground draws the grid and the dB and time labels.
func (v *LevelHistoryView) drawBackground(key bgKey) {
	v.clear()
	v.drawDBGrid(key.dbMin, key.dbMax)
	pal := paletteFor(v.dark)
	p, a := &v.p, v.area
	step := levelTimeStep(v.span, a.Dx())
	for k := time.Duration(0); k <= v.span; k += step {
		x := a.Max.X - 1 - int(float64(k)/float64(v.span)*float64(a.Dx()-1)+0.5)
		p.vline(x, a.Min.Y, a.Max.Y-1, pal.grid)
		label := "now"
		if k > 0 {
			label = "−" + shortDuration(k)
		}
		p.text(label, x, a.Max.Y+p.px(3), 0.5, 0, pal.text)
	}
	p.text(key.unit, p.px(4), p.px(2), 0, 0, pal.text)
}

// levelTimeStep is the time grid's step: the shortest of the usual steps that
// leaves some 70 pixels between lines across pixels for span.
func levelTimeStep(span time.Duration, pixels int) time.Duration {
	for _, s := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
		30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
		30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour} {
		if float64(span/s) <= max(1, float64(pixels)/70) {
			return s
		}
	}
	return 12 * time.Hour
}

// shortDuration is a grid label: "30 s", "5 min", "2 h".
func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + " h"
	case d%time.Minute == 0:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// drawTraces bins the rows in the span into pixel columns and draws each
// trace as a line from column to column.
func (v *LevelHistoryView) drawTraces() {
	a := v.area
	n := len(v.rows)
	if n == 0 || a.Dx() < 2 {
		return
	}
	if len(v.count) != a.Dx() {
		v.count = make([]int, a.Dx())
		for i := range v.cols {
			v.cols[i] = make([]float64, a.Dx())
		}
	}
	clear(v.count)
	for i := range v.cols {
		clear(v.cols[i])
	}
	last := v.rows[n-1]
	end := last.StartSeconds + v.interval()
	span := v.span.Seconds()
	for i := n - 1; i >= 0 && v.rows[i].StartSeconds+2*v.interval() > end-span; i-- { // one before the span: the line reaches the left edge
		r := &v.rows[i]
		// each row at its end: the newest at the right edge
		x := min(a.Dx()-1, max(0, int((r.StartSeconds+v.interval()-(end-span))/span*float64(a.Dx()))-1))
		v.addRow(x, r)
	}
	pal := paletteFor(v.dark)
	off := v.offset()
	ymin, ymax := levelMinDB+off, levelMaxDB+off
	for ti, t := range levelTraces {
		c, px, py := t.color(pal), -1, 0
		for x := range a.Dx() {
			if v.count[x] == 0 {
				continue // the line goes on to the next column with rows
			}
			db := v.cols[ti][x]
			if t.mean {
				db = 10 * math.Log10(db/float64(v.count[x]))
			}
			if math.IsInf(db, 0) || math.IsNaN(db) {
				px = -1
				continue
			}
			y := dbToY(float32(db+off), ymin, ymax, a.Min.Y, a.Max.Y)
			if px >= 0 {
				v.p.hline(a.Min.X+px, a.Min.X+x, py, c)
				v.p.vline(a.Min.X+x, py, y, c)
			}
			v.p.set(a.Min.X+x, y, c)
			px, py = x, y
		}
	}
}

// addRow adds row r to pixel column x: the means' powers summed, the
// maxima kept.
func (v *LevelHistoryView) addRow(x int, r *soundlevel.Row) {
	first := v.count[x] == 0
	v.count[x]++
	for ti, t := range levelTraces {
		val := t.value(r)
		switch {
		case t.mean:
			v.cols[ti][x] += math.Pow(10, val/10)
		case first || val > v.cols[ti][x]:
			v.cols[ti][x] = val
		}
	}
}

// interval is the rows' interval in seconds (from the last two rows; 1
// for a single row).
func (v *LevelHistoryView) interval() float64 {
	if n := len(v.rows); n > 1 {
		return v.rows[n-1].StartSeconds - v.rows[n-2].StartSeconds
	}
	return 1
}

// drawReadout writes the legend, each trace's name in its colour with
// the newest row's value, from the plot's left edge above it.
func (v *LevelHistoryView) drawReadout() {
	v.line = v.line[:0]
	var r soundlevel.Row
	have := len(v.rows) > 0
	if have {
		r = v.rows[len(v.rows)-1].Calibrated(v.offset())
	}
	pal := paletteFor(v.dark)
	x := v.area.Min.X
	for i, t := range levelTraces {
		start := len(v.line)
		v.line = append(v.line, t.name...)
		if have && i < len(levelTraces)-1 {
			v.line = appendLevelDB(v.line, t.value(&r))
		} else if have {
			v.line = append(appendLevelDB(v.line, r.TruePeakDBTP), " dBTP"...)
		}
		x += v.p.textBytes(v.line[start:], x, v.p.px(2), 0, 0, t.color(pal)) + v.p.px(10)
		v.line = append(v.line, "  "...)
	}
	v.line = v.line[:len(v.line)-2]
}

// appendLevelDB appends " −20.0" (" −∞" for silence).
func appendLevelDB(b []byte, db float64) []byte {
	if math.IsInf(db, -1) || math.IsNaN(db) {
		return append(b, " −∞"...)
	}
	b = append(b, ' ')
	if db < 0 {
		b, db = append(b, "−"...), -db
	}
	return strconv.AppendFloat(b, db, 'f', 1, 64)
}
