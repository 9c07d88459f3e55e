package out

import (
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// pngWriter keeps the rows (memory bounded by the output) and draws the
// image on Commit: time across in absolute UTC, frequency up, levels as
// colours, gaps left dark.
type pngWriter struct {
	o     *encode.Output
	m     Meta
	start []float64 // unix seconds
	secs  []float64
	lev   []float32
}

func newPNG(o *encode.Output, m Meta) *pngWriter { return &pngWriter{o: o, m: m} }

func (w *pngWriter) Write(r Row) error {
	w.start = append(w.start, unixSeconds(r.Start))
	w.secs = append(w.secs, r.Seconds)
	w.lev = append(w.lev, r.Level...)
	return nil
}

func (w *pngWriter) Discard() { w.o.Discard() }

func (w *pngWriter) Commit() error {
	if err := encode.PNG(w.o.W, w.render()); err != nil {
		return err
	}
	return w.o.Commit()
}

// Image layout, pixels.
const (
	pngLeft, pngRight, pngTop, pngBottom = 80, 100, 30, 50
	pngMaxWidth, pngMinWidth             = 4096, 512
	pngHeight                            = 512
)

var (
	pngBackground = color.RGBA{18, 18, 24, 255}
	pngText       = color.RGBA{220, 220, 220, 255}
)

// render draws the LTSA image.
func (w *pngWriter) render() *image.RGBA {
	F, T := len(w.m.FreqHz), len(w.start)
	t0, t1 := 0.0, 1.0
	if T > 0 {
		t0, t1 = w.start[0], w.start[T-1]+max(w.secs[T-1], 1e-3)
	}
	binSec := math.Inf(1)
	for i := 1; i < T; i++ {
		binSec = min(binSec, w.start[i]-w.start[i-1])
	}
	cols := pngMinWidth
	if !math.IsInf(binSec, 1) && binSec > 0 {
		cols = min(pngMaxWidth, max(pngMinWidth, int(math.Ceil((t1-t0)/binSec))))
	}
	H := pngHeight
	img := image.NewRGBA(image.Rect(0, 0, pngLeft+cols+pngRight, pngTop+H+pngBottom))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = pngBackground.R, pngBackground.G, pngBackground.B, 255
	}
	lo, hi := levelRange(w.lev)
	sh := plot.NewShader(plot.Colormap(0), lo, hi)
	fLo, fHi := w.m.FreqHz[0], w.m.FreqHz[F-1]
	col := make([]float32, H)
	for c := range cols {
		for r := range col {
			col[r] = float32(math.NaN())
		}
		ca, cb := t0+float64(c)*(t1-t0)/float64(cols), t0+float64(c+1)*(t1-t0)/float64(cols)
		i, _ := slices.BinarySearch(w.start, ca)
		if i > 0 && w.start[i-1]+w.secs[i-1] > ca {
			i-- // a row that began before the column still covers it
		}
		for ; i < T && w.start[i] < cb; i++ {
			w.foldRow(col, w.lev[i*F:(i+1)*F], fLo, fHi)
		}
		for r, v := range col {
			if !math.IsNaN(float64(v)) {
				sh.Put(img.Pix[img.PixOffset(pngLeft+c, pngTop+H-1-r):], v)
			}
		}
	}
	w.axes(img, cols, H, t0, t1, fLo, fHi, sh, lo, hi)
	return img
}

// foldRow folds one row's levels into the image column col (row 0 at
// fLo) by maximum, the rule of every Prism raster.
func (w *pngWriter) foldRow(col, lev []float32, fLo, fHi float64) {
	H := len(col)
	for b, f := range w.m.FreqHz {
		r := 0
		if fHi > fLo {
			r = min(H-1, int((f-fLo)/(fHi-fLo)*float64(H)))
		}
		col[r] = plot.MaxOf(col[r], lev[b])
	}
	// rows between sparse bins take the bin below them
	last := float32(math.NaN())
	for r := range col {
		if !math.IsNaN(float64(col[r])) {
			last = col[r]
		} else if len(w.m.FreqHz) < H {
			col[r] = last
		}
	}
}

// levelRange is the colour range: the 0.5th to the 99.9th percentile of
// the finite levels.
func levelRange(lev []float32) (lo, hi float64) {
	v := make([]float32, 0, len(lev))
	for _, x := range lev {
		if !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return -120, 0
	}
	slices.Sort(v)
	lo, hi = float64(v[len(v)*5/1000]), float64(v[min(len(v)-1, len(v)*999/1000)])
	if hi-lo < 1 {
		lo, hi = lo-0.5, hi+0.5
	}
	return lo, hi
}

// axes draws the time and frequency ticks, the title and the colorbar.
func (w *pngWriter) axes(img *image.RGBA, cols, H int, t0, t1, fLo, fHi float64, sh plot.Shader, lo, hi float64) {
	step := timeStep((t1 - t0) / 8)
	layout := "01-02 15:04"
	if step >= 86400 {
		layout = "2006-01-02"
	} else if step < 60 {
		layout = "15:04:05"
	}
	for t := math.Ceil(t0/step) * step; t <= t1; t += step {
		x := pngLeft + int((t-t0)/(t1-t0)*float64(cols))
		line(img, x, pngTop+H, x, pngTop+H+5)
		label(img, x-30, pngTop+H+18, time.Unix(int64(t), 0).UTC().Format(layout))
	}
	label(img, pngLeft, pngTop+H+38, "time (UTC) from "+time.Unix(int64(t0), 0).UTC().Format("2006-01-02 15:04:05"))
	for _, f := range plot.DBTicks(fLo, fHi, 8) {
		y := pngTop + H - 1 - int((f-fLo)/(fHi-fLo)*float64(H))
		line(img, pngLeft-5, y, pngLeft, y)
		label(img, 4, y+4, plot.FormatHz(f))
	}
	label(img, pngLeft-30, 18, "Hz")
	label(img, pngLeft, 18, w.m.Title+"  ["+w.m.Unit+"]")
	x := pngLeft + cols + 20
	for r := range H {
		c := sh.RGB(float32(lo + (hi-lo)*float64(r)/float64(H-1)))
		for dx := range 16 {
			img.SetRGBA(x+dx, pngTop+H-1-r, color.RGBA{c[0], c[1], c[2], 255})
		}
	}
	for _, d := range plot.DBTicks(lo, hi, 6) {
		y := pngTop + H - 1 - int((d-lo)/(hi-lo)*float64(H-1))
		label(img, x+20, y+4, strconv.FormatFloat(d, 'f', -1, 64))
	}
}

// timeStep is the tick step, seconds, nearest above s from a list of
// round steps.
func timeStep(s float64) float64 {
	for _, st := range []float64{1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 604800} {
		if st >= s {
			return st
		}
	}
	return 604800 * math.Ceil(s/604800)
}

func line(img *image.RGBA, x0, y0, x1, y1 int) {
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			img.SetRGBA(x, y, pngText)
		}
	}
}

func label(img *image.RGBA, x, y int, s string) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(pngText), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
