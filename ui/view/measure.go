package view

import (
	"image"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/room"
	"github.com/prismaudio/prism/app/sweep"
)

// The Measure workspace's view: a sweep measurement's results as four
// plots — the magnitude response and its phase (re the impulse's peak),
// the harmonic distortion (THD and H2…H9 re the fundamental) versus the
// fundamental's frequency, and the energy–time curve with the Schroeder
// decays of the octave bands — over the room table
// (EDT, T20, T30, C50, C80, D50 per octave band, room.Table). The plots
// are app/plot's images, remade when the data or the widget's size
// changes.

// MeasureData is what the Measure view draws.
type MeasureData struct {
	Summary string // one line: the sweep, latency, SNR, …
	// the response on a log-frequency grid
	FreqHz, MagnitudeDB, PhaseDeg []float64
	Smoothing                     int // 1/N octave (0: none), for the title
	Rate                          int // Hz
	Distortion                    *sweep.Distortion
	Room                          *room.Result // nil: none (RoomNote says why)
	RoomNote                      string
	ETC                           []float64 // room.ETC of the impulse response
}

// MeasureView draws a MeasureData (nothing before the first).
type MeasureView struct {
	widget.BaseWidget
	data    *MeasureData
	mag     *canvas.Image
	phase   *canvas.Image
	dist    *canvas.Image
	decay   *canvas.Image
	summary *widget.Label
	table   *widget.Label
	size    fyne.Size // the plots' size they were drawn for
}

// NewMeasureView makes an empty view.
func NewMeasureView() *MeasureView {
	v := &MeasureView{summary: widget.NewLabel("No measurement yet: choose the output and the input channel, then Measure."),
		table: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})}
	v.summary.Wrapping = fyne.TextWrapWord
	for _, p := range []**canvas.Image{&v.mag, &v.phase, &v.dist, &v.decay} {
		*p = canvas.NewImageFromImage(nil)
		(*p).FillMode = canvas.ImageFillContain
		(*p).ScaleMode = canvas.ImageScaleFastest
	}
	v.ExtendBaseWidget(v)
	return v
}

// SetData shows d (nil: nothing).
func (v *MeasureView) SetData(d *MeasureData) {
	v.data = d
	v.size = fyne.Size{}
	v.summary.SetText("No measurement yet: choose the output and the input channel, then Measure.")
	v.table.SetText("")
	if d != nil {
		v.summary.SetText(d.Summary)
		if d.Room != nil {
			v.table.SetText(room.Table(*d.Room))
		} else {
			v.table.SetText(d.RoomNote)
		}
	}
	v.Refresh()
}

// Data is what the view shows (nil: nothing).
func (v *MeasureView) Data() *MeasureData { return v.data }

// Image is the four plots in one image, as shown (the PNG export): the
// response and the phase above, the distortion and the decays below,
// each plot w×h pixels.
func (v *MeasureView) Image(w, h int) *image.RGBA {
	imgs := v.plots(w, h)
	out := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
	for i, img := range imgs {
		if img == nil {
			continue
		}
		at := image.Pt(i%2*w, i/2*h)
		drawScaled(out, image.Rectangle{Min: at, Max: at.Add(image.Pt(w, h))}, img)
	}
	return out
}

// drawScaled draws src into r of dst, scaled to fit (nearest pixel,
// aspect kept, centred).
func drawScaled(dst *image.RGBA, r image.Rectangle, src image.Image) {
	sb := src.Bounds()
	s := math.Min(float64(r.Dx())/float64(sb.Dx()), float64(r.Dy())/float64(sb.Dy()))
	w, h := int(float64(sb.Dx())*s), int(float64(sb.Dy())*s)
	x0, y0 := r.Min.X+(r.Dx()-w)/2, r.Min.Y+(r.Dy()-h)/2
	for y := range h {
		for x := range w {
			dst.Set(x0+x, y0+y, src.At(sb.Min.X+int(float64(x)/s), sb.Min.Y+int(float64(y)/s)))
		}
	}
}

// plot margins (app/plot's: left 60, right 20, top 30, bottom 45)
const measureMarginW, measureMarginH = 80, 75

// plots draws the four images for plots of w×h pixels each (nil where
// there is no data).
func (v *MeasureView) plots(w, h int) [4]image.Image {
	var out [4]image.Image
	d := v.data
	if d == nil || w <= measureMarginW+20 || h <= measureMarginH+20 {
		return out
	}
	pw, ph := w-measureMarginW, h-measureMarginH
	rate := max(d.Rate, 1)
	// the frequency axis of plot.Lines: log from rate/fft; 2^16 bins put
	// its low end below 1 Hz, the response's grid then sets what is drawn
	const fft = 1 << 16
	if len(d.FreqHz) > 0 {
		top := math.Inf(-1)
		for _, m := range d.MagnitudeDB {
			if !math.IsInf(m, 0) && !math.IsNaN(m) {
				top = max(top, m)
			}
		}
		if math.IsInf(top, -1) {
			top = 0
		}
		top = math.Ceil(top/6)*6 + 6
		title := "magnitude"
		if d.Smoothing > 0 {
			title += ", 1/" + strconv.Itoa(d.Smoothing) + " octave"
		}
		out[0] = plot.Lines(plot.LineOptions{Width: pw, Height: ph, Scale: plot.Log, DBMin: top - 60, DBMax: top, Unit: "dB", Title: title},
			rate, fft, d.FreqHz, [][]float64{d.MagnitudeDB}, nil)
		out[1] = plot.Lines(plot.LineOptions{Width: pw, Height: ph, Scale: plot.Log, DBMin: -180, DBMax: 180, Unit: "degrees", Title: "phase re the impulse's peak"},
			rate, fft, d.FreqHz, [][]float64{d.PhaseDeg}, nil)
	}
	if dist := d.Distortion; dist != nil && len(dist.FreqHz) > 0 {
		levels := make([][]float64, 0, 1+len(dist.HarmonicDB))
		thd := make([]float64, len(dist.FreqHz))
		for i, p := range dist.THDPercent {
			thd[i] = 20 * math.Log10(p/100)
		}
		levels = append(levels, thd)
		names := []string{"THD"}
		for k, hk := range dist.HarmonicDB {
			levels = append(levels, hk)
			names = append(names, "H"+strconv.Itoa(k+2))
		}
		out[2] = plot.Lines(plot.LineOptions{Width: pw, Height: ph, Scale: plot.Log, DBMin: -100, DBMax: 0, Unit: "dB", Title: "distortion re the fundamental"},
			rate, fft, dist.FreqHz, levels, names)
	}
	if d.Room != nil && len(d.ETC) > 0 {
		out[3] = decayPlot(pw, ph, *d.Room, d.ETC)
	}
	return out
}

// decayPlot draws the ETC (its maximum per millisecond) and the
// Schroeder decays (broadband and the octave bands), from the onset to
// past the latest truncation point.
func decayPlot(w, h int, res room.Result, etc []float64) image.Image {
	fs := float64(res.Rate)
	onset := int(math.Round(res.OnsetS * fs))
	span := 0.0
	for _, p := range append([]room.Params{res.Broadband}, res.Bands...) {
		if !math.IsNaN(p.CrossS) {
			span = max(span, p.CrossS)
		}
	}
	span = max(0.05, 1.1*span)
	per := max(1, int(math.Round(room.DecayStep*fs))) // ETC samples a decay step
	n := int(span / room.DecayStep)
	ts := make([]float64, n)
	ev := make([]float64, n)
	for i := range n {
		ts[i] = float64(i) * room.DecayStep
		ev[i] = math.Inf(-1)
		for _, v := range etc[min(len(etc), onset+i*per):min(len(etc), onset+(i+1)*per)] {
			ev[i] = max(ev[i], v)
		}
	}
	levels, names := [][]float64{ev, res.Broadband.Decay}, []string{"ETC", "broadband"}
	for _, b := range res.Bands {
		if len(b.Decay) > 0 {
			levels, names = append(levels, b.Decay), append(names, strconv.FormatFloat(b.CenterHz, 'g', -1, 64)+" Hz")
		}
	}
	return plot.TimeLines(plot.LineOptions{Width: w, Height: h, DBMin: -80, DBMax: 0, Unit: "dB", Title: "ETC and Schroeder decays from the onset"},
		span, ts, levels, names)
}

// CreateRenderer implements fyne.Widget.
func (v *MeasureView) CreateRenderer() fyne.WidgetRenderer {
	return &measureRenderer{v: v}
}

type measureRenderer struct{ v *MeasureView }

func (r *measureRenderer) objects() []fyne.CanvasObject {
	v := r.v
	return []fyne.CanvasObject{v.summary, v.mag, v.phase, v.dist, v.decay, v.table}
}

func (r *measureRenderer) Layout(size fyne.Size) {
	v := r.v
	pad := float32(4)
	sh := v.summary.MinSize().Height
	v.summary.Move(fyne.NewPos(0, 0))
	v.summary.Resize(fyne.NewSize(size.Width, sh))
	th := v.table.MinSize().Height
	v.table.Move(fyne.NewPos(0, size.Height-th))
	v.table.Resize(fyne.NewSize(size.Width, th))
	pw := (size.Width - pad) / 2
	ph := max(0, (size.Height-sh-th-2*pad)/2)
	for i, img := range []*canvas.Image{v.mag, v.phase, v.dist, v.decay} {
		img.Move(fyne.NewPos(float32(i%2)*(pw+pad), sh+pad+float32(i/2)*(ph+pad)))
		img.Resize(fyne.NewSize(pw, ph))
	}
	if ps := fyne.NewSize(pw, ph); ps != v.size {
		v.size = ps
		imgs := v.plots(int(pw), int(ph))
		for i, img := range []*canvas.Image{v.mag, v.phase, v.dist, v.decay} {
			img.Image = imgs[i]
			img.Refresh()
		}
	}
}

func (r *measureRenderer) MinSize() fyne.Size {
	return fyne.NewSize(400, r.v.summary.MinSize().Height+r.v.table.MinSize().Height+200)
}

func (r *measureRenderer) Refresh() {
	r.Layout(r.v.Size())
	for _, o := range r.objects() {
		o.Refresh()
	}
}

func (r *measureRenderer) Objects() []fyne.CanvasObject { return r.objects() }
func (r *measureRenderer) Destroy()                     {}
