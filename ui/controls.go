package ui

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// controls are the side panel's widgets, kept so keyboard shortcuts and
// fallbacks can show their effect there too.
type controls struct {
	syncing                                     bool
	source, rate, chans                         *widget.Select
	gen                                         *widget.Entry
	fft, overlap, window, avg, hold             *widget.Select
	scale, dbTop, dbFloor, cmap, span           *widget.Select
	lower, fraction, weighting, band, chanShown *widget.Select
	bandEntry                                   *widget.Entry
	engine, theme                               *widget.RadioGroup
	pause                                       *widget.Button
	monitor                                     *widget.Check
	harmonics                                   *widget.Check // harmonics.go
}

// option lists (label ↔ value)
var (
	// the analyses' own limit (2^20 points, 0.046 Hz bins at 48 kHz). Above
	// 16384 bins the waterfall stores its columns max-pooled
	// (view.MaxStoredBins) and the history keeps fewer columns
	// (live.historyBytes), so no view's memory grows with the size beyond
	// one spectrum per trace; the views read only the traces they draw
	// (live.Spectrum.Want), a waterfall at most its pullBins bins per tick,
	// and slow pulls give way to the window's drawing (pullShare).
	fftSizes    = powersOfTwo(analysis.MinFFT, analysis.MaxFFT)
	overlaps    = []string{"0 %", "50 %", "75 %", "87.5 %", "93.75 %"}
	overlapVals = []float64{0, 0.5, 0.75, 0.875, 0.9375}
	averagings  = []string{"Off", "Exponential 0.25 s", "Exponential 1 s", "Exponential 4 s", "Linear 8 frames", "Linear 32 frames", "Long-term (since reset)"}
	holds       = []string{"Off", "2 s", "10 s", "Infinite"}
	holdVals    = []float64{0, 2, 10, -1}
	dbTops      = []string{"+10", "0", "-10", "-20", "-40"}
	dbFloors    = []string{"-40", "-60", "-80", "-100", "-120", "-140", "-160"}
	spans       = []string{"5 s", "10 s", "30 s", "60 s"}
	spanVals    = []float64{5, 10, 30, 60}
	fractions   = []string{"1/1", "1/3", "1/6", "1/12", "1/24", "1/48"}
	bandPresets = []string{"None", "speech", "lowpass:1000", "highpass:100", "bandpass:500-2000", "bandstop:1000-4000", "octave:1000", "third:1000", "Custom…"}
	rates       = []string{"Device default", "44100", "48000", "96000"}
	chanOpts    = []string{"Device default", "1", "2"}
)

const (
	srcDefault   = "Default input"
	srcGenerator = "Signal generator"
	srcFile      = "File, in real time…"
)

func (w *Window) buildControls() fyne.CanvasObject {
	c := &w.c
	set := func(fn func(s *Settings)) {
		if !c.syncing {
			w.change(fn)
		}
	}
	c.source = widget.NewSelect(nil, func(v string) {
		if c.syncing {
			return
		}
		switch v {
		case srcGenerator:
			spec := c.gen.Text
			if spec == "" {
				spec = live.DefaultGenerator
			}
			set(func(s *Settings) {
				s.Source = live.SourceSpec{Kind: live.SourceGenerator, Generator: spec, Rate: s.Source.Rate, Channels: s.Source.Channels}
			})
		case srcFile:
			w.pickSourceFile()
		case srcDefault:
			set(func(s *Settings) {
				s.Source = live.SourceSpec{Kind: live.SourceDevice, Rate: s.Source.Rate, Channels: s.Source.Channels}
			})
		default:
			set(func(s *Settings) {
				s.Source = live.SourceSpec{Kind: live.SourceDevice, Device: v, Rate: s.Source.Rate, Channels: s.Source.Channels}
			})
		}
	})
	w.refreshSources()
	c.gen = widget.NewEntry()
	c.gen.SetPlaceHolder(live.DefaultGenerator)
	c.gen.Validator = func(s string) error {
		_, err := live.ParseGeneratorSpec(s)
		return err
	}
	c.gen.OnSubmitted = func(v string) {
		if _, err := live.ParseGeneratorSpec(v); err != nil {
			dialog.ShowError(err, w.win)
			return
		}
		set(func(s *Settings) {
			s.Source = live.SourceSpec{Kind: live.SourceGenerator, Generator: v, Rate: s.Source.Rate, Channels: s.Source.Channels}
		})
	}
	c.rate = widget.NewSelect(rates, func(v string) {
		r, _ := strconv.Atoi(v)
		set(func(s *Settings) { s.Source.Rate = r })
	})
	c.chans = widget.NewSelect(chanOpts, func(v string) {
		n, _ := strconv.Atoi(v)
		set(func(s *Settings) { s.Source.Channels = n })
	})
	c.fft = widget.NewSelect(fftSizes, func(v string) {
		n, _ := strconv.Atoi(v)
		set(func(s *Settings) { s.FFT = n })
	})
	c.overlap = widget.NewSelect(overlaps, func(v string) {
		set(func(s *Settings) { s.Overlap = overlapVals[indexOf(overlaps, v)] })
	})
	c.window = widget.NewSelect(live.WindowNames(), func(v string) { set(func(s *Settings) { s.Window = v }) })
	c.avg = widget.NewSelect(averagings, func(v string) {
		set(func(s *Settings) {
			switch indexOf(averagings, v) {
			case 0:
				s.Averaging = view.AvgOff
			case 1, 2, 3:
				s.Averaging, s.AvgSeconds = view.AvgExp, []float64{0.25, 1, 4}[indexOf(averagings, v)-1]
			case 4, 5:
				s.Averaging, s.AvgFrames = view.AvgLin, []int{8, 32}[indexOf(averagings, v)-4]
			case 6:
				s.Averaging = view.AvgLong
			}
		})
	})
	c.hold = widget.NewSelect(holds, func(v string) {
		set(func(s *Settings) { s.PeakHold = holdVals[indexOf(holds, v)] })
	})
	reset := widget.NewButton("Reset averages, holds, meters (R)", w.resetHolds)
	c.scale = widget.NewSelect([]string{"log", "lin", "mel"}, func(v string) { set(func(s *Settings) { s.FreqScale = v }) })
	c.dbTop = widget.NewSelect(dbTops, func(v string) {
		f, _ := strconv.ParseFloat(v, 64)
		set(func(s *Settings) {
			if f > s.DBMin {
				s.DBMax = f
			}
		})
	})
	c.dbFloor = widget.NewSelect(dbFloors, func(v string) {
		f, _ := strconv.ParseFloat(v, 64)
		set(func(s *Settings) {
			if f < s.DBMax {
				s.DBMin = f
			}
		})
	})
	c.cmap = widget.NewSelect(plot.ColormapNames(), func(v string) { set(func(s *Settings) { s.Colormap = v }) })
	c.span = widget.NewSelect(spans, func(v string) { set(func(s *Settings) { s.Span = spanVals[indexOf(spans, v)] }) })
	c.lower = widget.NewSelect([]string{"Waterfall", "RTA bars"}, func(v string) {
		set(func(s *Settings) {
			s.Lower = "waterfall"
			if v == "RTA bars" {
				s.Lower = "rta"
			}
		})
	})
	c.fraction = widget.NewSelect(fractions, func(v string) {
		n, _ := strconv.Atoi(strings.TrimPrefix(v, "1/"))
		set(func(s *Settings) { s.Fraction = n })
	})
	c.weighting = widget.NewSelect([]string{"A", "C", "Z"}, func(v string) { set(func(s *Settings) { s.Weighting = v }) })
	c.bandEntry = widget.NewEntry()
	c.bandEntry.SetPlaceHolder("bandpass:300-3400")
	c.bandEntry.Validator = func(v string) error {
		if v == "" {
			return nil
		}
		_, err := view.ParseBand(v, w.rate())
		return err
	}
	c.bandEntry.OnSubmitted = func(v string) {
		if _, err := view.ParseBand(v, w.rate()); err != nil && v != "" {
			dialog.ShowError(err, w.win)
			return
		}
		set(func(s *Settings) { s.Band = v })
	}
	c.band = widget.NewSelect(bandPresets, func(v string) {
		switch v {
		case "None":
			set(func(s *Settings) { s.Band = "" })
		case "Custom…":
			w.win.Canvas().Focus(c.bandEntry)
		default:
			set(func(s *Settings) { s.Band = v })
		}
	})
	c.monitor = widget.NewCheck("Play it (monitor output)", func(on bool) {
		if !c.syncing {
			w.setMonitorOutput(on)
			w.win.Canvas().Unfocus()
		}
	})
	c.chanShown = widget.NewSelect([]string{"Mix", "All channels"}, func(v string) {
		set(func(s *Settings) {
			s.Channels = "mix"
			if v == "All channels" {
				s.Channels = "all"
			}
		})
	})
	c.engine = widget.NewRadioGroup([]string{"GPU", "CPU"}, func(v string) {
		set(func(s *Settings) { s.Engine = strings.ToLower(v) })
	})
	c.engine.Horizontal = true
	c.engine.Required = true
	if !w.eng.HasGPU() {
		c.engine.Disable()
	}
	c.theme = widget.NewRadioGroup([]string{"Dark", "Light"}, func(v string) {
		set(func(s *Settings) { s.Theme = strings.ToLower(v) })
	})
	c.theme.Horizontal = true
	c.theme.Required = true
	c.pause = widget.NewButton(pauseText(false), w.togglePause)
	stress := widget.NewButton("Stress test (192 kHz × 8, N=65536, hop 16)", w.stress)
	keys := widget.NewButton("Keys…", func() {
		dialog.ShowCustom("Keyboard shortcuts", "Close", widget.NewLabel(strings.ReplaceAll(keyHelp, "\t", "    ")), w.win)
	})
	w.syncControls()

	section := func(title string) fyne.CanvasObject {
		l := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		return l
	}
	row := func(label string, o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewBorder(nil, nil, widget.NewLabel(label), nil, o)
	}
	return container.NewVBox(
		section("Engine"),
		c.engine,
		c.pause,
		stress,
		section("Source"),
		c.source,
		row("Generator", c.gen),
		row("Rate", c.rate),
		row("Channels", c.chans),
		section("Analysis"),
		row("FFT", c.fft),
		row("Overlap", c.overlap),
		row("Window", c.window),
		row("Average", c.avg),
		row("Peak hold", c.hold),
		reset,
		section("Band filter"),
		c.band,
		c.bandEntry,
		c.monitor,
		w.buildCalControls(),
		section("Display"),
		row("Frequency", c.scale),
		row("dB top", c.dbTop),
		row("dB floor", c.dbFloor),
		row("Show", c.chanShown),
		row("Below", c.lower),
		row("Colormap", c.cmap),
		row("Waterfall", c.span),
		row("RTA", container.NewGridWithColumns(2, c.fraction, c.weighting)),
		row("Theme", c.theme),
		section("References and distortion"),
		w.buildRefControls(),
		container.NewGridWithColumns(2,
			widget.NewButton("Export PNG", w.exportPNGDialog),
			widget.NewButton("Export spectrum", w.exportSpectrumDialog)),
		keys,
	)
}

// rate is the analysis's sample rate (48000 before the first stats).
func (w *Window) rate() int {
	if w.cfg[0] > 0 {
		return w.cfg[0]
	}
	return 48000
}

// refreshSources fills the source list: the default input, each input
// device, the generator and a file.
func (w *Window) refreshSources() {
	opts := []string{srcDefault}
	devs, err := w.eng.InputDevices()
	if err == nil {
		opts = append(opts, devs...)
	}
	w.c.source.SetOptions(append(opts, srcGenerator, srcFile))
}

func (w *Window) pickSourceFile() {
	w.showOpenDialog("Play a file in real time", w.playFile)
}

// playFile makes the file at path the live source, played in real time
// and heard: the monitor output comes on with it (the check box turns it
// off again).
func (w *Window) playFile(path string) {
	w.rememberFolder(filepath.Dir(path))
	w.change(func(s *Settings) { s.Source = live.SourceSpec{Kind: live.SourceFile, File: path} })
	if !w.monitorOn {
		w.c.monitor.SetChecked(true) // (its OnChanged turns the output on)
	}
}

// syncControls shows the settings in the controls without re-applying
// them.
func (w *Window) syncControls() {
	c := &w.c
	if c.source == nil {
		return
	}
	c.syncing = true
	defer func() { c.syncing = false }()
	s := w.set
	switch s.Source.Kind {
	case live.SourceGenerator:
		c.source.SetSelected(srcGenerator)
		c.gen.SetText(s.Source.Generator)
	case live.SourceFile:
		c.source.SetSelected(srcFile)
	default:
		if s.Source.Device == "" {
			c.source.SetSelected(srcDefault)
		} else {
			c.source.SetSelected(s.Source.Device)
		}
	}
	selectOr(c.rate, strconv.Itoa(s.Source.Rate), rates[0])
	selectOr(c.chans, strconv.Itoa(s.Source.Channels), chanOpts[0])
	c.fft.SetSelected(strconv.Itoa(s.FFT))
	c.overlap.SetSelected(overlaps[nearest(overlapVals, s.Overlap)])
	c.window.SetSelected(s.Window)
	switch s.Averaging {
	case view.AvgOff:
		c.avg.SetSelected(averagings[0])
	case view.AvgExp:
		c.avg.SetSelected(averagings[1+nearest([]float64{0.25, 1, 4}, s.AvgSeconds)])
	case view.AvgLin:
		c.avg.SetSelected(averagings[4+nearest([]float64{8, 32}, float64(s.AvgFrames))])
	case view.AvgLong:
		c.avg.SetSelected(averagings[6])
	}
	c.hold.SetSelected(holds[nearest(holdVals, s.PeakHold)])
	c.scale.SetSelected(s.FreqScale)
	top := fmt.Sprintf("%g", s.DBMax) // the options read +10, 0, -10, …
	if s.DBMax > 0 {
		top = "+" + top
	}
	selectOr(c.dbTop, top, "")
	selectOr(c.dbFloor, fmt.Sprintf("%g", s.DBMin), "")
	c.cmap.SetSelected(s.Colormap)
	c.span.SetSelected(spans[nearest(spanVals, s.Span)])
	if s.Lower == "rta" {
		c.lower.SetSelected("RTA bars")
	} else {
		c.lower.SetSelected("Waterfall")
	}
	c.fraction.SetSelected("1/" + strconv.Itoa(s.Fraction))
	c.weighting.SetSelected(s.Weighting)
	switch {
	case s.Band == "":
		c.band.SetSelected("None")
	case indexOf(bandPresets, s.Band) >= 0:
		c.band.SetSelected(s.Band)
	default:
		c.band.SetSelected("Custom…")
	}
	c.bandEntry.SetText(s.Band)
	if s.Channels == "all" {
		c.chanShown.SetSelected("All channels")
	} else {
		c.chanShown.SetSelected("Mix")
	}
	engine := s.Engine
	if w.stats.Engine != "" { // what actually runs (after any fallback)
		engine = "gpu"
		if w.stats.Engine == "cpu" {
			engine = "cpu"
		}
	}
	c.engine.SetSelected(strings.ToUpper(engine))
	if s.Theme == "light" {
		c.theme.SetSelected("Light")
	} else {
		c.theme.SetSelected("Dark")
	}
	w.syncCalControls()
}

// selectOr selects v if it is an option, else def (if not empty), else
// clears the selection.
func selectOr(s *widget.Select, v, def string) {
	for _, o := range s.Options {
		if o == v {
			s.SetSelected(v)
			return
		}
	}
	if def != "" {
		s.SetSelected(def)
		return
	}
	s.ClearSelected()
}

// powersOfTwo lists the powers of two from lo to hi as option labels.
func powersOfTwo(lo, hi int) []string {
	var s []string
	for n := lo; n <= hi; n *= 2 {
		s = append(s, strconv.Itoa(n))
	}
	return s
}

func indexOf(opts []string, v string) int {
	for i, o := range opts {
		if o == v {
			return i
		}
	}
	return -1
}

func nearest(vals []float64, v float64) int {
	best := 0
	for i, x := range vals {
		if math.Abs(x-v) < math.Abs(vals[best]-v) {
			best = i
		}
	}
	return best
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
