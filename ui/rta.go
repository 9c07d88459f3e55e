package ui

import (
	"image"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/analysis"
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
	weighting    string
	labels       [][]byte // nominal labels, per band (remade when the bands change)
	labelFor     []float64
}

// NewRTAView makes a bar view for a sample rate and dB range.
func NewRTAView(rate int, dbMin, dbMax float64) *RTAView {
	v := &RTAView{dbMin: dbMin, dbMax: dbMax, fraction: 3, weighting: "Z"}
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
	if a, err := newFreqAxis("log", rate, 1<<16); err == nil && rate > 0 {
		v.rate, v.axis = rate, a
	}
}

// SetBands says which bands the levels are (for the title).
func (v *RTAView) SetBands(fraction int, weighting string) {
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

// Pull copies output channel c's band levels from src and redraws.
func (v *RTAView) Pull(src SpectrumSource, c int) {
	src.Latest(c, &v.sp)
	v.raster.Refresh()
}

// Levels are the band levels last pulled.
func (v *RTAView) Levels() []analysis.BandLevel { return v.sp.Bands }

// Image is the last frame drawn.
func (v *RTAView) Image() *image.RGBA { return v.img }

func (v *RTAView) draw(w, h int) image.Image {
	key := bgKey{axis: v.axis, dbMin: v.dbMin, dbMax: v.dbMax, extra: float64(v.fraction), extraS: v.weighting}
	if v.begin(w, h, key) {
		pal := paletteFor(v.dark)
		p := &v.p
		a := v.area
		v.clear()
		v.drawDBGrid(v.dbMin, v.dbMax)
		title := "1/" + strconv.Itoa(v.fraction) + " octave, " + v.weighting + "-weighted, dBFS"
		if v.fraction == 1 {
			title = "octave bands, " + v.weighting + "-weighted, dBFS"
		}
		p.text(title, a.Min.X+p.px(4), p.px(2), 0, 0, pal.text)
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
		c := pal.traces[0]
		if b.UnderResolved {
			c = blend(c, pal.plotBg, 120)
		}
		v.p.fill(image.Rect(max(a.Min.X, x0+gap), y, min(a.Max.X, x1-gap), a.Max.Y), c)
		// the nominal label, where it does not overlap the previous one
		lb := v.label(i, b.Nominal)
		wid := v.p.textWidthBytes(lb)
		xc := (x0 + x1) / 2
		if xc-wid/2 > lastLabel+v.p.px(4) {
			v.p.textBytes(lb, xc, a.Max.Y+v.p.px(3), 0.5, 0, pal.text)
			lastLabel = xc + wid/2
		}
	}
	return v.img
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
