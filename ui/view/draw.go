package view

import (
	"image"
	"image/color"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Plot margins in pixels (at scale 1): the spectrum, the waterfall and the
// RTA share them, so their frequency axes line up when stacked.
const (
	marginLeft   = 52
	marginRight  = 14
	marginTop    = 18
	marginBottom = 22
)

// palette is what the plots are drawn with; dark and light themes differ.
type palette struct {
	bg, plotBg, grid, gridMajor, text, cursor, band, peak color.RGBA
	traces                                                [4]color.RGBA // channels 0, 1, the mix, extra
	avg, hold                                             color.RGBA
	mix                                                   color.RGBA // the mix: never a channel's colour
	marker                                                color.RGBA // the spectrum's marker (M)
}

var darkPalette = palette{
	bg:        color.RGBA{24, 25, 30, 255},
	plotBg:    color.RGBA{12, 13, 17, 255},
	grid:      color.RGBA{44, 46, 56, 255},
	gridMajor: color.RGBA{70, 73, 86, 255},
	text:      color.RGBA{205, 208, 218, 255},
	cursor:    color.RGBA{240, 240, 240, 255},
	band:      color.RGBA{60, 140, 255, 255},
	peak:      color.RGBA{255, 90, 90, 255},
	traces:    [4]color.RGBA{{80, 200, 255, 255}, {255, 170, 60, 255}, {120, 230, 120, 255}, {220, 120, 255, 255}},
	avg:       color.RGBA{255, 255, 255, 255},
	hold:      color.RGBA{255, 80, 80, 255},
	mix:       color.RGBA{40, 215, 165, 255},
	marker:    color.RGBA{255, 110, 200, 255},
}

var lightPalette = palette{
	bg:        color.RGBA{242, 242, 245, 255},
	plotBg:    color.RGBA{255, 255, 255, 255},
	grid:      color.RGBA{225, 226, 232, 255},
	gridMajor: color.RGBA{190, 192, 202, 255},
	text:      color.RGBA{40, 42, 50, 255},
	cursor:    color.RGBA{20, 20, 20, 255},
	band:      color.RGBA{30, 100, 220, 255},
	peak:      color.RGBA{210, 30, 30, 255},
	traces:    [4]color.RGBA{{0, 110, 200, 255}, {220, 110, 0, 255}, {20, 150, 40, 255}, {150, 40, 200, 255}},
	avg:       color.RGBA{20, 20, 20, 255},
	hold:      color.RGBA{210, 30, 30, 255},
	mix:       color.RGBA{0, 140, 110, 255},
	marker:    color.RGBA{200, 30, 150, 255},
}

func paletteFor(dark bool) *palette {
	if dark {
		return &darkPalette
	}
	return &lightPalette
}

var (
	faceMu sync.Mutex
	faces  = map[int]font.Face{}
)

// labelFace is the Go font at px pixels (faces are cached per size).
func labelFace(px int) font.Face {
	faceMu.Lock()
	defer faceMu.Unlock()
	if f, ok := faces[px]; ok {
		return f
	}
	f, err := opentype.Parse(goregular.TTF)
	var face font.Face
	if err == nil {
		face, err = opentype.NewFace(f, &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingFull})
	}
	if err != nil {
		panic("ui: the embedded Go font does not load: " + err.Error())
	}
	faces[px] = face
	return face
}

// painter draws into an image the widget owns. Text is drawn only into
// cached backgrounds (it allocates); lines and fills do not allocate.
type painter struct {
	img   *image.RGBA
	scale float32 // device pixels per Fyne unit
	face  font.Face
	inks  []*image.Uniform // text colours made so far: boxing a colour per call would allocate
}

// ink returns the uniform image of colour c, made once per colour.
func (p *painter) ink(c color.RGBA) *image.Uniform {
	for _, u := range p.inks {
		if u.C.(color.RGBA) == c {
			return u
		}
	}
	u := image.NewUniform(c)
	p.inks = append(p.inks, u)
	return u
}

// px converts Fyne units to pixels.
func (p *painter) px(v float32) int { return int(math.Round(float64(v * p.scale))) }

func (p *painter) fill(r image.Rectangle, c color.RGBA) {
	r = r.Intersect(p.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := p.img.Pix[p.img.PixOffset(r.Min.X, y):p.img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, c.A
		}
	}
}

func (p *painter) set(x, y int, c color.RGBA) {
	if !(image.Point{x, y}.In(p.img.Rect)) {
		return
	}
	i := p.img.PixOffset(x, y)
	p.img.Pix[i], p.img.Pix[i+1], p.img.Pix[i+2], p.img.Pix[i+3] = c.R, c.G, c.B, c.A
}

func (p *painter) hline(x0, x1, y int, c color.RGBA) {
	p.fill(image.Rect(x0, y, x1, y+1), c)
}

func (p *painter) vline(x, y0, y1 int, c color.RGBA) {
	if y1 < y0 {
		y0, y1 = y1, y0
	}
	p.fill(image.Rect(x, y0, x+1, y1+1), c)
}

// dashedV draws a vertical dashed line.
func (p *painter) dashedV(x, y0, y1 int, c color.RGBA) {
	for y := y0; y < y1; y += 6 {
		p.vline(x, y, min(y+2, y1), c)
	}
}

// blendFill mixes c into r with weight a (0…255).
func (p *painter) blendFill(r image.Rectangle, c color.RGBA, a uint8) {
	r = r.Intersect(p.img.Rect)
	w, iw := uint32(a), 255-uint32(a)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := p.img.Pix[p.img.PixOffset(r.Min.X, y):p.img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			row[i] = uint8((uint32(row[i])*iw + uint32(c.R)*w) / 255)
			row[i+1] = uint8((uint32(row[i+1])*iw + uint32(c.G)*w) / 255)
			row[i+2] = uint8((uint32(row[i+2])*iw + uint32(c.B)*w) / 255)
		}
	}
}

// text draws s at (x, y) anchored by ax, ay (0: left/top, 0.5: centre,
// 1: right/bottom) and returns its width in pixels.
func (p *painter) text(s string, x, y int, ax, ay float64, c color.RGBA) int {
	d := font.Drawer{Dst: p.img, Src: p.ink(c), Face: p.face}
	wid := d.MeasureString(s).Ceil()
	d.Dot = p.dot(x, y, wid, ax, ay)
	d.DrawString(s)
	return wid
}

// textBytes is text for a byte slice: formatting numbers with strconv's
// Append functions into a reused buffer and drawing them this way does not
// allocate.
func (p *painter) textBytes(s []byte, x, y int, ax, ay float64, c color.RGBA) int {
	d := font.Drawer{Dst: p.img, Src: p.ink(c), Face: p.face}
	wid := d.MeasureBytes(s).Ceil()
	d.Dot = p.dot(x, y, wid, ax, ay)
	d.DrawBytes(s)
	return wid
}

func (p *painter) dot(x, y, wid int, ax, ay float64) fixed.Point26_6 {
	m := p.face.Metrics()
	h := (m.Ascent + m.Descent).Ceil()
	return fixed.P(x-int(ax*float64(wid)), y-int(ay*float64(h))+m.Ascent.Ceil())
}

// textHeight is the height of a line of text in pixels.
func (p *painter) textHeight() int {
	m := p.face.Metrics()
	return (m.Ascent + m.Descent).Ceil()
}

// ensureImage returns img if it is w×h, else a new w×h image.
func ensureImage(img *image.RGBA, w, h int) *image.RGBA {
	w, h = max(1, w), max(1, h)
	if img != nil && img.Rect.Dx() == w && img.Rect.Dy() == h {
		return img
	}
	return image.NewRGBA(image.Rect(0, 0, w, h))
}

// dbToY maps a level to a row of the plot area [y0, y1) for the range
// dbMin…dbMax (clamped to the area).
func dbToY(db float32, dbMin, dbMax float64, y0, y1 int) int {
	t := (float64(db) - dbMin) / (dbMax - dbMin)
	t = min(1, max(0, t))
	return y1 - 1 - int(t*float64(y1-1-y0)+0.5)
}

// dbTicks returns the grid levels for a dB range about `pixels` tall.
func dbTicks(dbMin, dbMax float64, pixels int) []float64 {
	span := dbMax - dbMin
	step := 10.0
	for _, s := range []float64{1, 2, 3, 5, 6, 10, 20, 30, 50} {
		if span/s <= max(2, float64(pixels)/28) {
			step = s
			break
		}
	}
	var t []float64
	for v := math.Ceil(dbMin/step) * step; v <= dbMax+1e-9; v += step {
		t = append(t, v)
	}
	return t
}

// textWidthBytes is s's width in pixels.
func (p *painter) textWidthBytes(s []byte) int {
	return font.MeasureBytes(p.face, s).Ceil()
}

// textWidth is s's width in pixels.
func (p *painter) textWidth(s string) int {
	return font.MeasureString(p.face, s).Ceil()
}

// rgb is a colormap entry as an opaque colour.
func rgb(c [3]uint8) color.RGBA { return color.RGBA{c[0], c[1], c[2], 255} }
