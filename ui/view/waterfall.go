package view

import (
	"image"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// ColumnSource is where a Waterfall pulls spectrogram columns from
// (session.Session): every analyzed frame is one column, oldest first.
type ColumnSource interface {
	Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry)
}

// MaxStoredBins bounds a stored waterfall row: columns of larger FFTs are
// kept max-pooled to this many bins (a 16384-point FFT's resolution,
// finer than a pixel of a log axis at 20 Hz on a 1600-pixel plot), so the
// history stays within rows × 8193 floats.
const MaxStoredBins = 8193

// Waterfall is a scrolling spectrogram: frequency across (aligned with a
// SpectrumView of the same width above it), time downwards, newest at the
// top, with a colour scale in its top margin.
//
// Its history is kept in dB, not in colours: one row per pixel row, each
// the maximum of the frames it covers (so a frame shorter than a row still
// shows) at the frames' own bin resolution, with that resolution's length.
// A change of colormap, dB range, frequency axis or width re-renders the
// rows from that history; a change of height or time span resamples it
// (rows merged by maximum or spread); an FFT-size change keeps it (each
// row is mapped by its own geometry). Only a sample-rate change clears it.
// Only the Fyne goroutine uses it.
type Waterfall struct {
	plotBase
	rate, fft, hop int
	colHop         int // samples between the source's columns (0: hop)
	scale          plot.Scale
	axis           plot.FreqAxis
	fLo, fHi       float64 // the frequency range shown (SetFreqRange; 0: the full axis's end)
	maps           binMaps
	lut            *[256][3]uint8
	colormap       plot.Colormap
	dbMin, dbMax   float64
	span           float64 // seconds shown top to bottom

	hist    [][]float32 // one dB row per pixel row; hist[head] is the next written
	head    int
	rows    int         // rows written, up to len(hist)
	ring    *image.RGBA // the rows rendered: width × len(hist)
	dirty   bool        // re-render every row from hist at the next draw
	acc     []float32   // the pending row: maximum per bin
	accN    int
	pending float64   // rows owed to frames already folded in
	pool    []float32 // a column max-pooled to MaxStoredBins
	cols    [][]float32
	after   uint64
	freqs   []float64   // the columns' bins' centre frequencies (an analysis mode's; nil: uniform)
	rowHz   [][]float64 // each stored row's bins' centre frequencies (nil: uniform), beside hist
}

// NewWaterfall makes a waterfall for rate, FFT size and hop (samples), on
// frequency scale `scale`, with a colormap, dB range and time span.
func NewWaterfall(rate, fft, hop int, scale plot.Scale, colormap plot.Colormap, dbMin, dbMax, spanSeconds float64) *Waterfall {
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

// SetConfig sets rate, FFT size, hop and frequency scale. The history is
// kept (re-rendered on the new axis) unless the rate changes.
func (w *Waterfall) SetConfig(rate, fft, hop int, scale plot.Scale) {
	if hop < 1 {
		return
	}
	axis := plot.NewFreqAxis(scale, rate, fft).Range(w.fLo, w.fHi)
	if rate != w.rate {
		w.rows, w.head, w.accN, w.pending = 0, 0, 0, 0
	}
	w.rate, w.fft, w.hop, w.scale, w.axis = rate, fft, hop, scale, axis
	w.dirty = true
}

// SetFreqRange shows lo…hi Hz (0 for either: that end of the full
// axis), as the spectrum above it; the history is re-rendered on it.
func (w *Waterfall) SetFreqRange(lo, hi float64) {
	if lo != w.fLo || hi != w.fHi {
		w.fLo, w.fHi = lo, hi
		w.axis = plot.NewFreqAxis(w.scale, w.rate, w.fft).Range(lo, hi)
		w.dirty = true
		w.raster.Refresh()
	}
}

// SetColormap chooses the colormap; the history is re-rendered with it.
func (w *Waterfall) SetColormap(c plot.Colormap) {
	if w.lut == nil || c != w.colormap {
		w.lut, w.colormap = c.LUT(), c
		w.dirty = true
	}
}

// SetRange sets the dB range the colormap spans; the history is
// re-rendered with it.
func (w *Waterfall) SetRange(dbMin, dbMax float64) {
	if dbMin < dbMax && (dbMin != w.dbMin || dbMax != w.dbMax) {
		w.dbMin, w.dbMax = dbMin, dbMax
		w.dirty = true
	}
}

// SetSpan sets the seconds shown top to bottom; the history is resampled
// to the new time scale.
func (w *Waterfall) SetSpan(seconds float64) {
	if seconds > 0 && seconds != w.span {
		old := w.span
		w.span = seconds
		w.resample(len(w.hist), seconds/old)
	}
}

// SetDark chooses the dark or light palette for the axes.
func (w *Waterfall) SetDark(dark bool) { w.dark = dark }

// Rows is how many rows of history the waterfall holds.
func (w *Waterfall) Rows() int { return w.rows }

// pullBins bounds the bins one Pull reads and folds (7 columns of a
// 2^20-point FFT, 256 of 16384): the window's tick stays short at any FFT
// size, where catching up on every new column at once scanned each in
// full within one tick. A waterfall that falls further behind than the
// analysis keeps columns skips to the oldest kept (Live.Columns).
const pullBins = 1 << 22

// Pull folds the columns output channel c gained since the last call into
// rows (at most pullBins bins of them; the rest at the next call) and
// redraws. It does not allocate in steady state.
func (w *Waterfall) Pull(src ColumnSource, c int) {
	if fs, ok := src.(ColumnFreqsSource); ok {
		w.freqs = fs.ModeFreqs()
	}
	for left := max(1, pullBins/(w.fft/2+1)); left > 0; { // columns of the current size
		k := min(len(w.cols), left)
		n, next, g := src.Columns(c, w.cols[:k], w.after) // each column is read by its own length
		w.colHop = g.Hop                                  // a column may fold several frames
		for i := range n {
			w.addFrame(w.cols[i])
		}
		w.after, left = next, left-n
		if n < k {
			break
		}
	}
	w.raster.Refresh()
}

// addFrame folds one frame (dB, N/2+1 bins for its own N) into the
// pending row and emits the rows it completes. A frame of another
// geometry than the pending row's starts the row afresh.
func (w *Waterfall) addFrame(db []float32) {
	if len(w.hist) == 0 || len(db) < 2 {
		return
	}
	db = w.pooled(db)
	if w.accN > 0 && len(w.acc) != len(db) {
		w.accN = 0
	}
	if w.accN == 0 {
		w.acc = append(w.acc[:0], db...)
	} else {
		for k, v := range db {
			w.acc[k] = max(w.acc[k], v)
		}
	}
	w.accN++
	w.pending += w.rowsPerFrame()
	emitted := false
	for w.pending >= 1-1e-9 { // (rounding must not lose a row)
		w.emit()
		w.pending--
		emitted = true
	}
	if emitted {
		w.accN = 0
	}
}

// pooled is db, or db max-pooled by a power of two to at most
// MaxStoredBins bins: bin i of the result is the maximum of db's bins
// within half a pooled bin of i·factor, so the result is the spectrum of
// an N/factor-point FFT as far as the axis is concerned.
func (w *Waterfall) pooled(db []float32) []float32 {
	if len(db) <= MaxStoredBins || tableFor(w.freqs, len(db)) != nil { // a mode's bins are kept as they are
		return db
	}
	f := 1
	for (len(db)-1)/f+1 > MaxStoredBins {
		f *= 2
	}
	n := (len(db)-1)/f + 1
	w.pool = w.pool[:0]
	for i := range n {
		lo, hi := max(0, i*f-f/2), min(len(db), i*f+f/2+1)
		w.pool = append(w.pool, plot.MaxLevel(db[lo], db[lo+1:hi]))
	}
	return w.pool
}

// rowsPerFrame is how many pixel rows one frame advances.
func (w *Waterfall) rowsPerFrame() float64 {
	if len(w.hist) == 0 || w.span <= 0 || w.rate <= 0 {
		return 1
	}
	hop := w.hop
	if w.colHop > 0 {
		hop = w.colHop
	}
	frameSec := float64(hop) / float64(w.rate)
	return float64(len(w.hist)) * frameSec / w.span
}

// emit stores the pending row as the newest and renders it.
func (w *Waterfall) emit() {
	w.hist[w.head] = append(w.hist[w.head][:0], w.acc...)
	w.rowHz[w.head] = tableFor(w.freqs, len(w.acc))
	w.renderRow(w.head)
	w.head = (w.head + 1) % len(w.hist)
	w.rows = min(w.rows+1, len(w.hist))
}

// renderRow colours stored row i into the ring, mapping it by its own
// geometry.
func (w *Waterfall) renderRow(i int) {
	pix := w.ring.Pix[w.ring.PixOffset(0, i):w.ring.PixOffset(0, i+1)]
	row := w.hist[i]
	m := w.maps.getFor(w.axis, w.ring.Rect.Dx(), w.rate, len(row), w.rowHz[i])
	if m == nil {
		clear(pix)
		return
	}
	sh := plot.NewShaderLUT(w.lut, w.dbMin, w.dbMax)
	for x := range m.width() {
		sh.Put(pix[4*x:], m.value(x, row))
	}
}

// resample remakes the history as `height` rows for a time scale
// stretched by factor (new seconds per old): each new row is the
// maximum of the old rows it covers that share the newest one's geometry.
func (w *Waterfall) resample(height int, factor float64) {
	if height < 1 {
		return
	}
	old, oldHz, oldHead, oldRows := w.hist, w.rowHz, w.head, w.rows
	H := max(1, len(old))
	// new row i covers old rows [i·r, (i+1)·r), ages counted from the newest
	r := float64(H) / float64(height) * factor
	w.hist, w.rowHz = make([][]float32, height), make([][]float64, height)
	w.rows = 0
	if oldRows > 0 {
		w.rows = min(height, int(math.Ceil(float64(oldRows)/r-1e-9)))
	}
	for i := range w.rows {
		j0 := int(float64(i) * r)
		j1 := max(j0+1, int(math.Ceil(float64(i+1)*r-1e-9)))
		j1 = min(j1, oldRows)
		var dst []float32
		for j := j0; j < j1; j++ {
			src := old[(oldHead-1-j+2*H)%H]
			switch {
			case j == j0:
				dst = append(make([]float32, 0, len(src)), src...)
			case len(src) == len(dst):
				for k, v := range src {
					dst[k] = max(dst[k], v)
				}
			}
		}
		w.hist[w.rows-1-i] = dst
		if j0 < j1 {
			w.rowHz[w.rows-1-i] = oldHz[(oldHead-1-j0+2*H)%H]
		}
	}
	w.head = w.rows % height
	w.pending *= float64(height) / float64(H) / factor
	w.dirty = true
}

// Image is the last frame drawn.
func (w *Waterfall) Image() *image.RGBA { return w.img }

func (w *Waterfall) draw(width, height int) image.Image {
	key := bgKey{axis: w.axis, extra: w.span, dbMin: w.dbMin, dbMax: w.dbMax, extraS: w.colormap.String()}
	if w.begin(width, height, key) {
		w.drawBackground()
	}
	a := w.area
	if a.Dy() != len(w.hist) {
		w.resample(a.Dy(), 1)
	}
	if w.ring == nil || w.ring.Rect.Dx() != a.Dx() || w.ring.Rect.Dy() != a.Dy() {
		w.ring = image.NewRGBA(image.Rect(0, 0, a.Dx(), a.Dy()))
		w.dirty = true
	}
	if w.dirty {
		for i := range w.rows {
			w.renderRow((w.head - 1 - i + len(w.hist)) % len(w.hist))
		}
		w.dirty = false
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
	step := timeStep(0, w.span, a.Dy(), p.textHeight()*2)
	for _, t := range timeTicks(0, w.span, a.Dy(), p.textHeight()*2) {
		y := a.Min.Y + int(t/w.span*float64(a.Dy()-1)+0.5)
		p.hline(a.Min.X-p.px(4), a.Min.X, y, pal.gridMajor)
		label := "now"
		if t > 0 {
			label = FormatTime(-t, step, w.span)
		}
		p.text(label, a.Min.X-p.px(6), y, 1, 0.5, pal.text)
	}
	w.drawColorbar(pal)
}

// ColorbarRect is where the colour scale's gradient is drawn (pixels).
func (w *Waterfall) ColorbarRect() image.Rectangle {
	p := &w.p
	a := w.area
	barW := min(p.px(220), a.Dx()/2)
	x1 := a.Max.X - p.textWidth("0 dBFS") - p.px(6)
	y0 := max(1, (a.Min.Y-p.px(7))/2)
	return image.Rect(x1-barW, y0, x1, y0+p.px(7))
}

// drawColorbar draws the colour scale in the top margin: the colormap
// from dbMin to dbMax with the two ends and a middle level labelled.
func (w *Waterfall) drawColorbar(pal *palette) {
	if w.lut == nil {
		return
	}
	p := &w.p
	r := w.ColorbarRect()
	if r.Dx() < 8 {
		return
	}
	sh := plot.NewShaderLUT(w.lut, w.dbMin, w.dbMax)
	for x := r.Min.X; x < r.Max.X; x++ {
		db := w.dbMin + (w.dbMax-w.dbMin)*float64(x-r.Min.X)/float64(max(1, r.Dx()-1))
		p.vline(x, r.Min.Y, r.Max.Y-1, rgb(sh.RGB(float32(db))))
	}
	mid := (r.Min.Y + r.Max.Y) / 2
	p.text(strconv.FormatFloat(w.dbMin, 'f', -1, 64), r.Min.X-p.px(4), mid, 1, 0.5, pal.text)
	p.text(strconv.FormatFloat(w.dbMax, 'f', -1, 64)+" dBFS", r.Max.X+p.px(4), mid, 0, 0.5, pal.text)
	// the middle level, if it is a round number of dB
	for _, db := range dbTicks(w.dbMin, w.dbMax, 60) {
		if db <= w.dbMin || db >= w.dbMax {
			continue
		}
		x := r.Min.X + int((db-w.dbMin)/(w.dbMax-w.dbMin)*float64(r.Dx()-1)+0.5)
		p.vline(x, r.Max.Y, r.Max.Y+p.px(2), pal.text)
	}
}

// Span is the waterfall's time span in seconds.
func (w *Waterfall) Span() float64 { return w.span }

// Scale is the frequency scale the waterfall draws on.
func (w *Waterfall) Scale() plot.Scale { return w.scale }
