package view

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// TestHarmonicReadoutNoTone: D on noise (no fundamental found) says so in
// words, in the text's colour, where a measured THD is written in the
// peak's red: a failure never looks like a result.
func TestHarmonicReadoutNoTone(t *testing.T) {
	test.NewTempApp(t)
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	db := make([]float32, 2049)
	for k := range db {
		db[k] = -90
	}
	v.ShowSpectrum(&live.Spectrum{Current: db, BinHz: 48000.0 / 4096})
	h := &HarmonicMeter{on: true, err: dsp.ErrNoFundamental}
	h.formatLine()
	v.SetHarmonics(h)
	win := showIn(t, v, 800, 300)
	pal := paletteFor(v.dark)
	count := func() (red, text int) {
		img := capture(win)
		a := v.area
		for y := a.Max.Y - 30; y < a.Max.Y; y++ {
			for x := a.Min.X; x < a.Min.X+400; x++ {
				c := img.RGBAAt(x, y)
				if near(c, pal.peak, 30) {
					red++
				}
				if near(c, pal.text, 30) {
					text++
				}
			}
		}
		return red, text
	}
	if string(h.line) != "THD: no steady tone to measure: play a tone (D hides this)" {
		t.Errorf("readout %q", h.line)
	}
	if red, text := count(); red != 0 || text < 20 {
		t.Errorf("no tone: %d red pixels, %d in the text's colour: want none red, the words in the text's", red, text)
	}
	h.err, h.valid = nil, true
	h.res = dsp.Distortion{FundamentalHz: 1000, FundamentalDBFS: -6, THDPercent: 0.1, THDDB: -60, THDNDB: -59, SNRDB: 80, SINADDB: 59}
	h.formatLine()
	v.Refresh()
	if red, _ := count(); red < 20 {
		t.Errorf("a measured THD: %d red pixels, want its readout in red", red)
	}
}
