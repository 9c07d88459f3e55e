package view

import (
	"image"
	"strconv"

	"fyne.io/fyne/v2"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/plot"
)

// colourScaleWidth is the room (Fyne units) the colour scale takes right
// of the file view's plot.
const colourScaleWidth = 44

// SetLanes hands the view one spectrogram per channel of the file shown
// (analysed with the overview's frames), drawn as lanes while ShowLanes
// is on.
func (v *FileView) SetLanes(lanes []*analysis.FileSpectrogram) {
	v.play.lanes = lanes[:min(len(lanes), maxLanes)]
	v.relane()
}

// ShowLanes draws every channel as its own lane (on), or the overview.
func (v *FileView) ShowLanes(on bool) {
	v.play.lanesOn = on
	v.relane()
}

// LanesShown says how many lanes are drawn (0: the overview alone).
func (v *FileView) LanesShown() int {
	if !v.lanesValid() {
		return 0
	}
	return len(v.play.lanes)
}

// Lanes are the lanes handed (shown or not).
func (v *FileView) Lanes() []*analysis.FileSpectrogram { return v.play.lanes }

func (v *FileView) relane() {
	v.play.laneGen++
	v.play.tag = "lanes " + strconv.Itoa(v.LanesShown()) + " " + strconv.Itoa(v.play.laneGen)
	v.updateCursor()
	v.Refresh()
}

// lanesValid says whether lanes are on and belong to the file shown.
func (v *FileView) lanesValid() bool {
	l := v.play.lanes
	if !v.play.lanesOn || len(l) < 2 || v.fs == nil {
		return false
	}
	for _, s := range l {
		if s == nil || s.Path != v.fs.Path || s.FFT != v.fs.FFT || s.Rate != v.fs.Rate || len(s.Columns) == 0 {
			return false
		}
	}
	return true
}

// laneRects are the plot's lanes in pixels: the plot area, or one strip
// per channel with a gap between. The slice is the view's own.
func (v *FileView) laneRects() []image.Rectangle {
	a := v.area
	n := v.LanesShown()
	if n == 0 {
		v.play.rects[0] = a
		return v.play.rects[:1]
	}
	gap := v.p.px(6)
	h := (a.Dy() - gap*(n-1)) / n
	for i := range n {
		y0 := a.Min.Y + i*(h+gap)
		v.play.rects[i] = image.Rect(a.Min.X, y0, a.Max.X, y0+h)
	}
	return v.play.rects[:n]
}

// laneSource is lane i's spectrogram (the overview or its detail
// without lanes).
func (v *FileView) laneSource(i int) *analysis.FileSpectrogram {
	if v.LanesShown() == 0 {
		return v.source()
	}
	return v.play.lanes[i]
}

// laneAt is the lane at pixel row y: its spectrogram and rectangle, and
// whether y is on one.
func (v *FileView) laneAt(y int) (*analysis.FileSpectrogram, image.Rectangle, bool) {
	rs := v.laneRects()
	for i, r := range rs {
		if y >= r.Min.Y && y < r.Max.Y {
			return v.laneSource(i), r, true
		}
	}
	return v.laneSource(0), rs[0], false
}

// SetFreqRange zooms the frequency axis to lo…hi Hz (0, 0: all of it).
func (v *FileView) SetFreqRange(lo, hi float64) {
	if hi <= lo {
		lo, hi = 0, 0
	}
	v.play.fLo, v.play.fHi = lo, hi
	v.SetScale(v.scale)
	v.updateCursor()
	v.Refresh()
}

// FreqRange is the frequency zoom (0, 0: none).
func (v *FileView) FreqRange() (lo, hi float64) { return v.play.fLo, v.play.fHi }

// drawColourScale draws the colour bar right of the plot, dbMax at the
// top, labelled every 10 or 20 dB. It does not allocate.
func (v *FileView) drawColourScale() {
	if v.fs == nil || v.lut == nil || v.dbMax <= v.dbMin {
		return
	}
	p := &v.p
	a := v.area
	x0, x1 := a.Max.X+p.px(6), a.Max.X+p.px(14)
	sh := plot.NewShaderLUT(v.lut, v.dbMin, v.dbMax)
	for y := a.Min.Y; y < a.Max.Y; y++ {
		db := v.dbMax - (float64(y-a.Min.Y)+0.5)/float64(a.Dy())*(v.dbMax-v.dbMin)
		for x := x0; x < x1; x++ {
			sh.Put(v.img.Pix[v.img.PixOffset(x, y):], float32(db))
		}
	}
	pal := paletteFor(v.dark)
	step := 10.0
	if float64(a.Dy())/(v.dbMax-v.dbMin)*step < float64(2*p.textHeight()) {
		step = 20
	}
	for db := float64(int(v.dbMax/step)) * step; db >= v.dbMin; db -= step {
		y := a.Min.Y + int((v.dbMax-db)/(v.dbMax-v.dbMin)*float64(a.Dy()-1)+0.5)
		p.hline(x1, x1+p.px(3), y, pal.gridMajor)
		v.play.label = strconv.AppendInt(v.play.label[:0], int64(db), 10)
		p.textBytes(v.play.label, x1+p.px(4), y, 0, 0.5, pal.text)
	}
	p.text("dB", x1+p.px(4), p.px(2), 0, 0, pal.text)
}

// clearGaps paints the plot image's rows between lanes in the background
// colour.
func (v *FileView) clearGaps() {
	rs := v.laneRects()
	if len(rs) < 2 {
		return
	}
	bg := paletteFor(v.dark).bg
	y0 := v.area.Min.Y
	for i := 0; i+1 < len(rs); i++ {
		for y := rs[i].Max.Y; y < rs[i+1].Min.Y; y++ {
			row := v.plot.Pix[(y-y0)*v.plot.Stride : (y-y0)*v.plot.Stride+4*v.plot.Rect.Dx()]
			for j := 0; j < len(row); j += 4 {
				row[j], row[j+1], row[j+2], row[j+3] = bg.R, bg.G, bg.B, 255
			}
		}
	}
}

// laneNames label the lanes.
var laneNames = [maxLanes]string{"ch 1", "ch 2", "ch 3", "ch 4", "ch 5", "ch 6", "ch 7", "ch 8"}

// drawLaneNames names each lane at its top right (the cursor's readout
// takes the top left).
func (v *FileView) drawLaneNames() {
	if v.LanesShown() == 0 {
		return
	}
	p := &v.p
	pal := paletteFor(v.dark)
	for i, r := range v.laneRects() {
		p.text(laneNames[i], r.Max.X-p.px(4), r.Min.Y+p.px(2), 1, 0, pal.cursor)
	}
}

// scrollFreq zooms the frequency axis around the cursor's frequency
// while Shift is held, and says whether it did.
func (v *FileView) scrollFreq(e *fyne.ScrollEvent) bool {
	if v.fs == nil || !shiftHeld() || e.Scrolled.DY == 0 {
		return false
	}
	_, lane, _ := v.laneAt(v.p.px(e.Position.Y))
	f := v.freqAtY(lane, v.p.px(e.Position.Y))
	factor := 0.8
	if e.Scrolled.DY < 0 {
		factor = 1.25
	}
	v.ZoomFreq(factor, f)
	return true
}

// ZoomFreq scales the visible frequency span (in the scale's own units:
// octaves on the log scale) by factor (< 1 zooms in) around f Hz, within
// the whole axis.
func (v *FileView) ZoomFreq(factor, f float64) {
	if v.fs == nil {
		return
	}
	full := plot.NewFreqAxis(v.scale, v.fs.Rate, v.fs.FFT)
	a, b, c := full.Pos(v.axis.Low), full.Pos(v.axis.High), full.Pos(f)
	a, b = max(0, c-(c-a)*factor), min(1, c+(b-c)*factor)
	if a <= 1e-9 && b >= 1-1e-9 {
		v.SetFreqRange(0, 0)
		return
	}
	v.SetFreqRange(full.Freq(a), full.Freq(b))
}
