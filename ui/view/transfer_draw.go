package view

import (
	"image"
	"image/color"
	"math"
	"strconv"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/plot"
)

// Drawing the transfer view: a header (the delay readout, the legend),
// then stacked panes sharing one log frequency axis (magnitude with
// coherence on a right axis, phase, group delay on request), and under
// them the impulse response and its energy–time curve side by side.

// transfer layout, in Fyne units
const (
	trHeader = 36 // readout and legend rows
	trRight  = 44 // the coherence axis's labels
	trGap    = 12 // between panes
	trLabels = 20 // frequency or lag labels under a pane
	etcFloor = -80
	cohTop   = 1.04 // the coherence axis's top: γ² = 1 shows below the pane's edge
)

// layout places the panes for a w×h frame.
func (v *TransferView) layout(w, h int) {
	p := &v.p
	left, right := p.px(marginLeft), w-p.px(trRight)
	y := p.px(trHeader)
	weights, n := [3]float64{3, 2, 1.5}, 2
	if v.opts.GroupDelay {
		n = 3
	}
	free := h - y - p.px(trLabels) - (n-1)*p.px(trGap)
	irW := 0.0
	if v.opts.Impulse {
		irW = 2
		free -= p.px(trGap) + p.px(trLabels)
	}
	total := irW
	for _, wt := range weights[:n] {
		total += wt
	}
	rects := [3]image.Rectangle{}
	for i, wt := range weights[:n] {
		hh := int(float64(free) * wt / total)
		rects[i] = image.Rect(left, y, right, y+hh)
		y += hh + p.px(trGap)
	}
	v.panes = transferPanes{mag: rects[0], phase: rects[1], gd: rects[2]}
	if v.opts.Impulse {
		y += p.px(trLabels)
		hh := int(float64(free) * irW / total)
		mid := (left + right) / 2
		v.panes.ir = image.Rect(left, y, mid-p.px(28), y+hh)
		v.panes.etc = image.Rect(mid+p.px(28), y, right, y+hh)
	}
}

func (v *TransferView) draw(w, h int) image.Image {
	key := bgKey{dbMin: v.opts.MagMin, dbMax: v.opts.MagMax, extraI: v.bgVer}
	redraw := v.begin(w, h, key)
	v.layout(w, h)
	if v.have && v.panes.mag.Dx() != v.cols {
		v.compute() // the width changed: map the columns again
		v.appendReadout()
		redraw = true
	}
	if redraw {
		v.bgKey.extraI = v.bgVer
		v.p.img = v.bg
		v.drawBackground()
	}
	v.fromBackground()
	if v.have && len(v.cMag) > 0 && len(v.cMag[0]) == v.panes.mag.Dx() {
		v.drawTraces()
		if v.opts.Impulse && v.irOK && len(v.ir) == v.irLabelN {
			v.drawImpulse()
		}
	}
	pal := paletteFor(v.dark)
	v.p.textBytes(v.readout, v.panes.mag.Min.X, v.p.px(2), 0, 0, pal.text)
	return v.img
}

// drawBackground draws the panes, grids, axis labels and legend.
func (v *TransferView) drawBackground() {
	pal := paletteFor(v.dark)
	p := &v.p
	p.fill(p.img.Rect, pal.bg)
	axis := v.axis
	if axis.High == 0 {
		axis = plot.NewFreqAxis(plot.Log, 48000, 65536)
	}
	mag := v.panes.mag
	p.fill(mag, pal.plotBg)
	v.area = mag
	v.drawDBGrid(v.opts.MagMin, v.opts.MagMax)
	v.drawFreqGrid(axis, false)
	for _, g := range []float64{0, 0.5, 1} {
		y := dbToY(float32(g), 0, cohTop, mag.Min.Y, mag.Max.Y)
		p.text(strconv.FormatFloat(g, 'f', -1, 64), mag.Max.X+p.px(4), y, 0, 0.5, pal.text)
	}
	title := "magnitude dB   ·   coherence γ² (right axis)"
	if v.mic != nil {
		title = "magnitude dB (" + v.mic.Name + " taken out)   ·   coherence γ² (right axis)"
	}
	if v.diffTo >= 0 {
		title = "difference to " + v.refs[v.diffTo].Name + ", dB   ·   coherence γ² (right axis)"
	}
	p.text(title, mag.Min.X+p.px(4), mag.Min.Y+p.px(2), 0, 0, pal.text)

	ph := v.panes.phase
	p.fill(ph, pal.plotBg)
	v.area = ph
	v.drawYGrid(v.phLo, v.phHi, phaseStep(v.phHi-v.phLo), "°")
	v.drawFreqGrid(axis, !v.opts.GroupDelay)
	title = "phase, wrapped"
	switch {
	case v.opts.Unwrap && v.res.Tracked:
		title = "phase, unwrapped, tracked delay taken out"
	case v.opts.Unwrap:
		title = "phase, unwrapped, found delay taken out"
	}
	p.text(title, ph.Min.X+p.px(4), ph.Min.Y+p.px(2), 0, 0, pal.text)
	if v.opts.GroupDelay {
		gd := v.panes.gd
		p.fill(gd, pal.plotBg)
		v.area = gd
		v.drawYGrid(v.gdLo, v.gdHi, niceStep((v.gdHi-v.gdLo)/4), "")
		v.drawFreqGrid(axis, true)
		p.text("group delay, ms", gd.Min.X+p.px(4), gd.Min.Y+p.px(2), 0, 0, pal.text)
	}
	if v.opts.Impulse {
		v.drawImpulseBackground()
	}
	v.drawLegend()
}

// drawYGrid draws horizontal grid lines every step from lo to hi with
// their labels (and unit) left of the area.
func (v *TransferView) drawYGrid(lo, hi, step float64, unit string) {
	pal := paletteFor(v.dark)
	a := v.area
	for t := math.Ceil(lo/step) * step; t <= hi+1e-9; t += step {
		if math.Abs(t) < step*1e-6 {
			t = 0 // not "−0"
		}
		y := dbToY(float32(t), lo, hi, a.Min.Y, a.Max.Y)
		c := pal.grid
		if t == 0 {
			c = pal.gridMajor
		}
		v.p.hline(a.Min.X, a.Max.X, y, c)
		v.p.text(strconv.FormatFloat(t, 'f', -1, 64)+unit, a.Min.X-v.p.px(4), y, 1, 0.5, pal.text)
	}
}

// phaseStep is the phase grid's step for a span of degrees: 90° up to
// two turns, then whole multiples of 180°.
func phaseStep(span float64) float64 {
	step := 90.0
	for span/step > 6 {
		step *= 2
	}
	return step
}

// drawImpulseBackground draws the impulse response's and the ETC's
// panes: amplitude and level axes, and the lag axis in ms.
func (v *TransferView) drawImpulseBackground() {
	pal := paletteFor(v.dark)
	p := &v.p
	for i, a := range []image.Rectangle{v.panes.ir, v.panes.etc} {
		p.fill(a, pal.plotBg)
		v.area = a
		if i == 0 {
			v.drawYGrid(-1, 1, 0.5, "")
			lbl := "impulse response (linear, re peak) · lag, ms"
			if v.res.Tracked {
				lbl = "impulse response (linear) · lag after the tracked delay, ms"
			}
			p.text(lbl, a.Min.X+p.px(4), a.Min.Y+p.px(2), 0, 0, pal.text)
		} else {
			v.drawYGrid(etcFloor, 0, 20, "")
			p.text("energy–time curve, dB", a.Min.X+p.px(4), a.Min.Y+p.px(2), 0, 0, pal.text)
		}
		v.drawLagAxis(a)
	}
}

// drawLagAxis draws the lag grid and labels (ms) under area a.
func (v *TransferView) drawLagAxis(a image.Rectangle) {
	rate := v.res.Geometry.Rate
	if v.irSpan <= 0 || rate <= 0 {
		return
	}
	pal := paletteFor(v.dark)
	p := &v.p
	ms := func(i int) float64 { return float64(i-v.irLabelN/2) / float64(rate) * 1000 }
	t0, t1 := ms(v.irStart), ms(v.irStart+v.irSpan)
	step := niceStep((t1 - t0) * float64(p.px(50)) / float64(max(1, a.Dx())))
	for t := math.Ceil(t0/step) * step; t <= t1; t += step {
		if math.Abs(t) < step*1e-6 {
			t = 0 // not "−0"
		}
		x := a.Min.X + int((t-t0)/(t1-t0)*float64(a.Dx()-1)+0.5)
		c := pal.grid
		if math.Abs(t) < step/2 {
			c = pal.gridMajor
		}
		p.vline(x, a.Min.Y, a.Max.Y-1, c)
		p.text(strconv.FormatFloat(t, 'f', -1, 64), x, a.Max.Y+p.px(3), 0.5, 0, pal.text)
	}
}

// drawLegend draws the channels', spatial averages' and references'
// colours in the header's second row.
func (v *TransferView) drawLegend() {
	v.legend = v.legend[:0]
	for i, n := range v.names {
		v.legend = append(v.legend, legendItem{Label: n, Color: TransferColor(i)})
	}
	if len(v.names) >= 2 {
		v.legend = append(v.legend, legendItem{Label: "spatial avg", Color: spatialPowerColor},
			legendItem{Label: "coherence-weighted", Color: spatialCohColor})
	}
	if v.diffTo < 0 {
		for i, t := range v.refs {
			v.legend = append(v.legend, legendItem{Label: t.Name, Color: refColors[i%len(refColors)], Dashed: true})
		}
	}
	drawLegendItems(&v.p, v.legend, v.panes.mag.Max.X, v.p.px(18), paletteFor(v.dark))
}

// Legend is the legend last drawn.
func (v *TransferView) Legend() []legendItem { return v.legend }

// drawTraces draws the coherence, magnitude, phase and group delay
// columns, the spatial averages and the references.
func (v *TransferView) drawTraces() {
	pal := paletteFor(v.dark)
	p := &v.p
	m := len(v.cPh)
	mag, ph := v.panes.mag, v.panes.phase
	thr := float32(v.opts.CohThreshold)
	for c := range m {
		drawColumns(p, mag, v.cCoh[c], 0, cohTop, mix(TransferColor(c), pal.plotBg, 0.55), nil, 0, color.RGBA{}, false)
	}
	if v.diffTo < 0 {
		for i := range v.rMag {
			rc := refColors[i%len(refColors)]
			drawColumnsDashed(p, mag, v.rMag[i], v.opts.MagMin, v.opts.MagMax, rc, false)
			if !v.opts.Unwrap {
				drawColumnsDashed(p, ph, v.rPh[i], v.phLo, v.phHi, rc, true)
			}
		}
	}
	faded := mix(pal.text, pal.plotBg, 0.65)
	for c := range m {
		col := TransferColor(c)
		drawColumns(p, mag, v.cMag[c], v.opts.MagMin, v.opts.MagMax, col, v.cCoh[c], thr, faded, false)
		drawColumns(p, ph, v.cPh[c], v.phLo, v.phHi, col, v.cCoh[c], thr, faded, !v.opts.Unwrap)
		if v.opts.GroupDelay {
			drawColumns(p, v.panes.gd, v.cGD[c], v.gdLo, v.gdHi, col, v.cCoh[c], thr, faded, false)
		}
	}
	if m >= 2 {
		drawColumns(p, mag, v.cMag[m], v.opts.MagMin, v.opts.MagMax, spatialPowerColor, nil, 0, color.RGBA{}, false)
		drawColumns(p, mag, v.cMag[m+1], v.opts.MagMin, v.opts.MagMax, spatialCohColor, nil, 0, color.RGBA{}, false)
	}
}

// drawColumns draws one value per column of a as a line on the axis
// lo…hi, in c, or in faded where fade (per column) is below thr; wrap
// breaks the line where it jumps by more than half a turn (a wrapped
// phase). NaN leaves a column out.
func drawColumns(p *painter, a image.Rectangle, vals []float32, lo, hi float64, c color.RGBA, fade []float32, thr float32, faded color.RGBA, wrap bool) {
	prev, prevV := -1, float32(0)
	for x, y := range vals {
		if y != y {
			prev = -1
			continue
		}
		row := dbToY(y, lo, hi, a.Min.Y, a.Max.Y)
		col := c
		if fade != nil && fade[x] < thr {
			col = faded
		}
		if prev < 0 || wrap && (y-prevV > 180 || prevV-y > 180) {
			p.set(a.Min.X+x, row, col)
		} else {
			m := (prev + row) / 2
			p.vline(a.Min.X+x-1, prev, m, col)
			p.vline(a.Min.X+x, m, row, col)
		}
		prev, prevV = row, y
	}
}

// drawColumnsDashed draws a reference's columns dashed (6 on, 3 off).
func drawColumnsDashed(p *painter, a image.Rectangle, vals []float32, lo, hi float64, c color.RGBA, wrap bool) {
	prev, prevV := -1, float32(0)
	for x, y := range vals {
		if y != y || x%9 >= 6 {
			prev = -1
			continue
		}
		row := dbToY(y, lo, hi, a.Min.Y, a.Max.Y)
		if prev < 0 || wrap && (y-prevV > 180 || prevV-y > 180) {
			p.set(a.Min.X+x, row, c)
		} else {
			p.vline(a.Min.X+x, prev, row, c)
		}
		prev, prevV = row, y
	}
}

// drawImpulse draws the chosen channel's impulse response (each column
// the span of its lags, re the peak's magnitude) and ETC (each column
// its lags' greatest level), with the peak marked.
func (v *TransferView) drawImpulse() {
	pal := paletteFor(v.dark)
	p := &v.p
	col := TransferColor(v.irCh)
	ir, etc := v.ir[v.irStart:v.irStart+v.irSpan], v.etc[v.irStart:v.irStart+v.irSpan]
	peak := 0.0
	for _, s := range ir {
		peak = max(peak, math.Abs(s))
	}
	if peak == 0 {
		peak = 1
	}
	a, e := v.panes.ir, v.panes.etc
	prevE := -1
	for x := range a.Dx() {
		i0, i1 := x*len(ir)/a.Dx(), max((x+1)*len(ir)/a.Dx(), x*len(ir)/a.Dx()+1)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range ir[i0:min(i1, len(ir))] {
			lo, hi = min(lo, s), max(hi, s)
		}
		p.vline(a.Min.X+x, dbToY(float32(lo/peak), -1, 1, a.Min.Y, a.Max.Y), dbToY(float32(hi/peak), -1, 1, a.Min.Y, a.Max.Y), col)
	}
	for x := range e.Dx() {
		i0, i1 := x*len(etc)/e.Dx(), max((x+1)*len(etc)/e.Dx(), x*len(etc)/e.Dx()+1)
		top := math.Inf(-1)
		for _, s := range etc[i0:min(i1, len(etc))] {
			top = max(top, s)
		}
		y := dbToY(float32(top), etcFloor, 0, e.Min.Y, e.Max.Y)
		if prevE >= 0 {
			p.vline(e.Min.X+x, prevE, y, col)
		} else {
			p.set(e.Min.X+x, y, col)
		}
		prevE = y
	}
	if v.irDelay.Found {
		lag := float64(v.irLabelN/2) + v.irDelay.Samples - float64(v.irStart)
		for _, r := range []image.Rectangle{a, e} {
			x := r.Min.X + int(lag/float64(v.irSpan)*float64(r.Dx())+0.5)
			if x >= r.Min.X && x < r.Max.X {
				p.dashedV(x, r.Min.Y, r.Max.Y, pal.peak)
			}
		}
	}
}

// appendReadout writes the delay readout of the IR channel: the delay
// in ms, samples and metres and the polarity, or in words why there is
// none.
func (v *TransferView) appendReadout() {
	b := v.readout[:0]
	r := &v.res
	if !v.have || len(r.Channels) == 0 {
		v.readout = append(b, "waiting for the transfer analyzer"...)
		return
	}
	c := min(max(v.opts.IRChannel, 0), len(r.Channels)-1)
	b = append(b, "ch "...)
	b = strconv.AppendInt(b, int64(r.Channels[c]+1), 10)
	b = append(b, ": "...)
	d := v.foundDelay(c)
	switch {
	case r.Tracked && c < len(r.Delays) && r.Delays[c].Finds == 0:
		b = append(b, "tracking: finding the delay"...)
	case r.Tracked && c < len(r.Delays) && r.Delays[c].NoPeak:
		b = append(b, "no clear peak (tracking)"...)
	case !r.Tracked && c >= v.nFound:
		b = append(b, "delay not found yet: Find (F) or Track (T)"...)
	case !d.Found:
		b = append(b, "no clear peak: no delay found"...)
	default:
		b = appendDelay(b, d, r.Geometry.Rate, v.opts.SpeedOfSound)
		if r.Tracked {
			b = append(b, " · tracking"...)
		}
	}
	b = append(b, "   averaged "...)
	b = strconv.AppendInt(b, int64(r.Averaged), 10)
	// the other channels' delays, shortly (as many as fit a line)
	for i, n := 0, 0; i < len(r.Channels) && n < maxOtherDelays; i++ {
		if i == c {
			continue
		}
		n++
		b = append(b, "   ch "...)
		b = strconv.AppendInt(b, int64(r.Channels[i]+1), 10)
		if d := v.foundDelay(i); d.Found {
			b = append(b, ' ')
			b = strconv.AppendFloat(b, d.Seconds(float64(r.Geometry.Rate))*1000, 'f', 3, 64)
			b = append(b, " ms"...)
		} else {
			b = append(b, " —"...)
		}
	}
	v.readout = b
}

// maxOtherDelays is how many other channels' delays the readout lists.
const maxOtherDelays = 6

// appendDelay formats a delay: "delay 2.500 ms · 120.0 samples · 0.858 m
// · polarity +".
func appendDelay(b []byte, d dual.Delay, rate int, speed float64) []byte {
	b = append(b, "delay "...)
	b = strconv.AppendFloat(b, d.Seconds(float64(rate))*1000, 'f', 3, 64)
	b = append(b, " ms · "...)
	b = strconv.AppendFloat(b, d.Samples, 'f', 1, 64)
	b = append(b, " samples · "...)
	b = strconv.AppendFloat(b, d.Metres(float64(rate), speed), 'f', 3, 64)
	b = append(b, " m · polarity "...)
	if d.Polarity < 0 {
		return append(b, "inverted (−)"...)
	}
	return append(b, '+')
}

// mix is a weighted blend of a (weight 1−t) and b (t).
func mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 255}
}
