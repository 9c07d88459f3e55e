package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// keyRow is one row of the keys overlay: the key as printed, what it
// does and the workspace it acts in.
type keyRow struct {
	key, action, workspace string
}

// keyTable is keyRows as the keys overlay takes them.
func keyTable() []panel.KeyRow {
	t := make([]panel.KeyRow, len(keyRows))
	for i, r := range keyRows {
		t[i] = panel.KeyRow{Key: r.key, Action: r.action, Workspace: r.workspace}
	}
	return t
}

// The workspaces a key acts in, in the overlay's order.
const (
	keysEverywhere = "Everywhere"
	keysLive       = "Live"
	keysFile       = "File"
)

// keyRows is the one table of the window's keys: the overlay (? or the
// Keys… button) and the help text are made from it when shown, so a key
// that is handled and not listed fails TestEveryKeyListed. Another
// workspace adds its rows, under its name, from its own file:
//
//	func init() { keyRows = append(keyRows, keyRow{"X", "does", "Transfer"}) }
//
// Plain text only: arrows and ↔ are drawn as emoji by some fonts.
var keyRows = []keyRow{
	{"?", "this list of keys", keysEverywhere},
	{"Ctrl+O", "open a file", keysEverywhere},
	{"Ctrl+S", "export the view as PNG", keysEverywhere},
	{"Ctrl+E", "export the spectrum (CSV/NPY)", keysEverywhere},
	{"S", "store the spectrum shown as a reference", keysEverywhere},
	{"D", "harmonic markers and distortion readout on / off", keysEverywhere},
	{"T", "dark / light theme", keysEverywhere},
	{"Up Down", "dB range up / down by 10 dB", keysEverywhere},
	{"Space", "pause / resume the display", keysLive},
	{"G", "GPU / CPU engine", keysLive},
	{"F", "frequency scale: log, lin, mel, note", keysLive},
	{"Q", "analysis mode: STFT, multi-res, VQT, reassigned", keysLive},
	{"M", "colormap", keysLive},
	{"A", "averaging: off → exponential → linear → long-term", keysLive},
	{"H", "peak hold on / off", keysLive},
	{"R", "reset averages, holds and the meters (maxima, loudness)", keysLive},
	{"V", "waterfall / RTA bars / scope / pitch trace", keysLive},
	{"[ ]", "FFT size down / up", keysLive},
	{"Ctrl+Shift+S", "export the live history (NPY/CSV/PNG)", keysLive},
	{"Ctrl+Shift+R", "record every frame at full resolution / stop", keysLive},
	{"+ -", "zoom in / out", keysFile},
	{"Left Right", "pan", keysFile},
	{"0", "whole file", keysFile},
	{"W", "level-history strip on / off", keysLive},
	{"B", "bandwidth line on / off", keysFile},
}

func init() { // the File tab's playback and selection keys
	for _, k := range panel.FilePlayKeys {
		keyRows = append(keyRows, keyRow{k.Key, k.Help, keysFile})
	}
}

// keyHelp is the keys table as text (panel.KeyHelp).
func keyHelp() string { return panel.KeyHelp(keyTable()) }

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
	releaseSelects(c, c.Content())
}

// releaseSelects makes every dropdown under o give the keyboard focus
// back to the window once a choice is made: a select keeps the focus it
// takes when tapped, and while it has it Space re-opens it and the
// letter keys go nowhere. (A choice of the option already selected
// changes nothing, so no OnChanged: releaseSelectFocus, on every tick,
// covers it.) Only a dropdown still focused after its choice lets go:
// one whose choice focuses something else (Custom… the band entry)
// keeps that.
func releaseSelects(c fyne.Canvas, o fyne.CanvasObject) {
	switch o := o.(type) {
	case *widget.Select:
		changed := o.OnChanged
		o.OnChanged = func(v string) {
			if changed != nil {
				changed(v)
			}
			if c.Focused() == o {
				c.Unfocus()
			}
		}
	case *container.Scroll:
		releaseSelects(c, o.Content)
	case *container.Split:
		releaseSelects(c, o.Leading)
		releaseSelects(c, o.Trailing)
	case *container.AppTabs:
		for _, t := range o.Items {
			releaseSelects(c, t.Content)
		}
	case *widget.Accordion:
		for _, it := range o.Items {
			releaseSelects(c, it.Detail)
		}
	case *fyne.Container:
		for _, ch := range o.Objects {
			releaseSelects(c, ch)
		}
	}
}

// releaseSelectFocus gives the focus back to the window when a dropdown
// has it after a list (a dropdown's, or any overlay) was shown and is
// gone: chosen, dismissed, or the same option chosen again. A dropdown
// focused by Tab, no list shown since, keeps the focus. (While an
// overlay shows, the canvas reports the overlay's focus, not the
// window's, so the overlay is what is watched.) Called on every tick.
func (w *Window) releaseSelectFocus() {
	c := w.win.Canvas()
	if c.Overlays().Top() != nil {
		w.overlaySeen = true
		return
	}
	if w.overlaySeen {
		w.overlaySeen = false
		if _, ok := c.Focused().(*widget.Select); ok {
			c.Unfocus()
		}
	}
}

// typedKey handles the named keys (when no entry has the focus). Space is
// handled here only: the driver delivers it twice, as the key and as the
// typed rune ' ', and TypedRune ignores the rune, so one press toggles
// the pause once.
func (w *Window) typedKey(k fyne.KeyName) {
	if w.tabs.Selected() == w.fileTab && w.play.Key(k, 0) || w.arc.Key(k, 0) {
		return // the File tab's playback keys (panel.FilePlayKeys), the Archive tab's (panel.ArchiveKeys)
	}
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
	if w.tabs.Selected() == w.fileTab && w.play.Key("", r) || w.arc.Key("", r) {
		return
	}
	switch r {
	case 'g', 'G':
		w.toggleEngine()
	case 'q', 'Q':
		w.change(func(s *Settings) { s.Mode.Mode = panel.NextMode(s.Mode.Mode) })
	case 'f', 'F':
		w.change(func(s *Settings) { s.FreqScale = next(view.ScaleCycle, s.FreqScale) })
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
		w.change(func(s *Settings) { s.Lower = next(panel.LowerViews, s.Lower) })
	case 'o', 'O':
		w.sp.ScopeKey(w.tabs.Selected() == w.fileTab, w.fview, w.note.Fail)
	case 'p', 'P':
		w.sp.ToggleFilePitch(w.tabs.Selected() == w.fileTab, w.fview, w.note.Fail)
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
	case 'w', 'W':
		w.lh.Toggle()
	case 'b', 'B':
		w.fp.Bandwidth.Toggle()
	case '?':
		panel.ShowKeys(w.win, keyTable())
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
