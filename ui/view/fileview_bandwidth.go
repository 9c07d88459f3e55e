package view

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp/bandwidth"
	"github.com/prismaudio/prism/app/plot"
)

// bandwidthColumns is the most spectrogram columns the verdict averages
// (evenly spread over the file): enough for a long-term spectrum, few
// enough to take milliseconds on the Fyne goroutine.
const bandwidthColumns = 512

// BandwidthLine draws the bandwidth verdict (package bandwidth) of the
// file a FileView shows as a dashed line across its plot at the
// frequency where the content ends, labelled, when the file is not full
// band; lay it over the FileView (a transparent raster of the same size:
// the view's pointer events pass through). Sync follows the view; only
// the Fyne goroutine uses it.
type BandwidthLine struct {
	fv      *FileView
	raster  *canvas.Raster
	on      bool
	fs      *analysis.FileSpectrogram // the file the verdict is of
	judged  bool                      // fs's columns are an FFT's bins (not an analysis mode's)
	verdict bandwidth.Verdict
	drawn   bandwidthKey
	img     *image.RGBA
}

// bandwidthKey is what a drawn line depends on.
type bandwidthKey struct {
	fs   *analysis.FileSpectrogram
	on   bool
	area image.Rectangle
	axis plot.FreqAxis
	dark bool
}

// NewBandwidthLine makes the line over fv, on.
func NewBandwidthLine(fv *FileView) *BandwidthLine {
	b := &BandwidthLine{fv: fv, on: true}
	b.raster = canvas.NewRaster(b.draw)
	return b
}

// Object is the overlay to stack over the FileView.
func (b *BandwidthLine) Object() fyne.CanvasObject { return b.raster }

// Toggle shows or hides the line.
func (b *BandwidthLine) Toggle() { b.on = !b.on; b.Sync() }

// On says whether the line shows.
func (b *BandwidthLine) On() bool { return b.on }

// Verdict is the verdict on the file shown (ok false: no file yet, or
// one shown in an analysis mode).
func (b *BandwidthLine) Verdict() (bandwidth.Verdict, bool) { return b.verdict, b.judged }

// Sync judges a newly shown file and redraws when the file, the view's
// plot area, its frequency axis or the theme changed. Call it every tick;
// otherwise it does nothing.
func (b *BandwidthLine) Sync() {
	if fs := b.fv.File(); fs != b.fs {
		b.fs = fs
		// Detect reads bins rate/FFT apart: a mode's (VQT, multi-resolution)
		// are not, so a file shown in one is not judged
		b.judged = fs != nil && b.fv.modeOf(fs) == nil
		if b.judged {
			b.verdict = bandwidth.Detect(longTermDB(fs), float64(fs.Rate)/float64(fs.FFT))
		}
	}
	if k := b.key(); k != b.drawn {
		b.raster.Refresh()
	}
}

func (b *BandwidthLine) key() bandwidthKey {
	return bandwidthKey{b.fs, b.on, b.fv.area, b.fv.axis, b.fv.dark}
}

// longTermDB is the power mean of (up to bandwidthColumns of) the
// file's columns, per bin, in dB.
func longTermDB(fs *analysis.FileSpectrogram) []float64 {
	if len(fs.Columns) == 0 {
		return nil
	}
	acc := make([]float64, len(fs.Columns[0]))
	step := max(1, len(fs.Columns)/bandwidthColumns)
	n := 0
	for c := 0; c < len(fs.Columns); c += step {
		for k, db := range fs.Columns[c] {
			acc[k] += math.Pow(10, float64(db)/10)
		}
		n++
	}
	for k := range acc {
		acc[k] = max(-200, 10*math.Log10(acc[k]/float64(n)))
	}
	return acc
}

// LineY is the pixel row the line is drawn at (ok false: none drawn).
func (b *BandwidthLine) LineY() (int, bool) {
	v := b.verdict
	if !b.on || !b.judged || v.FullBand || v.Silent || b.fv.area.Dy() < 2 {
		return 0, false
	}
	a := b.fv.area
	return a.Max.Y - 1 - int(b.fv.axis.Pos(v.BandwidthHz)*float64(a.Dy()-1)+0.5), true
}

func (b *BandwidthLine) draw(w, h int) image.Image {
	b.drawn = b.key()
	b.img = ensureImage(b.img, w, h)
	draw.Draw(b.img, b.img.Rect, image.Transparent, image.Point{}, draw.Src)
	y, ok := b.LineY()
	if !ok || b.img.Rect != b.fv.img.Rect {
		return b.img
	}
	pal := paletteFor(b.fv.dark)
	p := painter{img: b.img, scale: b.fv.p.scale, face: b.fv.p.face}
	a := b.fv.area
	for x := a.Min.X; x < a.Max.X; x += p.px(8) {
		p.hline(x, min(x+p.px(5), a.Max.X), y, pal.marker)
	}
	label := "content ends at " + plot.FormatHz(b.verdict.BandwidthHz)
	if u := b.verdict.UpsampledFromHz; u > 0 {
		label += ": upsampled from " + strconv.FormatFloat(u/1000, 'f', -1, 64) + " kHz?"
	}
	if b.verdict.LossyLowpass {
		label += ": a lossy encoder's low-pass?"
		if h := b.verdict.Hint(); h != "" {
			label += " (" + h + ")"
		}
	}
	wid, th := p.textWidth(label), p.textHeight()
	top := y - th - p.px(3) // above the line, or below it near the plot's top
	if top < a.Min.Y {
		top = y + p.px(2)
	}
	r := image.Rect(a.Max.X-wid-p.px(8), top, a.Max.X, top+th+p.px(2))
	const alpha = 200 // the label's backing: the spectrogram shows through a little
	bg := pal.bg
	p.fill(r, color.RGBA{uint8(uint32(bg.R) * alpha / 255), uint8(uint32(bg.G) * alpha / 255), uint8(uint32(bg.B) * alpha / 255), alpha})
	p.text(label, a.Max.X-p.px(4), top+p.px(1), 1, 0, pal.marker)
	return b.img
}
