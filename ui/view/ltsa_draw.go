package view

import (
	"image"
	"math"
	"strconv"
	"time"

	"github.com/prismaudio/prism/app/plot"
)

// Image is the last frame drawn.
func (v *LTSAView) Image() *image.RGBA { return v.img }

func (v *LTSAView) draw(w, h int) image.Image {
	// the title says the span, average, bins, colour range and unit: it
	// keys the background with the message
	key := bgKey{axis: v.axis, extra: v.t0, dbMax: v.t1, extraS: v.message + "\x00" + v.title()}
	if v.begin(w, h, key) {
		v.drawBackground()
	}
	v.fromBackground()
	a := v.area
	if v.over == nil || v.message != "" {
		return v.img
	}
	k := ltsaKey{v.over, v.detail, a.Dx(), a.Dy(), v.t0, v.t1, v.lut, v.dbMin, v.dbMax}
	if k != v.plotKey || v.plot == nil {
		v.renderPlot()
		v.plotKey = k
	}
	stride := a.Dx() * 4
	for y := range a.Dy() {
		o := v.img.PixOffset(a.Min.X, a.Min.Y+y)
		copy(v.img.Pix[o:o+stride], v.plot.Pix[y*v.plot.Stride:y*v.plot.Stride+stride])
	}
	if v.hover && v.readout != "" {
		pal := paletteFor(v.dark)
		if px := v.p.px(v.cursor.X); px >= a.Min.X && px < a.Max.X {
			v.p.dashedV(px, a.Min.Y, a.Max.Y, pal.cursor)
		}
		v.p.fill(image.Rect(a.Min.X, a.Min.Y, a.Min.X+v.p.textWidth(v.readout)+v.p.px(8), a.Min.Y+v.p.textHeight()+v.p.px(4)), pal.bg)
		v.p.text(v.readout, a.Min.X+v.p.px(4), a.Min.Y+v.p.px(2), 0, 0, pal.cursor)
	}
	return v.img
}

// renderPlot draws the span shown into v.plot: per pixel the maximum of
// the bins (time and frequency) it covers; time without rows keeps the
// plot's background.
func (v *LTSAView) renderPlot() {
	a := v.area
	W, H := a.Dx(), a.Dy()
	v.plot = ensureImage(v.plot, W, H)
	pal := paletteFor(v.dark)
	bg := []uint8{pal.plotBg.R, pal.plotBg.G, pal.plotBg.B, 255}
	src := v.source()
	n := len(src.Freqs)
	lo, hi := v.axis.RowBins(H, 2*(n-1), int(math.Round(2*src.Freqs[n-1])))
	sh := plot.NewShaderLUT(v.lut, v.dbMin, v.dbMax)
	for x := range W {
		ta := v.t0 + float64(x)/float64(W)*(v.t1-v.t0)
		tb := v.t0 + float64(x+1)/float64(W)*(v.t1-v.t0)
		i, j := v.rowsIn(src, ta, tb)
		for y := range H {
			pix := v.plot.Pix[v.plot.PixOffset(x, y):]
			if j <= i {
				copy(pix[:4], bg)
				continue
			}
			r := H - 1 - y // row 0 of RowBins is the low end
			m := float32(math.Inf(-1))
			for _, row := range src.Rows[i:j] {
				for _, d := range row.Level[lo[r]:min(int(hi[r]), len(row.Level))] {
					m = max(m, d)
				}
			}
			sh.Put(pix, m)
		}
	}
}

func (v *LTSAView) drawBackground() {
	pal := paletteFor(v.dark)
	p := &v.p
	a := v.area
	v.clear()
	if v.over == nil || v.message != "" {
		msg := v.message
		if msg == "" {
			msg = "Open a folder of recordings or a manifest (Open archive…)"
		}
		p.text(msg, a.Min.X+a.Dx()/2, a.Min.Y+a.Dy()/2, 0.5, 0.5, pal.text)
		return
	}
	for _, f := range plot.FreqTicks(v.axis, a.Dy()) {
		y := a.Max.Y - 1 - int(v.axis.Pos(f)*float64(a.Dy()-1)+0.5)
		p.hline(a.Min.X-p.px(4), a.Min.X, y, pal.gridMajor)
		p.text(plot.FormatHz(f), a.Min.X-p.px(6), y, 1, 0.5, pal.text)
	}
	from, to := v.View()
	step := utcStep(to.Sub(from), a.Dx(), p.textWidth("Mar 15 00:00")+p.px(16))
	for _, t := range utcTicks(from, to, step) {
		x := a.Min.X + int(t.Sub(from).Seconds()/(v.t1-v.t0)*float64(a.Dx()-1)+0.5)
		p.vline(x, a.Max.Y, a.Max.Y+p.px(4), pal.gridMajor)
		p.text(FormatUTC(t, step), x, a.Max.Y+p.px(5), 0.5, 0, pal.text)
	}
	p.text("Hz", p.px(4), p.px(2), 0, 0, pal.text)
	p.text(v.title(), a.Max.X, p.px(2), 1, 0, pal.text)
}

// title is the line over the plot: the span shown, the average, the bin
// width, the colour range and the unit ("" with no LTSA).
func (v *LTSAView) title() string {
	if v.over == nil {
		return ""
	}
	from, to := v.View()
	src := v.source()
	return from.UTC().Format("2006-01-02 15:04:05") + " – " + to.UTC().Format("2006-01-02 15:04:05") + " UTC · average " +
		FormatAverage(src.Average) + " · " + plot.FormatHz(src.Freqs[1]) + " bins · colour " + dbLabel(v.dbMin) + "…" + dbLabel(v.dbMax) + " " + src.Unit
}

// utcSteps are the LTSA's time axis steps, finest first.
var utcSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 28 * 24 * time.Hour,
}

// utcStep is the finest step whose ticks over span drawn `pixels` wide
// are at least gap pixels apart.
func utcStep(span time.Duration, pixels, gap int) time.Duration {
	for _, s := range utcSteps {
		if float64(s)/float64(span)*float64(pixels) >= float64(gap) {
			return s
		}
	}
	return utcSteps[len(utcSteps)-1]
}

// utcTicks are the multiples of step within from..to, counted from Go's
// zero time (UTC midnight of 1 January of year 1, so a step that divides a
// day ticks on the clock).
func utcTicks(from, to time.Time, step time.Duration) []time.Time {
	t := from.UTC().Truncate(step)
	if t.Before(from) {
		t = t.Add(step)
	}
	var out []time.Time
	for ; !t.After(to) && len(out) < 1000; t = t.Add(step) {
		out = append(out, t)
	}
	return out
}

// FormatUTC is an LTSA axis label at step: the date at midnight and for
// steps of days ("Mar 15"), else the clock ("14:30", "14:30:05").
func FormatUTC(t time.Time, step time.Duration) string {
	t = t.UTC()
	switch {
	case step >= 24*time.Hour || (t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0):
		return t.Format("Jan 2")
	case step >= time.Minute:
		return t.Format("15:04")
	}
	return t.Format("15:04:05")
}

// FormatAverage is an LTSA's average as people say it: "500 ms", "5 s",
// "1 min", "2 h".
func FormatAverage(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + " h"
	case d >= time.Minute && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	case d >= time.Second && d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + " s"
	}
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + " ms"
}
