package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// keyHelp lists the keyboard shortcuts (shown by the Keys… button).
const keyHelp = `Space	pause / resume the display
G	GPU ↔ CPU engine
F	frequency scale: log → lin → mel
M	colormap
A	averaging: off → exponential → linear → long-term
H	peak hold on / off
R	reset averages, holds and the meters (maxima, loudness)
V	waterfall ↔ RTA bars
S	store the spectrum shown as a reference
D	harmonic markers and distortion readout on / off
T	dark ↔ light theme
[ ]	FFT size down / up
↑ ↓	dB range up / down by 10 dB
+ −	zoom the file view in / out
← →	pan the file view
0	whole file
Ctrl+O	open a file
Ctrl+S	export the view as PNG
Ctrl+E	export the spectrum (CSV/NPY)
Ctrl+Shift+S	export the live history (NPY/CSV/PNG)
Ctrl+Shift+R	record every frame at full resolution / stop`

func (w *Window) installKeys() {
	c := w.win.Canvas()
	c.SetOnTypedKey(func(e *fyne.KeyEvent) { w.typedKey(e.Name) })
	c.SetOnTypedRune(w.typedRune)
	for k, fn := range map[fyne.KeyName]func(){
		fyne.KeyO: w.openDialog, fyne.KeyS: w.exportPNGDialog, fyne.KeyE: w.exportSpectrumDialog,
	} {
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}, func(fyne.Shortcut) { fn() })
	}
	for k, fn := range map[fyne.KeyName]func(){fyne.KeyS: w.rec.ExportDialog, fyne.KeyR: w.rec.Toggle} {
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}, func(fyne.Shortcut) { fn() })
	}
}

// typedKey handles the named keys (when no entry has the focus). Space is
// handled here only: the driver delivers it twice, as the key and as the
// typed rune ' ', and TypedRune ignores the rune, so one press toggles
// the pause once.
func (w *Window) typedKey(k fyne.KeyName) {
	switch k {
	case fyne.KeySpace:
		w.togglePause()
	case fyne.KeyUp:
		w.change(func(s *Settings) { s.shiftDB(10) })
	case fyne.KeyDown:
		w.change(func(s *Settings) { s.shiftDB(-10) })
	case fyne.KeyLeft:
		w.fview.Pan(-0.1)
	case fyne.KeyRight:
		w.fview.Pan(0.1)
	}
}

// typedRune handles the letter shortcuts.
func (w *Window) typedRune(r rune) {
	switch r {
	case 'g', 'G':
		w.toggleEngine()
	case 'f', 'F':
		w.change(func(s *Settings) { s.FreqScale = next([]plot.Scale{plot.Log, plot.Lin, plot.Mel}, s.FreqScale) })
	case 'm', 'M':
		w.change(func(s *Settings) { s.Colormap = next(plot.Colormaps, s.Colormap) })
	case 'a', 'A':
		w.change(func(s *Settings) { s.Averaging = next(view.AvgModes, s.Averaging) })
	case 'h', 'H':
		w.change(func(s *Settings) {
			if s.PeakHold != 0 {
				s.PeakHold = 0
			} else {
				s.PeakHold = 2
			}
		})
	case 'r', 'R':
		w.resetHolds()
	case 'v', 'V':
		w.change(func(s *Settings) { s.Lower = next([]string{"waterfall", "rta"}, s.Lower) })
	case 's', 'S':
		w.rp.StoreDialog()
	case 'd', 'D':
		w.harmonics(!w.harm.On())
	case 't', 'T':
		w.change(func(s *Settings) { s.Theme = next([]string{"dark", "light"}, s.Theme) })
	case '[':
		w.change(func(s *Settings) { s.FFT = max(64, s.FFT/2) })
	case ']':
		w.change(func(s *Settings) { s.FFT = min(engine.MaxFFT, s.FFT*2) })
	case '+', '=':
		t0, t1 := w.fview.View()
		w.fview.Zoom(0.5, (t0+t1)/2)
	case '-':
		t0, t1 := w.fview.View()
		w.fview.Zoom(2, (t0+t1)/2)
	case '0':
		w.fp.ZoomReset()
	}
}

// next is the option after cur (the first if cur is not there).
func next[T comparable](opts []T, cur T) T {
	for i, o := range opts {
		if o == cur {
			return opts[(i+1)%len(opts)]
		}
	}
	return opts[0]
}
