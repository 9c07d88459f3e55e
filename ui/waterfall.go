package ui

import (
	"image"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// ColumnSource is where a Waterfall pulls spectrogram columns from
// (live.Monitor): every analyzed frame is one column, oldest first.
type ColumnSource interface {
	Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry)
}

// Waterfall is a scrolling spectrogram: frequency across (aligned with a
// SpectrumView of the same width above it), time downwards, newest at the
// top. Each pixel row is the maximum of the frames it covers, so a frame
// shorter than a row still shows. Rows are kept in a ring image and
// composed into the output once per drawn frame. Only the Fyne goroutine
// uses it.
type Waterfall struct {
	plotBase
	rate, fft, hop int
	scale          string
	axis           plot.FreqAxis
	bmap           binMap
	lut            *[256][3]uint8
	colormap       string
	dbMin, dbMax   float64
	span           float64 // seconds shown top to bottom

	ring    *image.RGBA // plot width × rows, row `head` is the next written
	head    int
	rows    int       // rows written, up to the ring's height
	acc     []float32 // the pending row: maximum per column
	accN    int
	pending float64 // rows owed to frames already folded in
	cols    [][]float32
	after   uint64
	ringKey [5]int // width, height, rate, fft, hop of the ring
}

// NewWaterfall makes a waterfall for rate, FFT size and hop (samples), on
// frequency scale `scale`, with a colormap, dB range and time span.
func NewWaterfall(rate, fft, hop int, scale, colormap string, dbMin, dbMax, spanSeconds float64) *Waterfall {
	w := &Waterfall{dbMin: dbMin, dbMax: dbMax, span: spanSeconds}
	w.dark = true
	w.SetConfig(rate, fft, hop, scale)
	w.SetColormap(colormap)
	w.cols = make([][]float32, 256)
	w.raster = canvas.NewRaster(w.draw)
	w.ExtendBaseWidget(w)
	return w
}

// CreateRenderer implements fyne.Widget.
func (w *Waterfall) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(w.raster, fyne.NewSize(320, 120))
}

// SetConfig sets rate, FFT size, hop and frequency scale; a change clears
// the history shown.
func (w *Waterfall) SetConfig(rate, fft, hop int, scale string) {
	axis, err := newFreqAxis(scale, rate, fft)
	if err != nil || hop < 1 {
		return
	}
	w.rate, w.fft, w.hop, w.scale, w.axis = rate, fft, hop, scale, axis
	w.ringKey = [5]int{}
}

// SetColormap chooses the colormap by name (plot.ColormapNames).
func (w *Waterfall) SetColormap(name string) {
	if lut, err := colormapLUT(name); err == nil {
		w.lut, w.colormap = lut, name
	}
}

// SetRange sets the dB range the colormap spans. Rows already drawn keep
// their colours.
func (w *Waterfall) SetRange(dbMin, dbMax float64) {
	if dbMin < dbMax {
		w.dbMin, w.dbMax = dbMin, dbMax
	}
}

// SetSpan sets the seconds shown top to bottom (clears the history).
func (w *Waterfall) SetSpan(seconds float64) {
	if seconds > 0 {
		w.span = seconds
		w.ringKey = [5]int{}
	}
}

// SetDark chooses the dark or light palette for the axes.
func (w *Waterfall) SetDark(dark bool) { w.dark = dark }

// Pull folds the columns output channel c gained since the last call into
// rows and redraws. It does not allocate in steady state.
func (w *Waterfall) Pull(src ColumnSource, c int) {
	for {
		n, next, _ := src.Columns(c, w.cols, w.after)
		for i := range n {
			w.addFrame(w.cols[i])
		}
		w.after = next
		if n < len(w.cols) {
			break
		}
	}
	w.raster.Refresh()
}

// addFrame folds one frame (dB, FFT/2+1 bins) into the pending row and
// emits the rows it completes.
func (w *Waterfall) addFrame(db []float32) {
	if w.ring == nil || len(db) != w.fft/2+1 || len(w.acc) != w.bmap.width() {
		return
	}
	for x := range w.acc {
		w.acc[x] = max(w.acc[x], w.bmap.value(x, db))
	}
	w.accN++
	w.pending += w.rowsPerFrame()
	for w.pending >= 1-1e-9 { // (rounding must not lose a row)
		w.emit()
		w.pending--
	}
	if w.accN == 0 {
		for x := range w.acc {
			w.acc[x] = float32(math.Inf(-1))
		}
	}
}

// rowsPerFrame is how many pixel rows one frame advances.
func (w *Waterfall) rowsPerFrame() float64 {
	if w.ring == nil || w.span <= 0 {
		return 1
	}
	frameSec := float64(w.hop) / float64(w.rate)
	return float64(w.ring.Rect.Dy()) * frameSec / w.span
}

// emit writes the pending row into the ring.
func (w *Waterfall) emit() {
	pix := w.ring.Pix[w.ring.PixOffset(0, w.head):w.ring.PixOffset(0, w.head+1)]
	scale := 255 / (w.dbMax - w.dbMin)
	for x, v := range w.acc {
		i := int((float64(v) - w.dbMin) * scale)
		i = min(255, max(0, i))
		c := w.lut[i]
		pix[4*x], pix[4*x+1], pix[4*x+2], pix[4*x+3] = c[0], c[1], c[2], 255
	}
	w.head = (w.head + 1) % w.ring.Rect.Dy()
	w.rows = min(w.rows+1, w.ring.Rect.Dy())
	w.accN = 0
}

// Image is the last frame drawn.
func (w *Waterfall) Image() *image.RGBA { return w.img }

func (w *Waterfall) draw(width, height int) image.Image {
	key := bgKey{axis: w.axis, extra: w.span}
	if w.begin(width, height, key) {
		w.drawBackground()
	}
	a := w.area
	if k := [5]int{a.Dx(), a.Dy(), w.rate, w.fft, w.hop}; k != w.ringKey {
		w.ring = image.NewRGBA(image.Rect(0, 0, a.Dx(), a.Dy()))
		w.bmap = newBinMap(w.axis, a.Dx(), w.fft, w.rate)
		w.acc = make([]float32, a.Dx())
		for x := range w.acc {
			w.acc[x] = float32(math.Inf(-1))
		}
		w.head, w.rows, w.accN, w.pending = 0, 0, 0, 0
		w.ringKey = k
	}
	w.fromBackground()
	// newest row at the top
	H := w.ring.Rect.Dy()
	stride := a.Dx() * 4
	for r := range w.rows {
		src := (w.head - 1 - r + H) % H
		o := w.img.PixOffset(a.Min.X, a.Min.Y+r)
		copy(w.img.Pix[o:o+stride], w.ring.Pix[src*w.ring.Stride:src*w.ring.Stride+stride])
	}
	return w.img
}

func (w *Waterfall) drawBackground() {
	pal := paletteFor(w.dark)
	p := &w.p
	a := w.area
	w.clear()
	for _, t := range plot.TimeTicks(w.span, a.Dy()) {
		y := a.Min.Y + int(t/w.span*float64(a.Dy()-1)+0.5)
		p.hline(a.Min.X-p.px(4), a.Min.X, y, pal.gridMajor)
		label := "now"
		if t > 0 {
			label = "−" + plot.FormatSeconds(t, w.span)
		}
		p.text(label, a.Min.X-p.px(6), y, 1, 0.5, pal.text)
	}
}
