package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/audio"
)

// TestSidePanelFitsAt800: at 1280×800 the side panel's sections as they
// open at start (engine, source, analysis; the others closed) fit without
// scrolling, and every control is in a section a click opens.
func TestSidePanelFitsAt800(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.win.Canvas().Capture() // laid out
	var side *container.Scroll
	walk(w.win.Content(), nil, func(o fyne.CanvasObject, _ *fyne.Container) {
		if s, ok := o.(*container.Scroll); ok && side == nil {
			side = s
		}
	})
	if side == nil {
		t.Fatal("no side panel")
	}
	if need, have := side.Content.MinSize().Height, side.Size().Height; need > have {
		t.Errorf("the side panel needs %.0f of %.0f units at 1280×800", need, have)
	}
	var open []string
	for _, it := range w.c.sections.Items {
		if it.Open {
			open = append(open, it.Title)
		}
	}
	if len(open) != 3 || open[0] != "Engine" || open[1] != "Source" || open[2] != "Analysis" {
		t.Errorf("open at start: %v", open)
	}
	// every control of the panel is in a section
	in := map[fyne.CanvasObject]bool{}
	for _, it := range w.c.sections.Items {
		walk(it.Detail, nil, func(o fyne.CanvasObject, _ *fyne.Container) { in[o] = true })
	}
	c := w.c
	for name, o := range map[string]fyne.CanvasObject{"source": c.source, "generator": c.gen, "rate": c.rate, "channels": c.chans,
		"FFT": c.fft, "overlap": c.overlap, "window": c.window, "average": c.avg, "hold": c.hold, "band": c.band, "band entry": c.bandEntry,
		"monitor": c.monitor, "frequency": c.scale, "dB top": c.dbTop, "dB floor": c.dbFloor, "show": c.chanShown, "below": c.lower,
		"colormap": c.cmap, "span": c.span, "fraction": c.fraction, "weighting": c.weighting, "engine": c.engine, "theme": c.theme,
		"pause": c.pause, "stress": c.stress, "difference": diffPicker(t, w), "harmonics": harmonicsCheck(t, w)} {
		if !in[o] {
			t.Errorf("the %s control is in no section", name)
		}
	}
	units := sideWidgets(w, func(b *widget.Button) bool { return b.Text == "Calibrate…" })
	if len(units) != 1 || !in[units[0]] {
		t.Error("Calibrate… is in no section")
	}
}

// TestRatesFollowTheDevice: the Rate select offers the standard rates the
// input device takes (the fake's: 44.1, 48, 96 and 384 kHz), every
// standard rate for the generator, and choosing one sets the source's
// rate.
func TestRatesFollowTheDevice(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.c.source.SetSelected(srcDefault)
	settle(t, w)
	device := []string{"Default", "44100", "48000", "96000", "384000"}
	waitFor(t, func() bool { return slices.Equal(w.c.rate.Options, device) })
	w.c.rate.SetSelected("384000")
	if w.set.Source.Rate != 384000 {
		t.Fatalf("source rate %d after choosing 384000", w.set.Source.Rate)
	}
	w.c.source.SetSelected(srcGenerator)
	waitFor(t, func() bool { return slices.Contains(w.c.rate.Options, "768000") })
	if got := w.c.rate.Options; len(got) != 1+len(audio.StandardRates) || got[1] != "8000" {
		t.Fatalf("the generator's rates: %q", got)
	}
}
