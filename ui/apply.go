package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/view"
)

// change applies fn to the settings, saves them, and applies what changed.
func (w *Window) change(fn func(s *Settings)) {
	prev := w.set
	fn(&w.set)
	w.set.Save(w.app.Preferences())
	if w.set.Engine != prev.Engine {
		w.ap.UseEngine(w.set.Engine)
	}
	if w.set.Source != prev.Source {
		w.setSource(w.set.Source)
	}
	if w.monitorOn && w.set.Band != prev.Band {
		w.setMonitorOutput(true)
	}
	pl, _ := prev.Live()
	nl, err := w.set.Live()
	if err != nil {
		w.notice = err.Error()
	} else if !sameLive(pl, nl) || w.set.Mode != prev.Mode {
		w.applyAnalysis()
	}
	if w.set.Theme != prev.Theme {
		w.applyTheme()
	}
	w.applyDisplay()
	w.syncControls()
	w.win.Canvas().Unfocus()
}

func sameLive(a, b live.Settings) bool {
	return a.FFT == b.FFT && a.Hop == b.Hop && a.Window == b.Window && a.AvgTau == b.AvgTau && a.AvgFrames == b.AvgFrames &&
		a.PeakHold == b.PeakHold && a.PeakDecay == b.PeakDecay && a.History == b.History && a.Band == b.Band &&
		a.Fraction == b.Fraction && a.Weighting == b.Weighting
}

// applyAnalysis sends the analysis settings to the engine.
func (w *Window) applyAnalysis() {
	l, err := w.set.Live()
	if err != nil {
		w.notice = err.Error()
		return
	}
	w.ap.Apply(l)
	w.eng.SetMode(w.set.Mode.Live(l))
}

// resetHolds restarts the averages and holds (the analysis settings sent
// again) and the level meters' holds, maxima and loudness.
func (w *Window) resetHolds() {
	w.applyAnalysis()
	w.eng.ResetMeters()
}

// applyDisplay pushes the display settings into the views.
func (w *Window) applyDisplay() {
	s := w.set
	dark := s.Theme == "dark"
	rate := w.cfg[0]
	if rate == 0 {
		rate = 48000
	}
	fft := w.cfg[2]
	if fft == 0 {
		fft = s.FFT
	}
	for _, v := range []*view.SpectrumView{w.spec, w.fspec} {
		v.SetRange(s.DBMin, s.DBMax)
		v.SetDark(dark)
	}
	w.spec.SetConfig(rate, fft, s.FreqScale)
	w.spec.SetTraces(s.Averaging, s.PeakHold != 0)
	w.applyPlotView() // settings_view.go
	if fs := w.fview.File(); fs != nil {
		w.fspec.SetConfig(fs.Rate, fs.FFT, s.FreqScale)
	}
	w.wf.SetRange(s.DBMin, s.DBMax)
	w.wf.SetColormap(s.Colormap)
	w.wf.SetDark(dark)
	if w.wf.Span() != s.Span {
		w.wf.SetSpan(s.Span)
	}
	if w.wf.Scale() != s.FreqScale && w.cfg[0] > 0 {
		w.wf.SetConfig(w.cfg[0], w.cfg[2], w.cfg[3], s.FreqScale)
	}
	w.rta.SetRange(s.DBMin, s.DBMax)
	w.rta.SetBands(s.Fraction, s.Weighting)
	w.rta.SetDark(dark)
	w.lvl.SetDark(dark)
	w.lh.SetDark(dark)
	w.applyCal()
	w.fview.SetRange(s.DBMin, s.DBMax)
	w.fview.SetColormap(s.Colormap)
	w.fview.SetScale(s.FreqScale)
	w.fview.SetDark(dark)
	w.sp.ShowLower(s.Lower, dark, w.wf, w.rta)
	w.markBand()
	w.applyMeasureDisplay(s.FreqScale, dark)
	for _, o := range []fyne.Widget{w.spec, w.wf, w.rta, w.lvl, w.fview, w.fspec} {
		o.Refresh()
	}
}

// markBand marks the band filter's pass (or stop) band on the spectra.
func (w *Window) markBand() {
	rate := w.cfg[0]
	if rate == 0 {
		rate = 48000
	}
	lo, hi := 0.0, 0.0
	if b := w.set.Band; !b.IsZero() {
		if err := b.Check(rate); err == nil {
			switch b.Kind {
			case dsp.Lowpass:
				lo, hi = 0, b.Hi
			case dsp.Highpass:
				lo, hi = b.Lo, float64(rate)/2
			default:
				lo, hi = b.Lo, b.Hi
			}
		}
	}
	w.spec.SetBand(lo, hi)
	w.fspec.SetBand(lo, hi)
}

// setSource switches the source on a goroutine (it blocks until the
// engine goroutine has switched) and reports the outcome.
func (w *Window) setSource(spec session.SourceSpec) {
	w.notice = "switching to " + spec.String() + "…"
	go func() {
		notice, err := w.eng.SetSource(spec)
		w.do(func() {
			switch {
			case err != nil:
				w.notice = err.Error()
				w.set.Source = w.eng.Source()
				w.syncControls()
				w.note.Error(err)
			case notice != "":
				w.notice = notice
				w.set.Source = w.eng.Source()
				w.syncControls()
			default:
				w.notice = ""
			}
			w.set.Save(w.app.Preferences())
		})
	}()
}

// setMonitorOutput turns the monitor output on or off with the current
// band, on a goroutine (opening the device blocks).
func (w *Window) setMonitorOutput(on bool) {
	w.monitorOn = on
	band := w.set.Band
	go func() {
		err := w.eng.SetPlaythrough(on, band)
		w.do(func() {
			if err != nil {
				w.monitorOn = false
				w.c.setMonitor(false)
				w.note.Error(err)
			}
			w.updateStatus()
		})
	}()
}

// togglePause freezes or resumes the display (the analysis carries on).
func (w *Window) togglePause() {
	w.paused = !w.paused
	w.c.showPaused(w.paused)
	w.updateStatus()
}

func pauseText(paused bool) string {
	if paused {
		return "Resume (Space)"
	}
	return "Pause (Space)"
}

// toggleEngine switches GPU ↔ CPU.
func (w *Window) toggleEngine() {
	if !w.eng.HasGPU() {
		w.notice = "no GPU engine: OpenCL is not usable here"
		w.updateStatus()
		return
	}
	w.change(func(s *Settings) {
		if s.Engine == "gpu" {
			s.Engine = "cpu"
		} else {
			s.Engine = "gpu"
		}
	})
}

// syncControls shows the settings in the panels without re-applying
// them.
func (w *Window) syncControls() {
	if w.c == nil {
		return
	}
	w.c.sync()
	w.cal.Sync()
}

// settings are the current settings (controlsHost).
func (w *Window) settings() Settings { return w.set }

// runningEngine is the engine that actually runs, after any fallback:
// "gpu", "cpu", or "" before the first stats (controlsHost).
func (w *Window) runningEngine() string {
	switch w.stats.Engine {
	case "":
		return ""
	case "cpu":
		return "cpu"
	}
	return "gpu"
}

// rate is the analysis's sample rate (48000 before the first stats).
func (w *Window) rate() int {
	if w.cfg[0] > 0 {
		return w.cfg[0]
	}
	return 48000
}

// applyTheme sets the light or dark variant of Fyne's theme and the plots'
// palette.
func (w *Window) applyTheme() {
	v := theme.VariantDark
	if w.set.Theme == "light" {
		v = theme.VariantLight
	}
	w.app.Settings().SetTheme(&variantTheme{Theme: theme.DefaultTheme(), variant: v})
}

// variantTheme is Fyne's default theme held to one variant.
type variantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (t *variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant)
}
