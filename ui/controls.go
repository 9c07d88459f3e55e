package ui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/ui/panel"
)

// controlsHost is what the controls panel needs of the window: the
// settings and a way to change them, what actually runs, and the actions
// of its buttons.
type controlsHost interface {
	settings() Settings
	change(fn func(s *Settings))
	runningEngine() string // "gpu", "cpu" or "" before the first stats
	rate() int             // the analysis's sample rate
	togglePause()
	resetHolds()
	stress()
	stressOn() bool
	stressNote() string // the stress preset's explanation ("" off)
	setMonitorOutput(on bool)
	pickSourceFile()
	// inputRates lists the standard rates an input device takes (as
	// session.SourceSpec.Device names it); it may block on the device
	inputRates(device string, channels int) ([]int, error)
	onUI(fn func())         // run fn on the Fyne goroutine
	notices() *panel.Notice // the notice line: why an entry was refused
}

// option is one entry of a choice: its label, what choosing it does to
// the settings, and whether the settings select it. An option with do
// runs that instead of changing the settings.
type option struct {
	label    string
	apply    func(s *Settings)
	selected func(s *Settings) bool
	do       func()
}

// What a choice shows when no option is selected.
const (
	keepShown = -1 // the option shown before
	showNone  = -2 // no option
)

// choice is a select over a table of options.
type choice struct {
	opts []option
	none int // the option shown when none is selected, keepShown or showNone
	sel  *widget.Select
}

// controls is the side panel: the engine, source, analysis, band filter
// and display settings as tables of options, kept in step with the
// settings (sync) so that keyboard shortcuts and fallbacks show there too.
// The unit and calibration and the references sections are other
// panels' (built by them, placed here).
type controls struct {
	host    controlsHost
	win     fyne.Window
	syncing bool
	choices []*choice

	source, rate, chans                         *widget.Select
	rateChoice                                  *choice
	ratesSrc                                    session.SourceSpec // the source whose rates are offered
	gen, bandEntry                              *widget.Entry
	fft, overlap, window, avg, hold, mode       *widget.Select
	scale, dbTop, dbFloor, cmap, span           *widget.Select
	lower, fraction, weighting, band, chanShown *widget.Select
	engine, theme                               *widget.RadioGroup
	pause, stress                               *widget.Button
	stressNote                                  *widget.Label // the stress preset's explanation, while it is on
	sections                                    *widget.Accordion
	monitor                                     *widget.Check
	devices                                     func() ([]string, error)
}

const (
	srcDefault   = "Default input"
	srcGenerator = "Signal generator"
	srcFile      = "File, in real time…"
)

// newChoice makes the select of a table of options.
func (c *controls) newChoice(none int, opts []option) *widget.Select {
	ch := &choice{opts: opts, none: none}
	labels := make([]string, len(opts))
	for i, o := range opts {
		labels[i] = o.label
	}
	ch.sel = widget.NewSelect(labels, func(v string) {
		if c.syncing {
			return
		}
		opts := ch.opts // setOptions may have changed them
		i := slices.IndexFunc(opts, func(o option) bool { return o.label == v })
		switch {
		case i < 0:
		case opts[i].do != nil:
			opts[i].do()
		default:
			c.host.change(opts[i].apply)
		}
	})
	c.choices = append(c.choices, ch)
	return ch.sel
}

// setOptions replaces the choice's options (the select keeps its
// selection if the new options have it).
func (ch *choice) setOptions(opts []option) {
	ch.opts = opts
	labels := make([]string, len(opts))
	for i, o := range opts {
		labels[i] = o.label
	}
	ch.sel.SetOptions(labels)
}

// sync selects the first option the settings select.
func (ch *choice) sync(s *Settings) {
	for _, o := range ch.opts {
		if o.selected(s) {
			ch.sel.SetSelected(o.label)
			return
		}
	}
	switch {
	case ch.none >= 0:
		ch.sel.SetSelected(ch.opts[ch.none].label)
	case ch.none == showNone:
		ch.sel.ClearSelected()
	}
}

// newControls builds the side panel around the calibration and
// references sections and the export buttons: collapsible sections, the
// ones used most (engine, source, analysis) open, so the panel fits a
// window 800 px tall and every control is a click away.
func newControls(host controlsHost, win fyne.Window, devices func() ([]string, error), hasGPU bool, cal, refs, exports fyne.CanvasObject) (*controls, fyne.CanvasObject) {
	c := &controls{host: host, win: win, devices: devices}
	c.buildSource()
	c.buildChoices()
	c.buildBand()
	c.engine = c.radio([]string{"GPU", "CPU"}, func(s *Settings, v string) { s.Engine = v })
	if !hasGPU {
		c.engine.Disable()
	}
	c.theme = c.radio([]string{"Dark", "Light"}, func(s *Settings, v string) { s.Theme = v })
	c.pause = widget.NewButton(pauseText(false), host.togglePause)
	c.stress = widget.NewButton(stressText(false), host.stress)
	c.stressNote = widget.NewLabel("")
	c.stressNote.Wrapping = fyne.TextWrapWord
	c.stressNote.Hide()
	keys := widget.NewButton("Keys… (?)", func() { panel.ShowKeys(win, keyTable()) })
	reset := widget.NewButton("Reset all (R)", host.resetHolds) // averages, holds, meters

	c.sync()
	row := func(label string, o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewBorder(nil, nil, widget.NewLabel(label), nil, o)
	}
	calTitle, calBody := sectionOf(cal, "Units and calibration")
	item := func(title string, open bool, objs ...fyne.CanvasObject) *widget.AccordionItem {
		it := widget.NewAccordionItem(title, container.NewVBox(objs...))
		it.Open = open
		return it
	}
	c.sections = widget.NewAccordion(
		item("Engine", true, container.NewBorder(nil, nil, c.engine, nil, c.pause), c.stress, c.stressNote),
		item("Source", true, c.source, row("Generator", c.gen), container.NewBorder(nil, nil, row("Rate", c.rate), nil, row("Channels", c.chans))),
		item("Analysis", true, container.NewGridWithColumns(2, row("Mode", c.mode), row("FFT", c.fft)), row("Overlap", c.overlap), row("Window", c.window),
			row("Average", c.avg), row("Peak hold", container.NewBorder(nil, nil, nil, reset, c.hold))),
		item("Band filter", false, c.band, c.bandEntry, c.monitor),
		item(calTitle, false, calBody),
		item("Display", false, row("Frequency", c.scale), container.NewGridWithColumns(2, row("dB top", c.dbTop), row("floor", c.dbFloor)),
			row("Show", c.chanShown), row("Below", c.lower), row("Colormap", c.cmap), row("Waterfall", c.span),
			row("RTA", container.NewGridWithColumns(2, c.fraction, c.weighting)), row("Theme", c.theme)),
		item("References and distortion", false, refs, exports, keys),
	)
	c.sections.MultiOpen = true
	// in a box: an accordion taller than its rows spreads them apart
	return c, container.NewVBox(c.sections)
}

// sectionOf splits a panel's section (a box whose first object is its
// bold title) into the title and the rest, so the title can head a
// collapsible section; a section without one keeps all of it under
// title.
func sectionOf(o fyne.CanvasObject, title string) (string, fyne.CanvasObject) {
	box, ok := o.(*fyne.Container)
	if !ok || len(box.Objects) < 2 {
		return title, o
	}
	l, ok := box.Objects[0].(*widget.Label)
	if !ok || !l.TextStyle.Bold {
		return title, o
	}
	return l.Text, container.NewVBox(box.Objects[1:]...)
}

// stressText labels the stress button.
func stressText(on bool) string {
	if on {
		return "End stress test (restore)"
	}
	return "Stress test (192 kHz × 8)"
}

// radio is a horizontal, required choice of labels whose lower case is
// the setting set.
func (c *controls) radio(labels []string, set func(s *Settings, v string)) *widget.RadioGroup {
	r := widget.NewRadioGroup(labels, func(v string) {
		if !c.syncing {
			c.host.change(func(s *Settings) { set(s, strings.ToLower(v)) })
		}
	})
	r.Horizontal, r.Required = true, true
	return r
}

// buildSource makes the source picker and the generator's entry.
func (c *controls) buildSource() {
	c.source = widget.NewSelect(nil, func(v string) {
		if c.syncing {
			return
		}
		kind, dev := session.SourceDevice, ""
		switch v {
		case srcGenerator:
			spec := c.gen.Text
			if spec == "" {
				spec = live.DefaultGenerator
			}
			c.setGenerator(spec)
			return
		case srcFile:
			c.host.pickSourceFile()
			return
		case srcDefault:
		default:
			dev = v
		}
		c.host.change(func(s *Settings) {
			s.Source = session.SourceSpec{Kind: kind, Device: dev, Rate: s.Source.Rate, Channels: s.Source.Channels}
		})
		c.ratesFor(session.SourceSpec{Kind: kind, Device: dev, Channels: c.host.settings().Source.Channels})
	})
	c.refreshSources()
	c.gen = widget.NewEntry()
	c.gen.SetPlaceHolder(live.DefaultGenerator)
	c.gen.Validator = func(s string) error {
		_, err := session.ParseGeneratorSpec(s)
		return err
	}
	c.gen.OnSubmitted = func(v string) {
		if _, err := session.ParseGeneratorSpec(v); err != nil {
			c.host.notices().Fail(refused("generator", err, live.DefaultGenerator), err)
			return
		}
		if !c.syncing {
			c.setGenerator(v)
		}
	}
}

// setGenerator makes the generator with spec the source.
func (c *controls) setGenerator(spec string) {
	c.host.change(func(s *Settings) {
		s.Source = session.SourceSpec{Kind: session.SourceGenerator, Generator: spec, Rate: s.Source.Rate, Channels: s.Source.Channels}
	})
}

// refreshSources fills the source list: the default input, each input
// device, the generator and a file.
func (c *controls) refreshSources() {
	opts := []string{srcDefault}
	if devs, err := c.devices(); err == nil {
		opts = append(opts, devs...)
	}
	c.source.SetOptions(append(opts, srcGenerator, srcFile))
	if c.rate != nil {
		c.refreshRates()
	}
}

// refreshRates offers, in the Rate select, the standard rates the input
// device chosen takes (asked of the device off the Fyne goroutine); the
// generator and a file take them all (audio.StandardRates).
func (c *controls) refreshRates() { c.ratesFor(c.host.settings().Source) }

// ratesFor offers the rates of source src (refreshRates), unless they
// are offered already.
func (c *controls) ratesFor(src session.SourceSpec) {
	src.Rate = 0
	if src == c.ratesSrc {
		return
	}
	c.ratesSrc = src
	if src.Kind == session.SourceGenerator || src.Kind == session.SourceFile {
		c.setRates(audio.StandardRates)
		return
	}
	go func() {
		rates, err := c.host.inputRates(src.Device, src.Channels)
		if err != nil || len(rates) == 0 {
			return // the rates offered stay; the device's error shows when it opens
		}
		c.host.onUI(func() { c.setRates(rates) })
	}()
}

// setRates makes the Rate select offer "Default" and rates (the one set
// kept even where the device does not list it, so it shows).
func (c *controls) setRates(rates []int) {
	labels := []string{"Default"}
	cur := c.host.settings().Source.Rate
	for _, r := range rates {
		labels = append(labels, strconv.Itoa(r))
	}
	if cur > 0 && !slices.Contains(rates, cur) {
		labels = append(labels, strconv.Itoa(cur))
	}
	c.rateChoice.setOptions(intOptions(labels, func(s *Settings) *int { return &s.Source.Rate }))
	s := c.host.settings()
	c.syncing = true
	c.rateChoice.sync(&s)
	c.syncing = false
}

// buildChoices makes the selects of the option tables (controltables.go).
func (c *controls) buildChoices() {
	c.rate = c.newChoice(0, intOptions([]string{"Default", "44100", "48000", "96000", "192000"}, func(s *Settings) *int { return &s.Source.Rate }))
	c.rateChoice = c.choices[len(c.choices)-1] // its options follow the device (refreshRates)
	c.refreshRates()
	c.chans = c.newChoice(0, intOptions([]string{"Default", "1", "2", "4", "6", "8"}, func(s *Settings) *int { return &s.Source.Channels }))
	c.fft = c.newChoice(keepShown, intOptions(powersOfTwo(engine.MinFFT, engine.MaxFFT), func(s *Settings) *int { return &s.FFT }))
	c.overlap = c.newChoice(keepShown, nearestOptions(overlaps, func(s *Settings) *float64 { return &s.Overlap }))
	c.window = c.newChoice(keepShown, windowOptions())
	c.avg = c.newChoice(keepShown, averagingOptions)
	c.hold = c.newChoice(keepShown, nearestOptions(holds, func(s *Settings) *float64 { return &s.PeakHold }))
	c.scale, c.mode = c.newChoice(keepShown, scaleOptions), c.newChoice(keepShown, modeOptions())
	c.dbTop = c.newChoice(showNone, dbOptions([]float64{10, 0, -10, -20, -40}, true))
	c.dbFloor = c.newChoice(showNone, dbOptions([]float64{-40, -60, -80, -100, -120, -140, -160}, false))
	c.cmap = c.newChoice(keepShown, colormapOptions())
	c.span = c.newChoice(keepShown, nearestOptions(spans, func(s *Settings) *float64 { return &s.Span }))
	c.lower = c.newChoice(keepShown, lowerOptions)
	c.fraction = c.newChoice(keepShown, fractionOptions())
	c.weighting = c.newChoice(keepShown, weightingOptions)
	c.chanShown = c.newChoice(keepShown, channelsOptions)
}

// buildBand makes the band filter's presets, its entry for any spec and
// the monitor output's switch.
func (c *controls) buildBand() {
	c.bandEntry = widget.NewEntry()
	c.bandEntry.SetPlaceHolder("bandpass:300-3400")
	c.bandEntry.Validator = func(v string) error {
		_, err := checkedBand(v, c.host.rate())
		return err
	}
	c.bandEntry.OnSubmitted = func(v string) {
		b, err := checkedBand(v, c.host.rate())
		if err != nil {
			c.host.notices().Fail(refused("band filter", err, "bandpass:300-3400"), err)
			return
		}
		if !c.syncing {
			c.host.change(func(s *Settings) { s.Band = b })
		}
	}
	c.band = c.newChoice(keepShown, bandOptions(func() { c.win.Canvas().Focus(c.bandEntry) }))
	c.monitor = widget.NewCheck("Play it (monitor output)", func(on bool) {
		if !c.syncing {
			c.host.setMonitorOutput(on)
			c.win.Canvas().Unfocus()
		}
	})
}

// sync shows the settings in the controls without re-applying them.
func (c *controls) sync() {
	c.ratesFor(c.host.settings().Source) // a new source: its rates
	c.syncing = true
	defer func() { c.syncing = false }()
	s := c.host.settings()
	switch s.Source.Kind {
	case session.SourceGenerator:
		c.source.SetSelected(srcGenerator)
		c.gen.SetText(s.Source.Generator)
	case session.SourceFile:
		c.source.SetSelected(srcFile)
	default:
		if s.Source.Device == "" {
			c.source.SetSelected(srcDefault)
		} else {
			c.source.SetSelected(s.Source.Device)
		}
	}
	for _, ch := range c.choices {
		ch.sync(&s)
	}
	c.bandEntry.SetText(s.Band.String())
	engine := s.Engine
	if running := c.host.runningEngine(); running != "" { // what actually runs (after any fallback)
		engine = running
	}
	c.engine.SetSelected(strings.ToUpper(engine))
	c.stress.SetText(stressText(c.host.stressOn()))
	if note := c.host.stressNote(); note != "" {
		c.stressNote.SetText(note)
		c.stressNote.Show()
	} else {
		c.stressNote.Hide()
	}
	if s.Theme == "light" {
		c.theme.SetSelected("Light")
	} else {
		c.theme.SetSelected("Dark")
	}
}

// showPaused labels the pause button.
func (c *controls) showPaused(paused bool) { c.pause.SetText(pauseText(paused)) }

// setMonitor shows the monitor output on or off; turning it on here
// turns the output on (the check box's OnChanged).
func (c *controls) setMonitor(on bool) { c.monitor.SetChecked(on) }

// powersOfTwo lists the powers of two from lo to hi as option labels.
func powersOfTwo(lo, hi int) []string {
	var s []string
	for n := lo; n <= hi; n *= 2 {
		s = append(s, strconv.Itoa(n))
	}
	return s
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

// dbLabel is a dB option's label: "+10", "0", "-10".
func dbLabel(db float64) string {
	if db > 0 {
		return fmt.Sprintf("+%g", db)
	}
	return fmt.Sprintf("%g", db)
}

// refused is the notice for an entry's text that was refused: what stays
// as it was, why (err in a user's words) and an example to write.
func refused(what string, err error, example string) string {
	why := strings.TrimSuffix(panel.Explain(err), ".")
	if why != "" {
		why = strings.ToLower(why[:1]) + why[1:]
	}
	return fmt.Sprintf("The %s was not changed (%s): write it like %s.", what, why, example)
}

func modeOptions() (opts []option) {
	for _, m := range panel.Modes() {
		opts = append(opts, option{label: panel.ModeLabel(m), apply: func(s *Settings) { s.Mode.Mode = m }, selected: func(s *Settings) bool { return s.Mode.Mode == m }})
	}
	return opts
}
