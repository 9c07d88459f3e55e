package view

import (
	"image"
	"image/color"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
)

// What the window and its tests read back from the views: their
// configuration as last set and the geometry of their last drawing.

// Area is the plot area in pixels as last drawn (empty before).
func (b *plotBase) Area() image.Rectangle { return b.area }

// Dark says whether the view draws with the dark palette.
func (b *plotBase) Dark() bool { return b.dark }

// Render draws the spectrum at w×h pixels, as its raster does when the
// window paints.
func (v *SpectrumView) Render(w, h int) image.Image { return v.draw(w, h) }

// Render draws the waterfall at w×h pixels.
func (w *Waterfall) Render(width, height int) image.Image { return w.draw(width, height) }

// Render draws the RTA bars at w×h pixels.
func (v *RTAView) Render(w, h int) image.Image { return v.draw(w, h) }

// Render draws the plot at w×h pixels.
func (v *LinePlot) Render(w, h int) image.Image { return v.draw(w, h) }

// Range is the dB range shown.
func (v *SpectrumView) Range() (dbMin, dbMax float64) { return v.dbMin, v.dbMax }

// Config is the sample rate (Hz) and FFT size the view is set up for.
func (v *SpectrumView) Config() (rate, fft int) { return v.rate, v.fft }

// Band is the band marked (Hz; hi 0: none).
func (v *SpectrumView) Band() (lo, hi float64) { return v.bandLo, v.bandHi }

// UnitLabel is the level unit's label ("dBFS", "dB SPL (mic.txt)", …).
func (v *SpectrumView) UnitLabel() string { return v.unit }

// Config is the sample rate (Hz) and FFT size the waterfall is set up for.
func (w *Waterfall) Config() (rate, fft int) { return w.rate, w.fft }

// Axis is the waterfall's frequency axis.
func (w *Waterfall) Axis() plot.FreqAxis { return w.axis }

// Colormap is the waterfall's colormap.
func (w *Waterfall) Colormap() plot.Colormap { return w.colormap }

// Range is the dB range the colormap spans.
func (w *Waterfall) Range() (dbMin, dbMax float64) { return w.dbMin, w.dbMax }

// History is the waterfall's rows (dB), one per pixel row, in a ring;
// the slice is the view's.
func (w *Waterfall) History() [][]float32 { return w.hist }

// UnitLabel is the levels' unit label (SetUnit).
func (v *RTAView) UnitLabel() string { return v.unit }

// Weighting is the bands' weighting.
func (v *RTAView) Weighting() dsp.Weighting { return v.weighting }

// Axis is the plot's frequency axis.
func (v *LinePlot) Axis() plot.FreqAxis { return v.axis }

// Scale is the device-pixel scale the plot was last drawn at.
func (v *LinePlot) Scale() float32 { return v.p.scale }

// Detail is the finer analysis of the visible region, nil if none.
func (v *FileView) Detail() *analysis.FileSpectrogram { return v.detail }

// Busy says whether a measurement is running.
func (h *HarmonicMeter) Busy() bool { return h.busy }

// Colors are the plots' colours in one theme, as tests check pixels.
type Colors struct {
	PlotBg, Grid, Band, Peak, Hold color.RGBA
	Traces                         [4]color.RGBA // channels 0, 1, the mix, extra
	Avg                            [4]color.RGBA // the average traces of Traces
	Mix, MixAvg                    color.RGBA    // the mix's trace and its average (never a channel's)
}

// ColorsFor are the dark or light theme's colours.
func ColorsFor(dark bool) Colors {
	pal := paletteFor(dark)
	c := Colors{PlotBg: pal.plotBg, Grid: pal.grid, Band: pal.band, Peak: pal.peak, Hold: pal.hold, Traces: pal.traces}
	for i, t := range pal.traces {
		c.Avg[i] = avgColor(t, pal)
	}
	c.Mix, c.MixAvg = pal.mix, avgColor(pal.mix, pal)
	return c
}
