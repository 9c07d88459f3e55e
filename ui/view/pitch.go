package view

import (
	"image"
	"image/color"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/pitch"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/scope"
)

// PitchSettings are what the pitch trace shows: the channel (−1: the
// mix), the f0 range searched and drawn (Hz, on a log axis) and the time
// shown (seconds up to now).
type PitchSettings struct {
	Channel      int
	MinHz, MaxHz float64
	Seconds      float64
}

// pitchHopSeconds is the live trace's hop: 100 estimates a second.
const pitchHopSeconds = 0.01

// PitchView is the live pitch trace: f0 over the last Seconds (package
// pitch's YIN on the input's tap, run on the Fyne goroutine as the view
// pulls, so it costs nothing while hidden), on a log frequency axis with
// a line at each note C, and the newest estimate as note and cents. Only
// the Fyne goroutine uses it.
type PitchView struct {
	plotBase
	set     PitchSettings
	rate    int
	stream  *pitch.Stream
	next    uint64 // the next position of the tap to push
	base    uint64 // the tap's position the stream's time 0 is
	buf     []float32
	pts     []pitch.Point
	readout []byte
}

// NewPitchView makes a pitch trace with s.
func NewPitchView(s PitchSettings) *PitchView {
	v := &PitchView{set: s, buf: make([]float32, 4096)}
	v.dark = true
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *PitchView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(320, 120))
}

// SetDark chooses the palette.
func (v *PitchView) SetDark(dark bool) { v.dark = dark }

// Settings is what the trace shows.
func (v *PitchView) Settings() PitchSettings { return v.set }

// Set changes what the trace shows; the trace starts again.
func (v *PitchView) Set(s PitchSettings) {
	v.set, v.stream = s, nil
	v.pts, v.readout = v.pts[:0], v.readout[:0]
	v.raster.Refresh()
}

// Points are the estimates shown, oldest first, their times in seconds of
// the tap's positions.
func (v *PitchView) Points() []pitch.Point { return v.pts }

// Pull runs the estimator over what src gained since the last pull and
// redraws. Input the tap no longer holds (lost, or the view was slow) is
// a gap in the trace; a new rate or channel count starts the trace again
// at the newest input.
// It does not allocate in steady state.
func (v *PitchView) Pull(src scope.Source) {
	from, end, channels, rate := src.Span()
	if rate == 0 {
		return
	}
	if v.set.Channel >= channels {
		v.set.Channel, v.stream = -1, nil
	}
	if v.stream != nil && rate == v.rate && v.next < from { // input lost: a gap in the trace
		v.stream.Gap(from - v.next)
		v.next = from
	}
	if v.stream == nil || rate != v.rate || v.next > end {
		cfg := pitch.Config{SampleRate: rate, MinHz: v.set.MinHz, MaxHz: min(v.set.MaxHz, float64(rate)/4)}
		keep := int(v.set.Seconds/pitchHopSeconds) + 1
		s, err := pitch.NewStream(cfg, max(1, int(pitchHopSeconds*float64(rate))), keep)
		if err != nil {
			return
		}
		v.stream, v.rate, v.next, v.base = s, rate, end, end
		v.pts = make([]pitch.Point, 0, keep)
	}
	if v.next == end {
		return
	}
	for v.next < end {
		n := int(min(uint64(len(v.buf)), end-v.next))
		if !src.ReadAt(v.buf[:n], v.set.Channel, v.next) {
			v.stream = nil
			return
		}
		v.stream.Push(v.buf[:n])
		v.next += uint64(n)
	}
	v.pts = v.stream.Read(v.pts)
	t0 := float64(v.base) / float64(rate)
	for i := range v.pts {
		v.pts[i].TimeS += t0
	}
	v.readout = appendPitchReadout(v.readout[:0], v.pts)
	v.raster.Refresh()
}

// Image is the last frame drawn.
func (v *PitchView) Image() *image.RGBA { return v.img }

// Readout is the newest estimate as drawn: note, cents and Hz, or
// "unvoiced".
func (v *PitchView) Readout() string { return string(v.readout) }

func (v *PitchView) axis() plot.FreqAxis {
	return plot.NewFreqAxis(plot.Log, 48000, 4096).Range(v.set.MinHz, v.set.MaxHz)
}

func (v *PitchView) draw(w, h int) image.Image {
	axis := v.axis()
	key := bgKey{axis: axis, extra: v.set.Seconds}
	if v.begin(w, h, key) {
		v.drawBackground(axis)
	}
	v.fromBackground()
	pal := paletteFor(v.dark)
	a, p := v.area, &v.p
	now := 0.0
	if len(v.pts) > 0 {
		now = v.pts[len(v.pts)-1].TimeS
	}
	drawPitchPoints(p, a, v.pts, now-v.set.Seconds, now, axis, pal.traces[0])
	p.textBytes(v.readout, a.Min.X+p.px(4), p.px(2), 0, 0, pal.text)
	return v.img
}

// appendPitchReadout is the newest point as "A4 +12¢  445.1 Hz" (or
// "unvoiced", or nothing before the first).
func appendPitchReadout(b []byte, pts []pitch.Point) []byte {
	if len(pts) == 0 {
		return b
	}
	f := pts[len(pts)-1].F0Hz
	if math.IsNaN(f) {
		return append(b, "unvoiced"...)
	}
	b = appendNote(b, f)
	b = append(b, "   "...)
	b = strconv.AppendFloat(b, f, 'f', 1, 64)
	return append(b, " Hz"...)
}

// drawPitchPoints draws the voiced points whose times fall in t0…t1 as
// small squares at their f0 on axis, joined where neighbours are within
// a semitone.
func drawPitchPoints(p *painter, a image.Rectangle, pts []pitch.Point, t0, t1 float64, axis plot.FreqAxis, c color.RGBA) {
	if t1 <= t0 {
		return
	}
	r := max(1, p.px(1))
	px, py, pf := -1, -1, 0.0
	for _, pt := range pts {
		if math.IsNaN(pt.F0Hz) || pt.TimeS < t0 || pt.TimeS > t1 {
			px = -1
			continue
		}
		pos := axis.Pos(pt.F0Hz)
		if pos < 0 || pos > 1 {
			px = -1
			continue
		}
		x := a.Min.X + int((pt.TimeS-t0)/(t1-t0)*float64(a.Dx()-1))
		y := a.Max.Y - 1 - int(pos*float64(a.Dy()-1))
		p.fill(image.Rect(x-r, y-r, x+r+1, y+r+1).Intersect(a), c)
		if px >= 0 && math.Abs(math.Log2(pt.F0Hz/pf)) < 1.0/12 {
			for xx := px; xx <= x; xx++ { // a straight join
				yy := py
				if x > px {
					yy = py + (y-py)*(xx-px)/(x-px)
				}
				p.set(xx, yy, c)
			}
		}
		px, py, pf = x, y, pt.F0Hz
	}
}

// drawBackground: a line and label at each note C in range (every
// semitone's line fainter where there is room), the time grid every
// second from now back.
func (v *PitchView) drawBackground(axis plot.FreqAxis) {
	pal := paletteFor(v.dark)
	p, a := &v.p, v.area
	v.clear()
	semis := 12 * math.Log2(v.set.MaxHz/v.set.MinHz)
	fine := float64(a.Dy())/semis >= float64(p.px(6))
	for m := math.Ceil(69 + 12*math.Log2(v.set.MinHz/440)); ; m++ {
		f := 440 * math.Pow(2, (m-69)/12)
		if f > v.set.MaxHz {
			break
		}
		y := a.Max.Y - 1 - int(axis.Pos(f)*float64(a.Dy()-1))
		switch k := int(m) % 12; {
		case k == 0:
			p.hline(a.Min.X, a.Max.X, y, pal.gridMajor)
			p.text("C"+strconv.Itoa(int(m)/12-1), a.Min.X-p.px(4), y, 1, 0.5, pal.text)
		case fine:
			p.hline(a.Min.X, a.Max.X, y, pal.grid)
		}
	}
	step := math.Max(1, math.Round(v.set.Seconds/10))
	for s := 0.0; s <= v.set.Seconds; s += step {
		x := a.Max.X - 1 - int(s/v.set.Seconds*float64(a.Dx()-1))
		p.vline(x, a.Min.Y, a.Max.Y, pal.grid)
		p.text(timeLabel(-s), x, a.Max.Y+p.px(3), 0.5, 0, pal.text)
	}
}

// PitchOverlay draws a file's pitch track over the file view
// (FileView.Overlay): the voiced points over the spectrogram at their f0.
type PitchOverlay struct {
	Points []pitch.Point
	p      painter
}

// Draw draws the points in t0…t1 into area of img on axis.
func (o *PitchOverlay) Draw(img *image.RGBA, area image.Rectangle, t0, t1 float64, axis plot.FreqAxis) {
	o.p.img, o.p.scale = img, 1
	drawPitchPoints(&o.p, area, o.Points, t0, t1, axis, color.RGBA{255, 255, 255, 255})
}
