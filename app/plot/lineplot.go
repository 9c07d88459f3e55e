package plot

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
)

// LineOptions shape a spectrum line plot (`prism spectrum -o OUT.png`).
type LineOptions struct {
	Width, Height int     // plot area in pixels
	Scale         Scale   // frequency axis
	DBMin, DBMax  float64 // vertical range
	Unit          string  // vertical axis label, e.g. "dBFS/Hz"
	Title         string
}

// lineColors tell up to ten traces apart (then they repeat).
var lineColors = []color.RGBA{
	{255, 200, 60, 255}, {90, 180, 255, 255}, {255, 100, 110, 255}, {120, 220, 120, 255},
	{200, 140, 255, 255}, {255, 150, 60, 255}, {80, 220, 210, 255}, {230, 230, 230, 255},
	{255, 120, 200, 255}, {170, 170, 90, 255},
}

// Lines draws traces (levels[c][k] at freqHz[k], names[c] in the legend)
// over a frequency axis of sampleRate and fft bins, with dB ticks, axis
// labels, title and legend. Levels outside the range are clipped to it;
// −Inf and NaN break the line.
func Lines(o LineOptions, sampleRate, fft int, freqHz []float64, levels [][]float64, names []string) *image.RGBA {
	axis := NewFreqAxis(o.Scale, sampleRate, fft)
	return lines(o, xAxis{pos: axis.Pos, ticks: FreqTicks(axis, o.Width), label: axis.Label, unit: "Hz"}, freqHz, levels, names)
}

// TimeLines draws traces (levels[c][i] at t[i] seconds) over a linear
// time axis from 0 to seconds, as Lines does over frequency.
func TimeLines(o LineOptions, seconds float64, t []float64, levels [][]float64, names []string) *image.RGBA {
	pos := func(v float64) float64 { return v / seconds }
	label := func(v float64) string { return FormatSeconds(v, seconds) }
	return lines(o, xAxis{pos: pos, ticks: TimeTicks(seconds, o.Width), label: label, unit: "s"}, t, levels, names)
}

// xAxis is a line plot's horizontal axis: where a value lies (0…1), its
// ticks, their labels and the axis's unit.
type xAxis struct {
	pos   func(float64) float64
	ticks []float64
	label func(float64) string
	unit  string
}

func lines(o LineOptions, ax xAxis, xs []float64, levels [][]float64, names []string) *image.RGBA {
	W, H := o.Width, o.Height
	x0, y0 := marginLeft, marginTop
	img := image.NewRGBA(image.Rect(0, 0, marginLeft+W+marginRight, marginTop+H+marginBottom))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{18, 18, 24, 255}), image.Point{}, draw.Src)
	ypos := func(db float64) float64 {
		return float64(y0) + (o.DBMax-db)/(o.DBMax-o.DBMin)*float64(H-1)
	}
	grid := color.RGBA{45, 45, 55, 255}
	for _, v := range DBTicks(o.DBMin, o.DBMax, 10) {
		y := int(math.Round(ypos(v)))
		hline(img, x0, x0+W, y, grid)
		hline(img, x0-6, x0-1, y, GridColor)
		text(img, fmt.Sprintf("%g", v), x0-9, y, 1, 0.5)
	}
	for _, f := range ax.ticks {
		x := x0 + int(math.Round(ax.pos(f)*float64(W-1)))
		vline(img, x, y0, y0+H, grid)
		vline(img, x, y0+H+1, y0+H+6, GridColor)
		text(img, ax.label(f), x, y0+H+9, 0.5, 0)
	}
	text(img, ax.unit, x0+W/2, y0+H+30, 0.5, 0)
	text(img, o.Unit, 8, y0-22, 0, 0)
	if o.Title != "" {
		text(img, o.Title, x0, 12, 0, 0)
	}
	clip := image.Rect(x0, y0, x0+W, y0+H)
	for c, lv := range levels {
		col := lineColors[c%len(lineColors)]
		prev, ok := image.Point{}, false
		for k, f := range xs {
			if k >= len(lv) {
				break
			}
			p := ax.pos(f)
			v := lv[k]
			if p < 0 || p > 1 || math.IsNaN(v) || math.IsInf(v, -1) {
				ok = false
				continue
			}
			v = min(max(v, o.DBMin), o.DBMax)
			pt := image.Pt(x0+int(math.Round(p*float64(W-1))), int(math.Round(ypos(v))))
			if ok {
				segment(img, prev, pt, col, clip)
			}
			prev, ok = pt, true
		}
		if len(levels) > 1 && c < len(names) {
			ly := y0 + 8 + 18*c
			hline(img, x0+W+12, x0+W+32, ly, col)
			text(img, names[c], x0+W+36, ly, 0, 0.5)
		}
	}
	hline(img, x0-1, x0+W+1, y0-1, GridColor)
	hline(img, x0-1, x0+W+1, y0+H, GridColor)
	vline(img, x0-1, y0-1, y0+H+1, GridColor)
	vline(img, x0+W, y0-1, y0+H+1, GridColor)
	return img
}

// segment draws a line from a to b (DDA), inside clip.
func segment(img *image.RGBA, a, b image.Point, c color.RGBA, clip image.Rectangle) {
	dx, dy := b.X-a.X, b.Y-a.Y
	steps := max(abs(dx), abs(dy), 1)
	for i := 0; i <= steps; i++ {
		p := image.Pt(a.X+dx*i/steps, a.Y+dy*i/steps)
		if p.In(clip) {
			img.SetRGBA(p.X, p.Y, c)
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
