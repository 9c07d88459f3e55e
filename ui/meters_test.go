package ui

import (
	"image/color"
	"strings"
	"testing"

	"github.com/prismaudio/prism/ui/view"
)

// TestMetersViewShowsEngine: in the window, the meters show the fake
// engine's values: the numbers (rounded to 0.1 dB) and, per channel, the
// bars' tops and the hold markers at the pixel rows of their levels; R
// resets the engine's meters.
func TestMetersViewShowsEngine(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.Pull()
	capture(w.win)
	v := w.lvl
	text := v.Text()
	for _, want := range []string{
		"M −18.2 LUFS  max −16.0", "S −19.4 LUFS  max −18.3", "I −20.1 LUFS  LRA 4.5 LU",
		"1:05 since reset", "L  TP max −0.4  RMS −24.3", "R  TP max −3.4  RMS −27.3",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("meters text lacks %q:\n%s", want, text)
		}
	}
	img := v.Image()
	pal := view.ColorsFor(true)
	m := fakeMeters(2)
	for c := range 2 {
		peak, rms := v.Bars(c)
		if peak.Dx() < 4 || peak.Dy() < 100 {
			t.Fatalf("channel %d: peak column %v too small", c, peak)
		}
		ch := m.Ch[c]
		x := (peak.Min.X + peak.Max.X) / 2
		at := func(db float64) color.RGBA { return img.RGBAAt(x, v.LevelY(db)) }
		if got := at(ch.SamplePeak - 1); got != pal.Traces[2] {
			t.Errorf("channel %d: 1 dB under the sample peak %v, want the green bar %v", c, got, pal.Traces[2])
		}
		if got := at((ch.SamplePeak + ch.TruePeak) / 2); got == pal.Traces[2] || got == pal.PlotBg {
			t.Errorf("channel %d: between sample and true peak %v, want the lighter true-peak part", c, got)
		}
		if got := at(ch.TruePeak + 1.5); got != pal.PlotBg && got != pal.Grid {
			t.Errorf("channel %d: 1.5 dB over the true peak %v, want the empty column", c, got)
		}
		if got := at(ch.TruePeakHold); got != pal.Hold {
			t.Errorf("channel %d: at the true-peak hold %v, want its marker %v", c, got, pal.Hold)
		}
		xr := (rms.Min.X + rms.Max.X) / 2
		if got := img.RGBAAt(xr, v.LevelY(ch.RMS-1)); got != pal.Traces[2] {
			t.Errorf("channel %d: RMS bar under its level %v", c, got)
		}
		if got := img.RGBAAt(xr, v.LevelY(ch.RMS+1.5)); got != pal.PlotBg && got != pal.Grid {
			t.Errorf("channel %d: RMS bar over its level %v", c, got)
		}
	}
	w.typedRune('r')
	if e.meterResets != 1 {
		t.Errorf("R: %d meter resets, want 1", e.meterResets)
	}
}
