package panel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// TransferEngine is what the Transfer workspace needs of the analysis
// (session.Session's transfer mode): the view's source, starting and
// stopping the analyzer (StartTransfer may block while a plan is made:
// the panel calls it through its run function), a one-shot Find, and
// the analyzer's status line ("" when off).
type TransferEngine interface {
	view.TransferSource
	StartTransfer(s transfer.LiveSettings) error
	StopTransfer()
	FindDelays(dst []dual.Delay, phat bool) int
	TransferStatus() string
	// PlayStimulus plays a generator spec to the output while the input
	// is measured; StopStimulus stops it; StimulusStatus says what plays.
	PlayStimulus(spec string) error
	StopStimulus()
	StimulusStatus() string
}

// TransferHost is what the Transfer panel needs of the window: the
// source in use and a way to switch it, as the Live controls do.
type TransferHost interface {
	Source() session.SourceSpec
	UseSource(spec session.SourceSpec)
}

// Transfer is the Transfer workspace's side panel and view: the
// reference and measurement channels, the analysis and display settings
// (TransferState), Find and Track, the stimulus, the stress preset, and
// Store reference. While active (its tab shown) the analyzer runs with
// the state's settings, restarted at every change.
type Transfer struct {
	eng  TransferEngine
	host TransferHost
	win  fyne.Window
	do   func(func()) // onto the Fyne goroutine
	run  func(func()) // engine calls off the Fyne goroutine, in order
	own  *runner      // run's goroutine, when the panel made it

	// OnStore, if set, gets the trace Store reference makes (a transfer
	// function: Unit "dB", PhaseDeg and Coherence set).
	OnStore func(*dsp.Trace)

	view     *view.TransferView
	state    TransferState
	inputs   int // the source's channels
	active   bool
	stimulus int                // StimulusInput, StimulusPink or StimulusMLS
	stimSrc  session.SourceSpec // the source before a stimulus was chosen
	stress   bool
	saved    TransferState      // the state before the stress preset
	savedSrc session.SourceSpec // the source then
	savedSt  int                // the stimulus then
	found    []dual.Delay
	refs     []*dsp.Trace // the transfer references shown (SetReferences)
	errText  string       // the last start's error ("" none)
	syncing  bool

	ref, fft, overlap, window, avg, frames *widget.Select
	smooth, coh, irCh, stim, diff          *widget.Select
	track, phat, unwrap, gd, ir, stressChk *widget.Check
	speed                                  *widget.Entry
	find, store                            *widget.Button
	chanBox                                *fyne.Container
	checks                                 []*widget.Check
	status                                 *widget.Label
	content                                fyne.CanvasObject
}

// Option tables: the values each select offers.
var (
	transferFFTs      = []int{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144}
	transferHopDivs   = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
	transferFrames    = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 0}
	transferSmoothing = []int{0, 48, 24, 12, 6, 3}
	transferCoh       = []float64{0, 0.3, 0.5, 0.7, 0.9, 0.95}
	transferWindows   = []window.Kind{window.Hann, window.Rect}
	transferAverages  = []dual.TransferAverage{dual.AverageComplex, dual.AveragePolar}
	transferStimuli   = []string{"The Live tab's source", "Generator: periodic pink noise", "Generator: MLS",
		"Input, periodic pink noise played to the output", "Input, MLS played to the output"}
)

// NewTransfer makes the panel, its view and its controls for a source
// of inputs channels. run executes the engine's blocking calls off the
// Fyne goroutine, in the order given; nil: a goroutine of the panel's
// (Close ends it). Tests pass one that calls at once.
func NewTransfer(eng TransferEngine, host TransferHost, win fyne.Window, do, run func(func()), inputs int) *Transfer {
	p := &Transfer{eng: eng, host: host, win: win, do: do, run: run, inputs: max(inputs, 1)}
	if run == nil {
		p.own = newRunner()
		p.run = p.own.run
	}
	p.state = DefaultTransferState(p.inputs)
	p.view = view.NewTransferView()
	p.view.SetOptions(p.state.View)
	p.build()
	p.sync()
	return p
}

// View is the workspace's view, for the window to lay out.
func (p *Transfer) View() *view.TransferView { return p.view }

// Content is the side panel's content.
func (p *Transfer) Content() fyne.CanvasObject { return p.content }

// State is the panel's state (a copy).
func (p *Transfer) State() TransferState { return p.state.clone() }

// SetState sets every control to s and applies it.
func (p *Transfer) SetState(s TransferState) {
	p.state = s.clone()
	p.state.FitChannels(p.inputs)
	p.apply()
}

// Stressed says whether the stress preset is on; PresetSource is the
// source to keep when the window is closed meanwhile (the preset is
// never saved): the one before it.
func (p *Transfer) Stressed() bool { return p.stress }

// PresetSource is the source before the stress preset.
func (p *Transfer) PresetSource() session.SourceSpec { return p.savedSrc }

func (p *Transfer) build() {
	sel := func(labels []string, set func(i int)) *widget.Select {
		return widget.NewSelect(labels, func(v string) {
			if i := slices.Index(labels, v); i >= 0 && !p.syncing {
				set(i)
				p.apply()
			}
		})
	}
	check := func(label string, set func(on bool)) *widget.Check {
		return widget.NewCheck(label, func(on bool) {
			if !p.syncing {
				set(on)
				p.apply()
			}
		})
	}
	st := &p.state
	p.ref = widget.NewSelect(nil, func(v string) {
		if i := channelIndex(v); i >= 0 && !p.syncing {
			st.Ref = i
			st.Channels = slices.DeleteFunc(st.Channels, func(c int) bool { return c == i })
			st.FitChannels(p.inputs)
			p.apply()
		}
	})
	p.chanBox = container.NewGridWithColumns(4)
	p.fft = sel(labelsOf(transferFFTs, strconv.Itoa), func(i int) {
		st.FFT = transferFFTs[i]
		p.followStimulus()
	})
	p.overlap = sel(labelsOf(transferHopDivs, overlapLabel), func(i int) { st.HopDiv = transferHopDivs[i] })
	p.window = sel([]string{"Hann", "Rect (periodic stimulus)"}, func(i int) { st.Window = transferWindows[i] })
	p.avg = sel([]string{"complex", "polar"}, func(i int) { st.Average = transferAverages[i] })
	p.frames = sel(labelsOf(transferFrames, framesLabel), func(i int) { st.Frames = transferFrames[i] })
	p.smooth = sel(labelsOf(transferSmoothing, smoothLabel), func(i int) { st.View.Smoothing = transferSmoothing[i] })
	p.coh = sel(labelsOf(transferCoh, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }),
		func(i int) { st.View.CohThreshold = transferCoh[i] })
	p.irCh = widget.NewSelect(nil, func(v string) {
		if i := slices.Index(p.irCh.Options, v); i >= 0 && !p.syncing {
			st.View.IRChannel = i
			p.apply()
		}
	})
	p.stim = widget.NewSelect(transferStimuli, func(v string) {
		if i := slices.Index(transferStimuli, v); i >= 0 && !p.syncing {
			p.SetStimulus(i)
		}
	})
	p.track = check("Track (re-find and apply)", func(on bool) { st.Track = on })
	p.phat = check("GCC-PHAT weighting for Find", func(on bool) { st.PHAT = on })
	p.unwrap = check("Unwrap phase (delay taken out)", func(on bool) { st.View.Unwrap = on })
	p.gd = check("Group delay", func(on bool) { st.View.GroupDelay = on })
	p.ir = check("Impulse response and ETC", func(on bool) { st.View.Impulse = on })
	p.buildActions()
	p.content = p.layout()
}

// buildActions makes the rest of build's controls: the speed of sound,
// the difference picker, the buttons and the status line.
func (p *Transfer) buildActions() {
	st := &p.state
	p.speed = widget.NewEntry()
	p.speed.Validator = func(s string) error { _, err := parseSpeed(s); return err }
	p.speed.OnSubmitted = func(s string) {
		v, err := parseSpeed(s)
		if err != nil {
			p.say(err.Error())
			return
		}
		st.View.SpeedOfSound = v
		p.apply()
	}
	p.diff = widget.NewSelect([]string{diffNone}, func(v string) {
		if p.syncing {
			return
		}
		i := -1
		for k, r := range p.refs {
			if r.Name == v {
				i = k
			}
		}
		p.view.SetDiffTo(i)
	})
	p.diff.SetSelected(diffNone)
	p.find = widget.NewButton("Find (F)", p.Find)
	p.store = widget.NewButton("Store ref. (S)", p.Store)
	p.stressChk = widget.NewCheck("Stress test (GPU vs CPU)", func(on bool) {
		if !p.syncing && on != p.stress {
			p.ToggleStress()
		}
	})
	p.status = widget.NewLabel("")
	p.status.Wrapping = fyne.TextWrapWord
}

// layout places the controls in sections.
func (p *Transfer) layout() fyne.CanvasObject {
	section := func(title string) fyne.CanvasObject {
		return widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	row := func(label string, o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewBorder(nil, nil, widget.NewLabel(label), nil, o)
	}
	stressNote := widget.NewLabel(fmt.Sprintf("%d channels + reference, 192 kHz, N=65536, hop 128, 64-frame averages, tracking",
		stressTransferChannels-1))
	stressNote.Wrapping = fyne.TextWrapWord
	return container.NewVBox(p.status,
		section("Measurement"), row("Reference", p.ref), widget.NewLabel("Measured channels"), p.chanBox,
		row("Stimulus", p.stim), p.stressChk, stressNote,
		section("Analysis"), row("FFT", p.fft), row("Overlap", p.overlap), row("Window", p.window),
		row("Average", p.avg), row("Frames", p.frames),
		section("Delay"), container.NewGridWithColumns(2, p.find, p.store), p.track, p.phat, row("Sound, m/s", p.speed),
		section("Display"), row("Smoothing", p.smooth), row("Coherence ≥", p.coh), p.unwrap, p.gd, p.ir,
		row("IR of", p.irCh), row("Difference to ref.", p.diff),
	)
}

// sync shows the state in the controls without applying it.
func (p *Transfer) sync() {
	p.syncing = true
	defer func() { p.syncing = false }()
	st := &p.state
	p.ref.SetOptions(channelLabels(p.inputs))
	p.ref.SetSelected(channelLabel(st.Ref))
	p.syncChecks()
	p.fft.SetSelected(strconv.Itoa(st.FFT))
	p.overlap.SetSelected(overlapLabel(st.HopDiv))
	p.window.SetSelectedIndex(slices.Index(transferWindows, st.Window))
	p.avg.SetSelectedIndex(slices.Index(transferAverages, st.Average))
	p.frames.SetSelected(framesLabel(st.Frames))
	p.smooth.SetSelected(smoothLabel(st.View.Smoothing))
	p.coh.SetSelected(strconv.FormatFloat(st.View.CohThreshold, 'f', -1, 64))
	ir := make([]string, len(st.Channels))
	for i, c := range st.Channels {
		ir[i] = channelLabel(c)
	}
	p.irCh.SetOptions(ir)
	if st.View.IRChannel < len(ir) {
		p.irCh.SetSelectedIndex(st.View.IRChannel)
	}
	p.stim.SetSelectedIndex(p.stimulus)
	p.track.SetChecked(st.Track)
	p.phat.SetChecked(st.PHAT)
	p.unwrap.SetChecked(st.View.Unwrap)
	p.gd.SetChecked(st.View.GroupDelay)
	p.ir.SetChecked(st.View.Impulse)
	p.speed.SetText(strconv.FormatFloat(st.View.SpeedOfSound, 'f', -1, 64))
	p.stressChk.SetChecked(p.stress)
}

// syncChecks makes one check box per input channel but the reference,
// checked where it is measured.
func (p *Transfer) syncChecks() {
	if len(p.checks) != p.inputs {
		p.checks = make([]*widget.Check, p.inputs)
		p.chanBox.Objects = p.chanBox.Objects[:0]
		for c := range p.inputs {
			p.checks[c] = widget.NewCheck(strconv.Itoa(c+1), func(on bool) {
				if !p.syncing {
					p.setMeasured(c, on)
				}
			})
			p.chanBox.Objects = append(p.chanBox.Objects, p.checks[c])
		}
		p.chanBox.Refresh()
	}
	for c, ch := range p.checks {
		ch.SetChecked(slices.Contains(p.state.Channels, c))
		if c == p.state.Ref {
			ch.Disable()
		} else {
			ch.Enable()
		}
	}
}

// setMeasured adds or removes measurement channel c (one stays).
func (p *Transfer) setMeasured(c int, on bool) {
	st := &p.state
	i := slices.Index(st.Channels, c)
	switch {
	case on && i < 0 && c != st.Ref:
		st.Channels = append(st.Channels, c)
		slices.Sort(st.Channels)
	case !on && i >= 0 && len(st.Channels) > 1:
		st.Channels = slices.Delete(st.Channels, i, i+1)
	}
	st.View.IRChannel = min(st.View.IRChannel, len(st.Channels)-1)
	p.apply()
}

// apply shows the state, hands the view its options and, while active,
// restarts the analyzer with the state's settings (unless the source
// has not yet the channels they name: a source switch is under way).
func (p *Transfer) apply() {
	p.sync()
	p.view.SetOptions(p.state.View)
	if !p.active {
		return
	}
	if p.state.Ref >= p.inputs || slices.ContainsFunc(p.state.Channels, func(c int) bool { return c >= p.inputs }) {
		p.errText = "waiting for the source's channels"
		return
	}
	s := p.state.LiveSettings()
	p.run(func() {
		err := p.eng.StartTransfer(s)
		p.do(func() {
			p.errText = ""
			if err != nil {
				p.errText = err.Error()
			}
			p.showStatus()
		})
	})
}

// Activate starts the analyzer (its tab is shown); Deactivate stops it.
func (p *Transfer) Activate() {
	if !p.active {
		p.active = true
		p.apply()
		if playsOut(p.stimulus) {
			p.playStimulus()
		}
	}
}

// Deactivate stops the analyzer (its tab is hidden).
func (p *Transfer) Deactivate() {
	if p.active {
		p.active = false
		p.run(p.eng.StopTransfer)
		p.stopStimulus(playsOut(p.stimulus)) // the output is quiet outside the tab
	}
}

// Close stops the analyzer and the panel's goroutine (after what is
// queued). Calling it twice is harmless.
func (p *Transfer) Close() {
	p.Deactivate()
	if p.own != nil {
		p.own.close()
	}
}

// Active says whether the analyzer is meant to run.
func (p *Transfer) Active() bool { return p.active }

// Pull is the per-frame pull of the view.
func (p *Transfer) Pull() { p.view.Pull(p.eng) }

// Sync follows the source's channel count (the channel controls, the
// state fitted to it: every channel but the reference measured stays
// so; the analyzer restarted) and refreshes the status line; the window
// calls it a few times a second.
func (p *Transfer) Sync(inputs int) {
	if inputs > 0 && inputs != p.inputs {
		all := len(p.state.Channels) == p.inputs-1 // every channel but the reference: so it stays
		p.inputs = inputs
		if all {
			p.state.Channels = p.state.Channels[:0]
		}
		p.state.FitChannels(inputs)
		p.apply()
	}
	p.showStatus()
}

// showStatus writes the analyzer's status, any start error and Find's
// outcome under the controls.
func (p *Transfer) showStatus() {
	var parts []string
	if s := p.eng.TransferStatus(); s != "" {
		parts = append(parts, s)
	}
	if p.errText != "" {
		parts = append(parts, p.errText)
	}
	if !p.active {
		parts = append(parts, "shown in the Transfer tab only")
	}
	p.status.SetText(strings.Join(parts, "\n"))
}

// StatusText is the status line shown under the controls.
func (p *Transfer) StatusText() string { return p.status.Text }

// Find finds each channel's delay once and shows it (with the phase
// unwrapped, it is taken out of it).
func (p *Transfer) Find() {
	n := len(p.state.Channels)
	phat := p.state.PHAT
	p.run(func() {
		d := make([]dual.Delay, n)
		got := p.eng.FindDelays(d, phat)
		p.do(func() {
			p.found = d[:got]
			p.view.SetFound(p.found)
			if got == 0 {
				p.errText = "Find: nothing analyzed yet"
			}
			p.showStatus()
		})
	})
}

// Found is what the last Find found (one per measurement channel).
func (p *Transfer) Found() []dual.Delay { return p.found }

// ToggleTrack turns tracking on or off.
func (p *Transfer) ToggleTrack() {
	p.state.Track = !p.state.Track
	p.apply()
}

// ToggleGroupDelay, ToggleImpulse and ToggleUnwrap switch the view's
// group delay pane, impulse response panes and unwrapped phase.
func (p *Transfer) ToggleGroupDelay() {
	p.state.View.GroupDelay = !p.state.View.GroupDelay
	p.apply()
}

// ToggleImpulse switches the impulse response and ETC panes.
func (p *Transfer) ToggleImpulse() {
	p.state.View.Impulse = !p.state.View.Impulse
	p.apply()
}

// ToggleUnwrap switches the phase between wrapped and unwrapped.
func (p *Transfer) ToggleUnwrap() {
	p.state.View.Unwrap = !p.state.View.Unwrap
	p.apply()
}

// SetStimulus makes the generator's periodic pink noise or MLS (in the
// FFT's length) the source, or goes back to the source before
// (StimulusInput).
func (p *Transfer) SetStimulus(i int) {
	if i == p.stimulus {
		return
	}
	wasOut := playsOut(p.stimulus)
	if p.stimulus == StimulusInput || wasOut {
		p.stimSrc = p.host.Source()
	}
	p.stimulus = i
	switch {
	case playsOut(i): // the input stays; the generator plays to the output
		if !wasOut && p.host.Source() != p.stimSrc {
			p.host.UseSource(p.stimSrc)
		}
		p.playStimulus()
	case i == StimulusInput:
		p.stopStimulus(wasOut)
		p.host.UseSource(p.stimSrc)
	default:
		p.stopStimulus(wasOut)
		p.host.UseSource(p.stimulusSource())
	}
	p.sync()
}

// playStimulus starts the chosen stimulus on the output, off the Fyne
// goroutine; a failure (no output device) is said in the status and the
// choice goes back to the input alone.
func (p *Transfer) playStimulus() {
	spec := stimulusSpec(p.stimulus, p.state.FFT)
	p.run(func() {
		err := p.eng.PlayStimulus(spec)
		p.do(func() {
			if err != nil {
				p.stimulus = StimulusInput
				p.say("The stimulus could not play: " + err.Error() + " — connect an output device, or measure the source as it is.")
				p.sync()
				return
			}
			p.say(p.eng.StimulusStatus())
		})
	})
}

// stopStimulus stops a stimulus that plays to the output.
func (p *Transfer) stopStimulus(wasOut bool) {
	if wasOut {
		p.run(p.eng.StopStimulus)
	}
}

// stimulusSource is the generator of the stimulus chosen, at the
// source's rate, on as many channels (two at least).
func (p *Transfer) stimulusSource() session.SourceSpec {
	cur := p.host.Source()
	return session.SourceSpec{Kind: session.SourceGenerator, Generator: stimulusSpec(p.stimulus, p.state.FFT),
		Rate: cur.Rate, Channels: max(2, p.inputs)}
}

// followStimulus keeps a generated stimulus periodic in a new FFT size.
func (p *Transfer) followStimulus() {
	switch {
	case p.stress || p.stimulus == StimulusInput:
	case playsOut(p.stimulus):
		p.playStimulus()
	default:
		p.host.UseSource(p.stimulusSource())
	}
}

// ToggleStress switches the stress preset on (the source and every
// measurement setting replaced, the view's kept) or off (the state, the
// stimulus and the source before it restored exactly).
func (p *Transfer) ToggleStress() {
	if p.stress {
		p.stress = false
		p.state, p.stimulus = p.saved.clone(), p.savedSt
		p.host.UseSource(p.savedSrc)
		p.apply()
		if playsOut(p.stimulus) {
			p.playStimulus()
		}
		return
	}
	p.stopStimulus(playsOut(p.stimulus))
	p.stress = true
	p.saved, p.savedSrc, p.savedSt = p.state.clone(), p.host.Source(), p.stimulus
	p.state = stressTransferState(p.state.View)
	p.stimulus = StimulusPink
	p.host.UseSource(session.SourceSpec{Kind: session.SourceGenerator, Generator: stimulusSpec(StimulusPink, stressTransferFFT),
		Rate: stressTransferRate, Channels: stressTransferChannels})
	p.apply()
}

// Store makes a reference of the channel shown in the readout: its
// magnitude, phase and coherence per bin, and hands it to OnStore.
func (p *Transfer) Store() {
	t, err := p.trace(time.Now())
	if err != nil {
		p.say(err.Error())
		return
	}
	if p.OnStore == nil {
		p.say("This window keeps no references.")
		return
	}
	p.OnStore(t)
}

// say shows a one-sentence message in the panel's status, under the
// analyzer's (never a dialog), until the next one.
func (p *Transfer) say(msg string) {
	p.errText = msg
	p.showStatus()
}

// SetReferences hands the transfer-function references shown to the
// view, to draw over its plots, and to the "Difference to" choice; a
// difference to one no longer there ends.
func (p *Transfer) SetReferences(refs []*dsp.Trace) {
	p.refs = refs
	p.view.SetReferences(refs)
	opts := []string{diffNone}
	for _, r := range refs {
		opts = append(opts, r.Name)
	}
	p.syncing = true
	defer func() { p.syncing = false }()
	p.diff.SetOptions(opts)
	if i := p.view.DiffTo(); i >= 0 && i < len(refs) {
		p.diff.SetSelected(refs[i].Name)
	} else {
		p.diff.SetSelected(diffNone)
	}
}

// trace is the reference of the channel shown, named after it and the
// time.
func (p *Transfer) trace(now time.Time) (*dsp.Trace, error) {
	res, ok := p.view.Result()
	if !ok || len(res.Channels) == 0 {
		return nil, fmt.Errorf("prism: no transfer function measured yet")
	}
	c := min(p.state.View.IRChannel, len(res.Channels)-1)
	binHz := res.Geometry.BinHz()
	freq := make([]float64, len(res.MagnitudeDB[c]))
	for k := range freq {
		freq[k] = float64(k) * binHz
	}
	name := fmt.Sprintf("ch %d vs %d %s", res.Channels[c]+1, p.state.Ref+1, now.Format("15:04:05"))
	t, err := dsp.NewTrace(name, freq, res.MagnitudeDB[c])
	if err != nil {
		return nil, err
	}
	t.Unit = "dB"
	t.PhaseDeg = slices.Clone(res.PhaseDeg[c])
	t.Coherence = slices.Clone(res.Coherence[c])
	return t, nil
}

// channelLabels names input channels 1…n.
func channelLabels(n int) []string {
	s := make([]string, n)
	for c := range s {
		s[c] = channelLabel(c)
	}
	return s
}

func channelLabel(c int) string { return "ch " + strconv.Itoa(c+1) }

// channelIndex is the 0-based channel of a label, −1 if none.
func channelIndex(s string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "ch "))
	if err != nil {
		return -1
	}
	return n - 1
}

func labelsOf[T any](vals []T, label func(T) string) []string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = label(v)
	}
	return s
}

// overlapLabel is the overlap of hop N/div: "75 %", "99.8 %".
func overlapLabel(div int) string {
	return strconv.FormatFloat(100*(1-1/float64(div)), 'g', 4, 64) + " %"
}

func framesLabel(n int) string {
	if n == 0 {
		return "exponential"
	}
	return strconv.Itoa(n)
}

func smoothLabel(n int) string {
	if n == 0 {
		return "off"
	}
	return "1/" + strconv.Itoa(n) + " octave"
}

// parseSpeed reads a speed of sound in m/s (100…2000).
func parseSpeed(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 100 || v > 2000 {
		return 0, fmt.Errorf("prism: speed of sound %q (want 100…2000 m/s)", s)
	}
	return v, nil
}

// DiffOptions are the "Difference to ref." choices offered (tests).
func (p *Transfer) DiffOptions() []string { return p.diff.Options }

// ChooseDiff picks "Difference to ref." option v, as a tap does.
func (p *Transfer) ChooseDiff(v string) { p.diff.SetSelected(v) }
