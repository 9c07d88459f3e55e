package view

import (
	"image"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfrview"
)

// FileView shows a whole file's spectrogram (time across, frequency up)
// and lets the user zoom (mouse wheel, keys) and pan (drag, keys). Each
// pixel is the maximum of the frames and bins it covers. A more detailed
// analysis of the visible region (SetDetail) replaces the overview where
// it covers the view. Hovering gives a readout and, through OnCursor, the
// spectrum of the column under the cursor. Only the Fyne goroutine uses
// it.
type FileView struct {
	plotBase
	fs, detail *analysis.FileSpectrogram
	// the overview and the detail in an analysis mode, when they are
	// (fileview_modes.go; nil: an STFT's uniform bins)
	fsMode, detailMode *tfrview.Spectrogram
	laneModes          []*tfrview.Spectrogram // the lanes in the mode (SetModeLanes)
	scale              plot.Scale
	axis               plot.FreqAxis
	lut                *[256][3]uint8
	dbMin, dbMax       float64
	t0, t1             float64 // the visible time range, seconds

	plot    *image.RGBA // the rendered plot area, remade when the view changes
	plotKey fileKey
	hover   bool
	cursor  fyne.Position
	readout []byte
	cur     live.Spectrum
	handed  bool // OnCursor has been handed a spectrum

	// the playhead, the selection, the lanes, the frequency zoom and
	// the colour scale (fileview_play.go, fileview_lanes.go)
	play fileOverlay

	// OnCursor receives the spectrum of the column under the cursor and
	// its time (ok false: the cursor left).
	OnCursor func(sp *live.Spectrum, t float64, ok bool)
	// OnView is called when the visible range changes.
	OnView func(t0, t1 float64)
	// Overlay, if set, draws over the plot area (panel.Scope's pitch track
	// and scope), given the hover cursor's time, else the playhead's while
	// it is shown (NaN: neither).
	Overlay func(img *image.RGBA, area image.Rectangle, t0, t1 float64, axis plot.FreqAxis, cursor float64)
}

type fileKey struct {
	fs, detail   *analysis.FileSpectrogram
	w, h         int
	t0, t1       float64
	axis         plot.FreqAxis
	lut          *[256][3]uint8
	dbMin, dbMax float64
	lanes        int // the lanes drawn (0: one plot)
}

// NewFileView makes an empty file view.
func NewFileView(scale plot.Scale, colormap plot.Colormap, dbMin, dbMax float64) *FileView {
	v := &FileView{scale: scale, dbMin: dbMin, dbMax: dbMax}
	v.dark = true
	v.SetColormap(colormap)
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *FileView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(320, 160))
}

// SetFile shows a file's overview spectrogram, all of it, and at once
// the readout and, through OnCursor, the spectrum of the new file: under
// the cursor where it is over the view, else, where a spectrum of the
// file before was handed out, the column at the middle of the file (so
// none of the file before stays).
func (v *FileView) SetFile(fs *analysis.FileSpectrogram) {
	v.fs, v.detail = fs, nil
	v.dropStaleModes()
	v.SetScale(v.scale)
	if fs != nil {
		v.t0, v.t1 = 0, fs.Duration
	}
	if !v.updateCursor() && v.handed && fs != nil && len(fs.Columns) > 0 {
		v.emitColumn(fs, fs.Duration/2)
	}
	v.Refresh()
}

// File is the overview shown (nil: none).
func (v *FileView) File() *analysis.FileSpectrogram { return v.fs }

// SetDetail shows a region's analysis where it covers the view.
func (v *FileView) SetDetail(d *analysis.FileSpectrogram) {
	v.detail = d
	v.dropStaleModes()
	v.updateCursor()
	v.Refresh()
}

// Analysis says what the view shows: "N=4096 hop 1024" (or the mode's
// label, "VQT 48/oct from 20 Hz hop 512"), with "(refined)" where a
// finer analysis of the zoomed region covers it.
func (v *FileView) Analysis() string {
	if v.fs == nil {
		return ""
	}
	src := v.source()
	s := v.describe(src)
	if src != v.fs {
		s += " (refined)"
	}
	return s
}

// SetScale sets the frequency scale.
func (v *FileView) SetScale(scale plot.Scale) {
	v.scale = scale
	if v.fs == nil {
		return
	}
	v.axis = plot.NewFreqAxis(scale, v.fs.Rate, v.fs.FFT).Range(v.play.fLo, v.play.fHi)
}

// Axis is the frequency axis shown.
func (v *FileView) Axis() plot.FreqAxis { return v.axis }

// SetColormap chooses the colormap.
func (v *FileView) SetColormap(c plot.Colormap) {
	v.lut = c.LUT()
}

// SetRange sets the colour range in dBFS.
func (v *FileView) SetRange(dbMin, dbMax float64) {
	if dbMin < dbMax {
		v.dbMin, v.dbMax = dbMin, dbMax
	}
}

// SetDark chooses the palette.
func (v *FileView) SetDark(dark bool) { v.dark = dark }

// View is the visible time range in seconds.
func (v *FileView) View() (t0, t1 float64) { return v.t0, v.t1 }

// SetView shows t0…t1 seconds, clamped to the file and to a span of at
// least four hops.
func (v *FileView) SetView(t0, t1 float64) {
	if v.fs == nil {
		return
	}
	d := v.fs.Duration
	minSpan := max(0.005, 4*float64(v.fs.Hop)/float64(v.fs.Rate))
	span := min(d, max(minSpan, t1-t0))
	t0 = min(max(0, t0), d-span)
	if t0 == v.t0 && t0+span == v.t1 {
		return
	}
	v.t0, v.t1 = t0, t0+span
	if v.OnView != nil {
		v.OnView(v.t0, v.t1)
	}
	v.updateCursor() // the cursor stays, the time under it moved
	v.Refresh()
}

// Zoom scales the visible span by factor (< 1 zooms in) around time t.
func (v *FileView) Zoom(factor, t float64) {
	span := (v.t1 - v.t0) * factor
	f := 0.5
	if v.t1 > v.t0 {
		f = (t - v.t0) / (v.t1 - v.t0)
	}
	v.SetView(t-f*span, t-f*span+span)
}

// Pan moves the view by a fraction of its span.
func (v *FileView) Pan(fraction float64) {
	d := (v.t1 - v.t0) * fraction
	v.SetView(v.t0+d, v.t1+d)
}

// Scrolled implements fyne.Scrollable: the wheel zooms around the cursor,
// in time, or with Shift in frequency (fileview_lanes.go).
func (v *FileView) Scrolled(e *fyne.ScrollEvent) {
	if v.scrollFreq(e) {
		return
	}
	t, _ := v.timeAt(e.Position.X)
	if e.Scrolled.DY > 0 {
		v.Zoom(0.8, t)
	} else if e.Scrolled.DY < 0 {
		v.Zoom(1.25, t)
	}
}

// Dragged implements fyne.Draggable: dragging pans; dragging on the
// time axis selects a time range, with Shift on the plot a
// time×frequency box (fileview_play.go).
func (v *FileView) Dragged(e *fyne.DragEvent) {
	if v.dragSelect(e) {
		return
	}
	if w := float64(v.area.Dx()) / float64(max(v.p.scale, 1e-6)); w > 0 {
		v.Pan(-float64(e.Dragged.DX) / w)
	}
}

// DragEnd implements fyne.Draggable.
func (v *FileView) DragEnd() { v.endDrag() }

// MouseIn implements desktop.Hoverable.
func (v *FileView) MouseIn(e *desktop.MouseEvent) { v.MouseMoved(e) }

// MouseMoved implements desktop.Hoverable.
func (v *FileView) MouseMoved(e *desktop.MouseEvent) {
	v.hover, v.cursor = true, e.Position
	v.updateCursor()
	v.raster.Refresh()
}

// MouseOut implements desktop.Hoverable.
func (v *FileView) MouseOut() {
	v.hover = false
	v.readout = v.readout[:0]
	if v.OnCursor != nil {
		v.OnCursor(nil, 0, false)
	}
	v.raster.Refresh()
}

// Readout is the cursor readout (time, frequency, level, note).
func (v *FileView) Readout() string { return string(v.readout) }

// timeAt is the time at widget x, and whether x is over the plot.
func (v *FileView) timeAt(x float32) (float64, bool) {
	a := v.area
	if a.Dx() <= 0 {
		return v.t0, false
	}
	px := v.p.px(x) - a.Min.X
	t := v.t0 + (float64(px)+0.5)/float64(a.Dx())*(v.t1-v.t0)
	return t, px >= 0 && px < a.Dx()
}

// source is the spectrogram that covers the view best.
func (v *FileView) source() *analysis.FileSpectrogram {
	if d := v.detail; d != nil && v.sameBins(d) && d.ColumnTime(0) <= v.t0+1e-9 &&
		d.ColumnTime(float64(len(d.Columns))) >= v.t1-1e-9 {
		return d
	}
	return v.fs
}

// updateCursor computes the readout and the spectrum under the cursor,
// and says whether the cursor is over the plot (and OnCursor was handed
// its spectrum).
func (v *FileView) updateCursor() bool {
	v.readout = v.readout[:0]
	if v.fs == nil || !v.hover {
		return false
	}
	t, okX := v.timeAt(v.cursor.X)
	src, lane, ok := v.laneAt(v.p.px(v.cursor.Y))
	if !okX || !ok {
		if v.OnCursor != nil {
			v.OnCursor(nil, 0, false)
		}
		return false
	}
	py := v.p.px(v.cursor.Y) - lane.Min.Y
	f := v.axis.Freq(1 - (float64(py)+0.5)/float64(lane.Dy()))
	col := v.column(src, t)
	b := append(v.readout, FormatTime(t, 0.001, v.fs.Duration)...)
	b = append(b, "   "...)
	b = appendHz(b, f)
	b = append(b, "   "...)
	b = appendDB(b, v.levelIn(src, col, f))
	b = append(b, "   "...)
	b = appendNote(b, f)
	if src.FramesPerColumn >= 1.5 {
		b = append(b, "   (max of "...)
		b = strconv.AppendFloat(b, src.FramesPerColumn, 'f', 0, 64)
		b = append(b, " frames)"...)
	}
	v.readout = b
	if v.OnCursor != nil {
		v.handed = true
		v.OnCursor(&v.cur, t, true)
	}
	return true
}

// column copies the column of src at time t into the cursor's spectrum
// and returns it.
func (v *FileView) column(src *analysis.FileSpectrogram, t float64) []float32 {
	ci := int(math.Round(src.TimeColumn(t)))
	ci = min(len(src.Columns)-1, max(0, ci))
	col := src.Columns[ci]
	v.cur.Current = append(v.cur.Current[:0], col...)
	v.setCursorBins(src)
	return col
}

// emitColumn hands OnCursor the column of src at time t.
func (v *FileView) emitColumn(src *analysis.FileSpectrogram, t float64) {
	if v.OnCursor == nil {
		return
	}
	v.column(src, t)
	v.handed = true
	v.OnCursor(&v.cur, t, true)
}

// Image is the last frame drawn.
func (v *FileView) Image() *image.RGBA { return v.img }

func (v *FileView) draw(w, h int) image.Image {
	key := bgKey{axis: v.axis, extra: v.t0, dbMax: v.t1, dbMin: v.dbMin, extraS: v.play.tag}
	if v.fs != nil {
		key.extraI = v.source().Hop
	}
	fresh := v.begin(w, h, key)
	if v.fs != nil && v.area.Dx() > v.p.px(2*colourScaleWidth) {
		v.area.Max.X -= v.p.px(colourScaleWidth) // the colour scale's room
	}
	if fresh {
		v.drawBackground()
	}
	v.fromBackground()
	a := v.area
	if v.fs == nil || v.lut == nil {
		pal := paletteFor(v.dark)
		v.p.text("Open a WAV, FLAC or MP3 file (Ctrl+O, or drop it on the window)", a.Min.X+a.Dx()/2, a.Min.Y+a.Dy()/2, 0.5, 0.5, pal.text)
		return v.img
	}
	k := fileKey{v.fs, v.detail, a.Dx(), a.Dy(), v.t0, v.t1, v.axis, v.lut, v.dbMin, v.dbMax, v.play.laneGen}
	if k != v.plotKey || v.plot == nil {
		v.renderPlot()
		v.plotKey = k
	}
	stride := a.Dx() * 4
	for y := range a.Dy() {
		o := v.img.PixOffset(a.Min.X, a.Min.Y+y)
		copy(v.img.Pix[o:o+stride], v.plot.Pix[y*v.plot.Stride:y*v.plot.Stride+stride])
	}
	v.drawOverlay()
	if v.Overlay != nil {
		ct, in := v.timeAt(v.cursor.X)
		if pt, on := v.Playhead(); (!in || !v.hover) && on {
			ct = pt // the scope follows what is heard
		} else if !in || !v.hover {
			ct = math.NaN()
		}
		v.Overlay(v.img, a, v.t0, v.t1, v.axis, ct)
	}
	if v.hover {
		pal := paletteFor(v.dark)
		if px := v.p.px(v.cursor.X); px >= a.Min.X && px < a.Max.X {
			v.p.dashedV(px, a.Min.Y, a.Max.Y, pal.cursor)
		}
		if len(v.readout) > 0 {
			v.p.fill(image.Rect(a.Min.X, a.Min.Y, a.Min.X+v.p.textWidthBytes(v.readout)+v.p.px(8), a.Min.Y+v.p.textHeight()+v.p.px(4)), pal.bg)
			v.p.textBytes(v.readout, a.Min.X+v.p.px(4), a.Min.Y+v.p.px(2), 0, 0, pal.cursor)
		}
	}
	return v.img
}

// renderPlot draws the visible region into v.plot: per pixel the maximum
// of the columns and bins it covers, each lane in its own rows.
func (v *FileView) renderPlot() {
	a := v.area
	v.plot = ensureImage(v.plot, a.Dx(), a.Dy())
	v.clearGaps()
	for i, r := range v.laneRects() {
		v.renderRows(v.laneSource(i), r.Min.Y-a.Min.Y, r.Dy())
	}
}

// renderRows draws src's visible region into H rows of v.plot from y0.
func (v *FileView) renderRows(src *analysis.FileSpectrogram, y0, H int) {
	if s := v.modeOf(src); s != nil {
		v.renderModeRows(s, y0, H)
		return
	}
	W := v.area.Dx()
	lo, hi := v.axis.RowBins(H, src.FFT, src.Rate)
	sh := plot.NewShaderLUT(v.lut, v.dbMin, v.dbMax)
	n := len(src.Columns)
	for x := range W {
		c0, c1 := v.pixelColumns(src, x, W, n)
		for y := range H {
			r := H - 1 - y // row 0 of RowBins is the low end
			m := float32(math.Inf(-1))
			for c := c0; c < c1; c++ {
				for _, d := range src.Columns[c][lo[r]:hi[r]] {
					m = max(m, d)
				}
			}
			sh.Put(v.plot.Pix[v.plot.PixOffset(x, y0+y):], m)
		}
	}
}

func (v *FileView) drawBackground() {
	pal := paletteFor(v.dark)
	p := &v.p
	a := v.area
	v.clear()
	if v.fs == nil {
		return
	}
	for _, r := range v.laneRects() {
		for _, f := range plot.FreqTicks(v.axis, r.Dy()) {
			y := r.Max.Y - 1 - int(v.axis.Pos(f)*float64(r.Dy()-1)+0.5)
			p.hline(a.Min.X-p.px(4), a.Min.X, y, pal.gridMajor)
			p.text(v.axis.Label(f), a.Min.X-p.px(6), y, 1, 0.5, pal.text)
		}
	}
	step := v.TimeStep()
	for _, t := range ticksEvery(v.t0, v.t1, step) {
		x := a.Min.X + int((t-v.t0)/(v.t1-v.t0)*float64(a.Dx()-1)+0.5)
		p.vline(x, a.Max.Y, a.Max.Y+p.px(4), pal.gridMajor)
		p.text(FormatTime(t, step, v.fs.Duration), x, a.Max.Y+p.px(5), 0.5, 0, pal.text)
	}
	p.text("Hz", p.px(4), p.px(2), 0, 0, pal.text)
	p.text(v.Analysis(), a.Max.X, p.px(2), 1, 0, pal.text)
}

// timeGap is the room one time label needs at step (pixels).
func (v *FileView) timeGap(step float64) int {
	return v.p.textWidth(FormatTime(v.fs.Duration, step, v.fs.Duration)) + v.p.px(16)
}

// TimeStep is the time axis's tick step: the finest of timeSteps whose
// labels (as wide as the widest time at that step) do not overlap.
func (v *FileView) TimeStep() float64 {
	a := v.area
	for _, s := range timeSteps {
		if s*float64(a.Dx())/(v.t1-v.t0) >= float64(v.timeGap(s)) {
			return s
		}
	}
	return timeSteps[len(timeSteps)-1]
}

// TimeLabels are the time axis's labels as drawn.
func (v *FileView) TimeLabels() []string {
	if v.fs == nil {
		return nil
	}
	step := v.TimeStep()
	var out []string
	for _, t := range ticksEvery(v.t0, v.t1, step) {
		out = append(out, FormatTime(t, step, v.fs.Duration))
	}
	return out
}
