package panel

import (
	"image"
	"math"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/pitch"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/scope"
	"github.com/prismaudio/prism/ui/view"
)

// The lower pane's views (the window's Settings.Lower) this panel owns.
const (
	LowerScope = "scope"
	LowerPitch = "pitch"
)

// LowerViews are the views under the live spectrum, in the V key's order.
var LowerViews = []string{"waterfall", "rta", LowerScope, LowerPitch}

// ScopeEngine is what the scope and pitch panel needs of the session:
// the live input's tap (read on the Fyne goroutine every frame; it never
// blocks for long), a file's f0 track and a file's samples (they block;
// called from goroutines of the panel's).
type ScopeEngine interface {
	ScopeSource() scope.Source
	FilePitch(path string, o pitch.FileOptions) ([]pitch.Point, error)
	FileSamples(path string, ch int) ([]float32, int, error)
}

// Scope is the oscilloscope and the pitch trace under the live spectrum
// (views shown in place of the waterfall or RTA bars), their section of
// the side panel (channel, trigger, time base, amplitude; the pitch
// range and time shown) shown with them, and over the file view the
// pitch track (P) and the scope at the cursor (O).
type Scope struct {
	eng     ScopeEngine
	do      func(func())
	sv      *view.ScopeView
	pv      *view.PitchView
	views   *fyne.Container
	section *fyne.Container
	scopeUI *fyne.Container
	pitchUI *fyne.Container
	channel *widget.Select
	mode    *widget.Select
	level   *widget.Label
	nch     int // the channel count the channel list is for
	lower   string

	overlay  view.PitchOverlay
	fileOn   bool
	fileFor  string // the file the overlay is of
	fileBusy bool

	fscope    view.FileScope
	fscopeOn  bool
	fscopeFor string // the file fscope's samples are of
	fscopeBsy bool
}

// timeDivs are the time bases offered, seconds per division.
var timeDivs = []float64{20e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3}

// fullScales are the amplitude scales offered (±, 1 = 0 dBFS).
var fullScales = []float64{1, 0.5, 0.2, 0.1, 0.05, 0.01}

// pitchRanges are the f0 ranges offered.
var pitchRanges = []struct {
	label    string
	min, max float64
}{
	{"50–2000 Hz", 50, 2000}, {"Voice 60–1000 Hz", 60, 1000}, {"Bass 30–500 Hz", 30, 500}, {"Piano 27.5–4186 Hz", 27.5, 4186},
}

// pitchSpans are the times the pitch trace shows, seconds.
var pitchSpans = []float64{5, 10, 30}

// NewScope makes the views and the section.
func NewScope(eng ScopeEngine, do func(func())) *Scope {
	p := &Scope{eng: eng, do: do, lower: "waterfall"}
	p.sv = view.NewScopeView(view.ScopeSettings{Channel: -1, TimeDiv: 1e-3, FullScale: 1, Trigger: scope.Trigger{Hysteresis: 0.01}})
	p.pv = view.NewPitchView(view.PitchSettings{Channel: -1, MinHz: 50, MaxHz: 2000, Seconds: 10})
	p.views = container.NewStack(p.sv, p.pv)
	p.sv.Hide()
	p.pv.Hide()
	p.section = p.build()
	p.section.Hide()
	return p
}

// Views are the scope and the pitch trace, for the lower pane's stack.
func (p *Scope) Views() fyne.CanvasObject { return p.views }

// ScopeView and PitchView are the views (the window exports and tests
// read them).
func (p *Scope) ScopeView() *view.ScopeView { return p.sv }

// PitchView is the pitch trace.
func (p *Scope) PitchView() *view.PitchView { return p.pv }

// Section is the side panel's section, shown with the views.
func (p *Scope) Section() fyne.CanvasObject { return p.section }

// ShowLower shows the lower pane's view lower out of wf (the waterfall,
// also for anything unknown), rta and the panel's own, hiding the rest,
// with the section for the panel's, in the theme.
func (p *Scope) ShowLower(lower string, dark bool, wf, rta fyne.CanvasObject) {
	p.lower = lower
	p.sv.SetDark(dark)
	p.pv.SetDark(dark)
	for _, o := range []struct {
		obj fyne.CanvasObject
		on  bool
	}{
		{wf, lower != "rta" && lower != LowerScope && lower != LowerPitch}, {rta, lower == "rta"},
		{p.sv, lower == LowerScope}, {p.pv, lower == LowerPitch}, {p.section, lower == LowerScope || lower == LowerPitch},
		{p.scopeUI, lower == LowerScope}, {p.pitchUI, lower == LowerPitch},
	} {
		if o.on {
			o.obj.Show()
		} else {
			o.obj.Hide()
		}
	}
	p.sv.Refresh()
	p.pv.Refresh()
}

// Pull pulls the view shown (every frame of the live workspace).
func (p *Scope) Pull() {
	src := p.eng.ScopeSource()
	if _, _, n, _ := src.Span(); n != p.nch {
		p.nch = n
		p.syncChannels()
	}
	switch p.lower {
	case LowerScope:
		p.sv.Pull(src)
	case LowerPitch:
		p.pv.Pull(src)
	}
}

// ScopeKey is O. In the File workspace (fileShown) it shows or hides
// the scope at the cursor over fv (ToggleFileScope). Elsewhere, in auto
// or normal mode it arms a single shot; in single mode a held capture is
// armed again, and one still waiting goes back to auto.
func (p *Scope) ScopeKey(fileShown bool, fv *view.FileView, fail func(sentence string, err error)) {
	if fileShown {
		p.ToggleFileScope(fv, fail)
		return
	}
	s := p.sv.Settings()
	switch {
	case s.Trigger.Mode != scope.Single:
		p.setMode(scope.Single)
	case p.sv.Held():
		p.sv.Arm()
	default:
		p.setMode(scope.Auto)
	}
}

func (p *Scope) setMode(m scope.Mode) {
	p.mode.SetSelected(modeLabels[m]) // its OnChanged applies it
}

var modeLabels = []string{"Auto", "Normal", "Single"}

func (p *Scope) changeScope(fn func(s *view.ScopeSettings)) {
	s := p.sv.Settings()
	fn(&s)
	p.sv.Set(s)
	p.level.SetText("Level " + strconv.FormatFloat(s.Trigger.Level, 'f', 2, 64))
}

func (p *Scope) changePitch(fn func(s *view.PitchSettings)) {
	s := p.pv.Settings()
	fn(&s)
	p.pv.Set(s)
}

// build makes the section: the channel (shared by both views), then the
// scope's controls or the pitch trace's.
func (p *Scope) build() *fyne.Container {
	p.level = widget.NewLabel("Level 0.00")
	p.channel = widget.NewSelect([]string{"Mix"}, func(v string) {
		ch := -1
		if n, err := strconv.Atoi(v[len("Ch "):]); len(v) > 3 && err == nil {
			ch = n - 1
		}
		p.changeScope(func(s *view.ScopeSettings) { s.Channel = ch })
		p.changePitch(func(s *view.PitchSettings) { s.Channel = ch })
	})
	p.channel.SetSelected("Mix")
	edge := widget.NewSelect([]string{"Rising", "Falling"}, func(v string) {
		p.changeScope(func(s *view.ScopeSettings) {
			s.Trigger.Edge = scope.Edge(slices.Index([]string{"Rising", "Falling"}, v))
		})
	})
	edge.SetSelected("Rising")
	level := widget.NewSlider(-1, 1)
	level.Step = 0.01
	level.OnChanged = func(v float64) {
		p.changeScope(func(s *view.ScopeSettings) { s.Trigger.Level = math.Round(v*100) / 100 })
	}
	p.mode = widget.NewSelect(modeLabels, func(v string) {
		p.changeScope(func(s *view.ScopeSettings) { s.Trigger.Mode = scope.Mode(slices.Index(modeLabels, v)) })
	})
	p.mode.SetSelected("Auto")
	arm := widget.NewButton("Arm", p.sv.Arm)
	p.scopeUI = container.NewVBox(
		row("Trigger", edge), container.NewBorder(nil, nil, p.level, nil, level),
		row("Mode", container.NewBorder(nil, nil, nil, arm, p.mode)),
		row("Time/div", choice(timeDivs, func(v float64) string { return timeDivLabel(v) }, 1e-3, func(v float64) {
			p.changeScope(func(s *view.ScopeSettings) { s.TimeDiv = v })
		})),
		row("Scale ±", choice(fullScales, func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }, 1, func(v float64) {
			p.changeScope(func(s *view.ScopeSettings) { s.FullScale = v })
		})))
	var rangeLabels []string
	for _, r := range pitchRanges {
		rangeLabels = append(rangeLabels, r.label)
	}
	rng := widget.NewSelect(rangeLabels, func(v string) {
		r := pitchRanges[max(0, slices.Index(rangeLabels, v))]
		p.changePitch(func(s *view.PitchSettings) { s.MinHz, s.MaxHz = r.min, r.max })
	})
	rng.SetSelected(rangeLabels[0])
	p.pitchUI = container.NewVBox(row("Range", rng),
		row("Shown", choice(pitchSpans, func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + " s" }, 10, func(v float64) {
			p.changePitch(func(s *view.PitchSettings) { s.Seconds = v })
		})))
	title := widget.NewLabelWithStyle("Scope and pitch", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	return container.NewVBox(title, row("Channel", p.channel), p.scopeUI, p.pitchUI)
}

// syncChannels offers the mix and each of the tap's channels.
func (p *Scope) syncChannels() {
	opts := []string{"Mix"}
	for c := range p.nch {
		opts = append(opts, "Ch "+strconv.Itoa(c+1))
	}
	sel := p.channel.Selected
	p.channel.SetOptions(opts)
	if !slices.Contains(opts, sel) {
		p.channel.SetSelected("Mix")
	}
}

// row is a control with its label on the left.
func row(label string, obj fyne.CanvasObject) fyne.CanvasObject {
	return container.NewBorder(nil, nil, widget.NewLabel(label), nil, obj)
}

// choice is a select of values shown by label, initially initial.
func choice(values []float64, label func(float64) string, initial float64, apply func(float64)) *widget.Select {
	labels := make([]string, len(values))
	for i, v := range values {
		labels[i] = label(v)
	}
	s := widget.NewSelect(labels, func(l string) {
		if i := slices.Index(labels, l); i >= 0 {
			apply(values[i])
		}
	})
	s.SetSelected(label(initial))
	return s
}

// timeDivLabel is a time base as "500 µs", "2 ms".
func timeDivLabel(v float64) string {
	if v >= 1e-3 {
		return strconv.FormatFloat(v*1e3, 'g', 3, 64) + " ms"
	}
	return strconv.FormatFloat(v*1e6, 'g', 3, 64) + " µs"
}

// ToggleFilePitch is P in the File workspace: the pitch track over fv's
// spectrogram on or off. The track of the file shown (its channel or the
// mix, the pitch trace's range, 10 ms hop) is made on a goroutine the
// first time it is shown; fail says why where it cannot be. Nothing
// happens unless the file view is shown.
func (p *Scope) ToggleFilePitch(shown bool, fv *view.FileView, fail func(sentence string, err error)) {
	fs := fv.File()
	if !shown {
		return
	}
	p.fileOn = !p.fileOn && fs != nil
	if !p.fileOn {
		p.setOverlay(fv)
		return
	}
	p.setOverlay(fv)
	key := fs.Path + "\x00" + strconv.Itoa(fs.Channel)
	if key == p.fileFor || p.fileBusy {
		fv.Refresh()
		return
	}
	p.fileBusy = true
	set := p.pv.Settings()
	o := pitch.FileOptions{Channel: fs.Channel, MinHz: set.MinHz, MaxHz: min(set.MaxHz, float64(fs.Rate)/4), HopSeconds: 0.01}
	go func() {
		pts, err := p.eng.FilePitch(fs.Path, o)
		p.do(func() {
			p.fileBusy = false
			if err != nil {
				p.fileOn = false
				p.setOverlay(fv)
				fail("The pitch track could not be made.", err)
				return
			}
			p.overlay.Points, p.fileFor = pts, key
			fv.Refresh()
		})
	}()
}

// FilePitchOn reports whether the file view's pitch track is on.
func (p *Scope) FilePitchOn() bool { return p.fileOn }

// LowerImage is the image of the lower pane's view lower: the scope's,
// the pitch trace's, else rta for "rta" and wf for anything else.
func (p *Scope) LowerImage(lower string, wf, rta *image.RGBA) *image.RGBA {
	switch lower {
	case LowerScope:
		return p.sv.Image()
	case LowerPitch:
		return p.pv.Image()
	case "rta":
		return rta
	}
	return wf
}

// ToggleFileScope shows or hides, over fv, the scope of the file at the
// hover cursor (view.FileScope, with the live scope's trigger, time base
// and scale; the file view's channel or the mix). The file's samples are
// read on a goroutine the first time; fail says why where they cannot be.
func (p *Scope) ToggleFileScope(fv *view.FileView, fail func(sentence string, err error)) {
	fs := fv.File()
	p.fscopeOn = !p.fscopeOn && fs != nil
	p.fscope.Set = p.sv.Settings()
	p.setOverlay(fv)
	if !p.fscopeOn {
		return
	}
	key := fs.Path + "\x00" + strconv.Itoa(fs.Channel)
	if key == p.fscopeFor || p.fscopeBsy {
		return
	}
	p.fscopeBsy = true
	go func() {
		x, rate, err := p.eng.FileSamples(fs.Path, fs.Channel)
		p.do(func() {
			p.fscopeBsy = false
			if err != nil {
				p.fscopeOn = false
				p.setOverlay(fv)
				fail("The file's scope could not be shown.", err)
				return
			}
			p.fscope.Samples, p.fscope.Rate, p.fscopeFor = x, rate, key
			fv.Refresh()
		})
	}()
}

// FileScopeOn reports whether the scope at the file view's cursor is on.
func (p *Scope) FileScopeOn() bool { return p.fscopeOn }

// FileScope is the file view's scope (its samples once read).
func (p *Scope) FileScope() *view.FileScope { return &p.fscope }

// setOverlay hands fv the overlay of what is on (nil: nothing) and
// redraws it.
func (p *Scope) setOverlay(fv *view.FileView) {
	fv.Overlay = nil
	if p.fileOn || p.fscopeOn {
		fv.Overlay = p.drawFile
	}
	fv.Refresh()
}

// drawFile is the file view's overlay: the pitch track, then the scope
// at the cursor.
func (p *Scope) drawFile(img *image.RGBA, area image.Rectangle, t0, t1 float64, axis plot.FreqAxis, cursor float64) {
	if p.fileOn {
		p.overlay.Draw(img, area, t0, t1, axis)
	}
	if p.fscopeOn {
		p.fscope.Dark = p.sv.Dark()
		p.fscope.Draw(img, area, cursor)
	}
}
