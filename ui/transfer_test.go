package ui

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/view"
)

// TestTransferTab: showing the Transfer tab pauses the spectrum
// analysis, shows the Transfer panel instead of the controls, starts the
// transfer analyzer with the panel's settings (every channel but the
// reference measured) and draws its result: the channel's colour in the
// magnitude pane and the delay in the readout. Its keys act there only;
// leaving the tab stops the analyzer and brings the controls back.
func TestTransferTab(t *testing.T) {
	e := newFakeEngine()
	e.ch = 4
	w, _ := newTestWindow(t, e)
	w.statusDue = w.now().Add(-1)
	w.Pull() // the stats: 4 channels
	w.tabs.Select(w.xferTab)
	if !e.paused || w.liveSide.Visible() || !w.xferSide.Visible() {
		t.Fatalf("transfer tab: paused %v, controls shown %v, transfer panel shown %v", e.paused, w.liveSide.Visible(), w.xferSide.Visible())
	}
	waitFor(t, func() bool { _, on := e.lastTransfer(); return on })
	s, _ := e.lastTransfer()
	if s.RefChannel != 0 || len(s.Channels) != 3 || s.FFT != 65536 || s.Hop != 16384 {
		t.Fatalf("started with %+v", s)
	}
	w.Pull()
	w.win.Canvas().Capture()
	v := w.tp.View()
	if got := v.Readout(); !strings.HasPrefix(got, "ch 2: delay not found yet") {
		t.Errorf("readout before Find %q", got)
	}
	if !hasColor(v.Image(), view.TransferColor(0)) || !hasColor(v.Image(), view.TransferColor(2)) {
		t.Error("the measurement channels' colours are not drawn")
	}

	// F finds, T turns tracking on (a restart); in the Live tab T is the theme again
	n := len(e.xfer)
	w.transferKeyRune('t')
	waitFor(t, func() bool { s, _ := e.lastTransfer(); return s.Track })
	if len(e.xfer) != n+1 {
		t.Errorf("T: %d starts, want %d", len(e.xfer), n+1)
	}
	w.transferKeyRune('f')
	waitFor(t, func() bool { return len(w.tp.Found()) == 3 })
	w.Pull()
	if got := v.Readout(); !strings.HasPrefix(got, "ch 2: delay 2.500 ms · 120.0 samples · 0.858 m · polarity +") {
		t.Errorf("readout after Find %q", got)
	}

	w.tabs.Select(w.liveTab)
	waitFor(t, func() bool { _, on := e.lastTransfer(); return !on })
	if e.paused || !w.liveSide.Visible() || w.xferSide.Visible() {
		t.Fatalf("live tab: paused %v, controls shown %v", e.paused, w.liveSide.Visible())
	}
	theme := w.set.Theme
	w.transferKeyRune('t')
	if w.set.Theme == theme {
		t.Error("T in the Live tab did not switch the theme")
	}
}

// TestTransferStressNotSaved: the Transfer tab's stress preset switches
// the source to 192 kHz × 17 of the generator, and closing the window
// with it on keeps the source before it in the preferences.
func TestTransferStressNotSaved(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	before := w.set.Source
	w.tabs.Select(w.xferTab)
	w.tp.ToggleStress()
	waitFor(t, func() bool { return e.Source().Rate == 192000 })
	if src := e.Source(); src.Rate != 192000 || src.Channels != 17 || src.Kind != session.SourceGenerator {
		t.Fatalf("stress source %+v", src)
	}
	w.Close()
	if got := LoadSettings(a.Preferences()).Source; got != before {
		t.Fatalf("saved source %+v, want %+v", got, before)
	}
}

// transferKeyRune types r as the window's rune handler gets it.
func (w *Window) transferKeyRune(r rune) {
	if !w.transferKey(r) {
		w.typedRune(r)
	}
}

// hasColor says whether img has a pixel of colour c.
func hasColor(img *image.RGBA, c color.RGBA) bool {
	if img == nil {
		return false
	}
	for i := 0; i+3 < len(img.Pix); i += 4 {
		if img.Pix[i] == c.R && img.Pix[i+1] == c.G && img.Pix[i+2] == c.B {
			return true
		}
	}
	return false
}
