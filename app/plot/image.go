package plot

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"runtime"
	"sync"

	"github.com/prismaudio/prism/internal/pages"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// ImageOptions shape a spectrogram image.
type ImageOptions struct {
	Width, Height int     // plot area in pixels
	Scale         Scale   // frequency axis
	DBMin, DBMax  float64 // colour range, dBFS
	Colormap      Colormap
	Title         string
}

// Size limits of an image's plot area, in pixels per side and in all (an
// image takes about 20 bytes a pixel while it is made: levels, colours and
// the PNG encoder's strips, so the cap keeps it near 1.3 GB), and of its
// colour range, in dB.
const (
	MinImageSide   = 16
	MaxImageSide   = 16384
	MaxImagePixels = 1 << 26 // e.g. 8192×8192 or 16384×4096
	maxAbsDB       = 400
)

// Check says whether the options describe an image Prism draws.
func (o ImageOptions) Check() error {
	if o.Width < MinImageSide || o.Width > MaxImageSide || o.Height < MinImageSide || o.Height > MaxImageSide {
		return fmt.Errorf("image %d×%d: want %d…%d pixels per side", o.Width, o.Height, MinImageSide, MaxImageSide)
	}
	if o.Width*o.Height > MaxImagePixels {
		return fmt.Errorf("image %d×%d: at most %d pixels in all (e.g. 8192×8192)", o.Width, o.Height, MaxImagePixels)
	}
	if !(o.DBMin < o.DBMax) || o.DBMin < -maxAbsDB || o.DBMax > maxAbsDB {
		return fmt.Errorf("dB range %g:%g: want MIN < MAX within ±%d", o.DBMin, o.DBMax, maxAbsDB)
	}
	return nil
}

// Geometry is the spectrogram an image shows: Frames frames of FFT
// samples, Hop apart, at Rate Hz.
type Geometry struct {
	Rate, FFT, Hop, Frames int
}

// ColumnFrames returns the frames [lo, hi) that column col of columns
// shows when frames frames are folded into them: the maximum over all of
// them when frames outnumber columns, else the nearest frame. It is the
// folding rule of every spectrogram raster (the engines' image plans use
// the same: gpufft.ImageConfig.ColumnFrames).
func ColumnFrames(col, columns, frames int) (lo, hi int) {
	lo = int(int64(col) * int64(frames) / int64(columns))
	hi = max(lo+1, int(int64(col+1)*int64(frames)/int64(columns)))
	return lo, hi
}

// FrameColumns returns the columns [first, last] whose frame ranges
// (ColumnFrames) hold frame f.
func FrameColumns(f, columns, frames int) (first, last int) {
	first = min(columns-1, int(int64(f)*int64(columns)/int64(frames)))
	// the estimate can be one short (lo of the next column rounds down to f)
	for first+1 < columns {
		if _, hi := ColumnFrames(first, columns, frames); hi > f {
			break
		}
		first++
	}
	for first > 0 {
		if _, hi := ColumnFrames(first-1, columns, frames); hi <= f {
			break
		}
		first--
	}
	last = first
	for last+1 < columns {
		if lo, _ := ColumnFrames(last+1, columns, frames); lo > f {
			break
		}
		last++
	}
	return first, last
}

// Spectrogram places a spectrogram, its axes and colorbar in an image.
type Spectrogram struct {
	opts       ImageOptions
	geo        Geometry
	axis       FreqAxis
	shader     Shader
	left, top  int // plot area origin
	imgW, imgH int
}

// Margins around the plot area of a Spectrogram image, in pixels.
const (
	marginLeft   = 72
	marginRight  = 110
	marginTop    = 40
	marginBottom = 52
)

// NewSpectrogram lays out an image of geometry g with options o (checked
// with o.Check by the caller).
func NewSpectrogram(o ImageOptions, g Geometry) *Spectrogram {
	return &Spectrogram{opts: o, geo: g, axis: NewFreqAxis(o.Scale, g.Rate, g.FFT),
		shader: NewShader(o.Colormap, o.DBMin, o.DBMax), left: marginLeft, top: marginTop,
		imgW: marginLeft + o.Width + marginRight, imgH: marginTop + o.Height + marginBottom}
}

// RowBins maps the plot's rows (0 = the low end) to FFT bins [lo, hi).
func (l *Spectrogram) RowBins() (lo, hi []int32) {
	return l.axis.RowBins(l.opts.Height, l.geo.FFT, l.geo.Rate)
}

// Bounds is the whole image's rectangle.
func (l *Spectrogram) Bounds() image.Rectangle { return image.Rect(0, 0, l.imgW, l.imgH) }

// Area is the plot area's rectangle in the image.
func (l *Spectrogram) Area() image.Rectangle {
	return image.Rect(l.left, l.top, l.left+l.opts.Width, l.top+l.opts.Height)
}

// Columns is the plot area's width in pixels.
func (l *Spectrogram) Columns() int { return l.opts.Width }

// Rows is the plot area's height in pixels.
func (l *Spectrogram) Rows() int { return l.opts.Height }

// Render draws the image: pix holds Width×Height levels, column-major,
// row 0 at the low-frequency end.
//
// The plot area is coloured on every core, in bands of image rows, each
// band in tiles of renderTile columns: pix is column-major and the image
// row-major, so a tile reads renderTile sequential streams of pix and
// writes whole runs of a row (colouring column by column wrote one cache
// line per pixel: 40 ms of a 1920×1080 image on the H200 machine).
func (l *Spectrogram) Render(pix []float32) *image.RGBA {
	img := &image.RGBA{Pix: pages.Make[uint8](4 * l.imgW * l.imgH), Stride: 4 * l.imgW, Rect: image.Rect(0, 0, l.imgW, l.imgH)}
	fillRGBA(img.Pix, color.RGBA{18, 18, 24, 255})
	H := l.opts.Height
	bands := max(1, min(runtime.GOMAXPROCS(0), H/32))
	var wg sync.WaitGroup
	for b := range bands {
		wg.Go(func() { l.shade(img, pix, b*H/bands, (b+1)*H/bands) })
	}
	wg.Wait()
	l.drawAxes(img)
	return img
}

// renderTile is how many columns Render colours at a time.
const renderTile = 64

// shade colours plot rows [r0, r1) (row 0 at the low-frequency end).
func (l *Spectrogram) shade(img *image.RGBA, pix []float32, r0, r1 int) {
	W, H := l.opts.Width, l.opts.Height
	for c0 := 0; c0 < W; c0 += renderTile {
		c1 := min(W, c0+renderTile)
		for r := r0; r < r1; r++ {
			row := img.Pix[img.PixOffset(l.left, l.top+H-1-r):]
			for c := c0; c < c1; c++ {
				l.shader.Put(row[4*c:], pix[c*H+r])
			}
		}
	}
}

// fillRGBA sets every pixel of pix to c, doubling the filled prefix.
func fillRGBA(pix []uint8, c color.RGBA) {
	if len(pix) < 4 {
		return
	}
	pix[0], pix[1], pix[2], pix[3] = c.R, c.G, c.B, c.A
	for n := 4; n < len(pix); n *= 2 {
		copy(pix[n:], pix[:n])
	}
}

var (
	faceOnce sync.Once
	face     font.Face
	// faceMu serializes drawing with face: an opentype.Face keeps glyph
	// buffers of its own and is not safe for concurrent use (images are
	// rendered on several goroutines when files are analyzed in parallel).
	faceMu sync.Mutex
)

func labelFace() font.Face {
	faceOnce.Do(func() {
		f, err := opentype.Parse(goregular.TTF)
		if err == nil {
			face, err = opentype.NewFace(f, &opentype.FaceOptions{Size: 13, DPI: 72, Hinting: font.HintingFull})
		}
		if err != nil {
			panic("plot: the embedded Go font does not load: " + err.Error())
		}
	})
	return face
}

var (
	textColor = color.RGBA{220, 222, 230, 255}
	// GridColor is the colour of the frame, ticks and colorbar marks.
	GridColor = color.RGBA{150, 150, 160, 255}
)

// text draws s with its anchor: ax, ay in {0: left/top, 0.5: centre, 1: right/bottom}.
func text(img *image.RGBA, s string, x, y int, ax, ay float64) {
	f := labelFace()
	faceMu.Lock()
	defer faceMu.Unlock()
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

func (l *Spectrogram) drawAxes(img *image.RGBA) {
	W, H := l.opts.Width, l.opts.Height
	x0, y0, x1, y1 := l.left, l.top, l.left+W, l.top+H
	hline(img, x0-1, x1+1, y0-1, GridColor)
	hline(img, x0-1, x1+1, y1, GridColor)
	vline(img, x0-1, y0-1, y1+1, GridColor)
	vline(img, x1, y0-1, y1+1, GridColor)
	for _, f := range FreqTicks(l.axis, H) {
		y := y1 - 1 - int(math.Round(l.axis.Pos(f)*float64(H-1)))
		hline(img, x0-6, x0-1, y, GridColor)
		text(img, l.axis.Label(f), x0-9, y, 1, 0.5)
	}
	text(img, "Hz", 8, y0-22, 0, 0)
	seconds := float64(l.geo.Frames*l.geo.Hop) / float64(l.geo.Rate)
	for _, t := range TimeTicks(seconds, W) {
		x := x0 + int(math.Round(t/seconds*float64(W-1)))
		vline(img, x, y1+1, y1+6, GridColor)
		text(img, FormatSeconds(t, seconds), x, y1+9, 0.5, 0)
	}
	text(img, "time", x0+W/2, y1+30, 0.5, 0)
	if l.opts.Title != "" {
		text(img, l.opts.Title, x0, 12, 0, 0)
	}
	l.drawColorbar(img, x1+24, y0, H)
}

func (l *Spectrogram) drawColorbar(img *image.RGBA, bx, y0, H int) {
	const bw = 18
	lo, hi := l.opts.DBMin, l.opts.DBMax
	for y := y0; y < y0+H; y++ {
		db := float32(hi - (hi-lo)*float64(y-y0)/float64(H-1))
		for x := bx; x < bx+bw; x++ {
			l.shader.Put(img.Pix[img.PixOffset(x, y):], db)
		}
	}
	for _, v := range DBTicks(lo, hi, 8) {
		y := y0 + int(math.Round((hi-v)/(hi-lo)*float64(H-1)))
		hline(img, bx+bw, bx+bw+5, y, GridColor)
		text(img, fmt.Sprintf("%g", v), bx+bw+8, y, 0, 0.5)
	}
	text(img, "dBFS", bx, y0-22, 0, 0)
}
