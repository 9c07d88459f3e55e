package app

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"math"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/prismaudio/prism/gpufft"
)

// FreqAxis maps frequencies to positions along a spectrum's frequency axis
// (lin, log or mel) and back. Position 0 is the axis's low end, 1 its high
// end.
type FreqAxis struct {
	Scale      string // "lin", "log", "mel"
	Low, High  float64
	lowM, span float64 // in the scale's own units
}

// NewFreqAxis returns the axis for a sample rate and FFT size: linear and
// mel from 0 Hz, log from 20 Hz (or the first bin above DC when bins are
// wider), all up to Nyquist.
func NewFreqAxis(scale string, rate, n int) (FreqAxis, error) {
	nyq := float64(rate) / 2
	a := FreqAxis{Scale: scale, High: nyq}
	switch scale {
	case "lin", "mel":
	case "log":
		a.Low = max(20, float64(rate)/float64(n))
		if a.Low >= nyq {
			a.Low = nyq / 2
		}
	default:
		return a, fmt.Errorf("unknown frequency scale %q (want lin, log or mel)", scale)
	}
	a.lowM = a.warp(a.Low)
	a.span = a.warp(a.High) - a.lowM
	return a, nil
}

func (a FreqAxis) warp(f float64) float64 {
	switch a.Scale {
	case "log":
		return math.Log(f)
	case "mel":
		return 2595 * math.Log10(1+f/700)
	}
	return f
}

func (a FreqAxis) unwarp(m float64) float64 {
	switch a.Scale {
	case "log":
		return math.Exp(m)
	case "mel":
		return 700 * (math.Pow(10, m/2595) - 1)
	}
	return m
}

// Pos returns f's position in [0, 1] (outside for f outside the axis).
func (a FreqAxis) Pos(f float64) float64 { return (a.warp(f) - a.lowM) / a.span }

// Freq returns the frequency at position p.
func (a FreqAxis) Freq(p float64) float64 { return a.unwarp(a.lowM + p*a.span) }

// RowBins maps rows (0 = low end) to FFT bins: row r shows bins
// [lo, hi), those whose centres fall in its frequency span, or, where a row
// is narrower than a bin, the bin nearest its centre frequency.
func (a FreqAxis) RowBins(rows, n, rate int) (lo, hi []int32) {
	binHz := float64(rate) / float64(n)
	bins := n/2 + 1
	lo, hi = make([]int32, rows), make([]int32, rows)
	clamp := func(k float64) int { return min(bins-1, max(0, int(k))) }
	for r := range rows {
		f0, f1 := a.Freq(float64(r)/float64(rows)), a.Freq(float64(r+1)/float64(rows))
		k0, k1 := clamp(math.Ceil(f0/binHz-0.5)), clamp(math.Ceil(f1/binHz-0.5))
		if r == rows-1 {
			k1 = bins
		}
		if k1 <= k0 {
			k0 = clamp(math.Round(a.Freq((float64(r)+0.5)/float64(rows)) / binHz))
			k1 = k0 + 1
		}
		lo[r], hi[r] = int32(k0), int32(k1)
	}
	return lo, hi
}

// Colormap returns the 256-entry table for a name.
func Colormap(name string) (*[256][3]uint8, error) {
	switch name {
	case "viridis":
		return &viridisLUT, nil
	case "magma":
		return &magmaLUT, nil
	case "inferno":
		return &infernoLUT, nil
	case "gray":
		return &grayLUT, nil
	}
	return nil, fmt.Errorf("unknown colormap %q (want viridis, magma, inferno or gray)", name)
}

// ColormapNames lists the colormaps.
func ColormapNames() []string { return []string{"viridis", "magma", "inferno", "gray"} }

var grayLUT = func() (t [256][3]uint8) {
	for i := range t {
		t[i] = [3]uint8{uint8(i), uint8(i), uint8(i)}
	}
	return
}()

// plotLayout places the spectrogram, axes and colorbar in the PNG.
type plotLayout struct {
	opts       ImageOptions
	cfg        gpufft.SpectrogramConfig
	total      int
	rate       int
	axis       FreqAxis
	lut        *[256][3]uint8
	left, top  int // plot area origin
	imgW, imgH int
}

const (
	marginLeft   = 72
	marginRight  = 110
	marginTop    = 40
	marginBottom = 52
)

func newPlotLayout(opts ImageOptions, cfg gpufft.SpectrogramConfig, total, rate int) (*plotLayout, error) {
	axis, err := NewFreqAxis(opts.FreqScale, rate, cfg.Size)
	if err != nil {
		return nil, err
	}
	lut, err := Colormap(opts.Colormap)
	if err != nil {
		return nil, err
	}
	return &plotLayout{opts: opts, cfg: cfg, total: total, rate: rate, axis: axis, lut: lut,
		left: marginLeft, top: marginTop,
		imgW: marginLeft + opts.Width + marginRight, imgH: marginTop + opts.Height + marginBottom}, nil
}

func (l *plotLayout) imageConfig() gpufft.ImageConfig {
	lo, hi := l.axis.RowBins(l.opts.Height, l.cfg.Size, l.rate)
	return gpufft.ImageConfig{Columns: l.opts.Width, TotalFrames: l.total, RowLo: lo, RowHi: hi}
}

// color returns the colormap colour of a level.
func (l *plotLayout) color(db float32) [3]uint8 {
	t := (float64(db) - l.opts.DBMin) / (l.opts.DBMax - l.opts.DBMin)
	i := int(math.Round(t * 255))
	return l.lut[min(255, max(0, i))]
}

// encode draws the image (pix: Width×Height levels, column-major, row 0 at
// the low-frequency end) with its axes and colorbar, and writes a PNG.
func (l *plotLayout) encode(w io.Writer, pix []float32) error {
	img := image.NewRGBA(image.Rect(0, 0, l.imgW, l.imgH))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{18, 18, 24, 255}), image.Point{}, draw.Src)
	W, H := l.opts.Width, l.opts.Height
	for c := range W {
		col := pix[c*H : (c+1)*H]
		for r, v := range col {
			rgb := l.color(v)
			o := img.PixOffset(l.left+c, l.top+H-1-r)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = rgb[0], rgb[1], rgb[2], 255
		}
	}
	l.drawAxes(img)
	return encodePNG(w, img)
}

var (
	faceOnce sync.Once
	face     font.Face
)

func labelFace() font.Face {
	faceOnce.Do(func() {
		f, err := opentype.Parse(goregular.TTF)
		if err == nil {
			face, err = opentype.NewFace(f, &opentype.FaceOptions{Size: 13, DPI: 72, Hinting: font.HintingFull})
		}
		if err != nil {
			panic("app: the embedded Go font does not load: " + err.Error())
		}
	})
	return face
}

var (
	textColor = color.RGBA{220, 222, 230, 255}
	gridColor = color.RGBA{150, 150, 160, 255}
)

// text draws s with its anchor: ax, ay in {0: left/top, 0.5: centre, 1: right/bottom}.
func text(img *image.RGBA, s string, x, y int, ax, ay float64) {
	f := labelFace()
	d := font.Drawer{Dst: img, Src: image.NewUniform(textColor), Face: f}
	wid := d.MeasureString(s).Ceil()
	m := f.Metrics()
	h := (m.Ascent + m.Descent).Ceil()
	d.Dot = fixed.P(x-int(ax*float64(wid)), y-int(ay*float64(h))+m.Ascent.Ceil())
	d.DrawString(s)
}

func hline(img *image.RGBA, x0, x1, y int, c color.RGBA) {
	for x := x0; x < x1; x++ {
		img.SetRGBA(x, y, c)
	}
}

func vline(img *image.RGBA, x, y0, y1 int, c color.RGBA) {
	for y := y0; y < y1; y++ {
		img.SetRGBA(x, y, c)
	}
}

func (l *plotLayout) drawAxes(img *image.RGBA) {
	W, H := l.opts.Width, l.opts.Height
	x0, y0, x1, y1 := l.left, l.top, l.left+W, l.top+H
	// frame
	hline(img, x0-1, x1+1, y0-1, gridColor)
	hline(img, x0-1, x1+1, y1, gridColor)
	vline(img, x0-1, y0-1, y1+1, gridColor)
	vline(img, x1, y0-1, y1+1, gridColor)
	// frequency ticks
	for _, f := range FreqTicks(l.axis, H) {
		y := y1 - 1 - int(math.Round(l.axis.Pos(f)*float64(H-1)))
		hline(img, x0-6, x0-1, y, gridColor)
		text(img, FormatHz(f), x0-9, y, 1, 0.5)
	}
	text(img, "Hz", 8, y0-22, 0, 0)
	// time ticks
	seconds := float64(l.total*l.cfg.Hop) / float64(l.rate)
	for _, t := range TimeTicks(seconds, W) {
		x := x0 + int(math.Round(t/seconds*float64(W-1)))
		vline(img, x, y1+1, y1+6, gridColor)
		text(img, FormatSeconds(t, seconds), x, y1+9, 0.5, 0)
	}
	text(img, "time", x0+W/2, y1+30, 0.5, 0)
	// title
	if l.opts.Title != "" {
		text(img, l.opts.Title, x0, 12, 0, 0)
	}
	// colorbar
	bx, bw := x1+24, 18
	for y := y0; y < y1; y++ {
		db := float32(l.opts.DBMax - (l.opts.DBMax-l.opts.DBMin)*float64(y-y0)/float64(H-1))
		rgb := l.color(db)
		for x := bx; x < bx+bw; x++ {
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = rgb[0], rgb[1], rgb[2], 255
		}
	}
	step := niceStep((l.opts.DBMax-l.opts.DBMin)/8, []float64{1, 2, 5, 10})
	for v := math.Ceil(l.opts.DBMin/step) * step; v <= l.opts.DBMax+1e-9; v += step {
		y := y0 + int(math.Round((l.opts.DBMax-v)/(l.opts.DBMax-l.opts.DBMin)*float64(H-1)))
		hline(img, bx+bw, bx+bw+5, y, gridColor)
		text(img, fmt.Sprintf("%g", v), bx+bw+8, y, 0, 0.5)
	}
	text(img, "dBFS", bx, y0-22, 0, 0)
}

// FreqTicks returns tick frequencies for an axis about `pixels` long: the
// 1-2-5 series on log and mel axes, a nice linear step on linear ones.
func FreqTicks(a FreqAxis, pixels int) []float64 {
	var ticks []float64
	if a.Scale == "lin" {
		step := niceStep((a.High-a.Low)/max(2, float64(pixels)/90), []float64{1, 2, 2.5, 5, 10})
		for f := math.Ceil(a.Low/step) * step; f <= a.High+1e-9; f += step {
			ticks = append(ticks, f)
		}
		return ticks
	}
	lastY := math.Inf(-1)
	for dec := 1.0; dec <= 1e6; dec *= 10 {
		for _, m := range []float64{1, 2, 5} {
			f := m * dec
			if f < a.Low || f > a.High {
				continue
			}
			y := a.Pos(f) * float64(pixels)
			if y-lastY < 18 { // labels 13 px tall: keep them apart
				continue
			}
			ticks, lastY = append(ticks, f), y
		}
	}
	return ticks
}

// TimeTicks returns tick times for a time axis of `seconds` about `pixels`
// wide.
func TimeTicks(seconds float64, pixels int) []float64 {
	raw := seconds / max(2, float64(pixels)/110)
	step := niceStep(raw, []float64{1, 2, 5, 10})
	if raw > 10 { // clock-friendly steps: 15 s, 30 s, 1, 2, 5, 10, 15, 30 min, hours
		for _, s := range []float64{15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 18000, 36000} {
			if s >= raw {
				step = s
				break
			}
		}
	}
	var ticks []float64
	for t := 0.0; t <= seconds+1e-9; t += step {
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep returns the smallest m·10^k (m from mults, for the right k) at
// least raw.
func niceStep(raw float64, mults []float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range mults {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// FormatHz writes 50, 500, 1k, 2.5k, 10k.
func FormatHz(f float64) string {
	if f >= 1000 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", f/1000), ".0") + "k"
	}
	return fmt.Sprintf("%g", math.Round(f*10)/10)
}

// FormatSeconds writes t as m:ss for long spans, else seconds.
func FormatSeconds(t, span float64) string {
	if span >= 120 {
		s := int(math.Round(t))
		if s >= 3600 {
			return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
		}
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	return fmt.Sprintf("%gs", math.Round(t*1000)/1000)
}
