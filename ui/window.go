package ui

import (
	"io"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/ui/internal/applier"
	"github.com/prismaudio/prism/ui/internal/watchdog"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// Options start a Window.
type Options struct {
	File   string // open this file in the File tab at start
	Notice string // shown in the status bar at start (e.g. why the GPU is not used)
	// Verbose shows the error chain beside each failure's sentence in the
	// notice line (else it is under Details).
	Verbose bool
	Trace   io.Writer // if set, JSON lines: "ready", "engine" and once a second "perf" events
	// Manual leaves the per-frame pull to the caller (tests call Pull);
	// otherwise an endless animation calls it before every paint.
	Manual bool
	// ReferenceDir, if set, keeps the references between sessions: each
	// one stored or loaded is written there as CSV, and those there are
	// loaded at start (package panel's References). Package desktop passes
	// os.UserConfigDir()/prism/references.
	ReferenceDir string
	// Do runs a function on the Fyne goroutine; nil means fyne.Do. Tests
	// queue the functions and run them on the test goroutine (the test
	// driver's fyne.Do runs them on the caller's goroutine at once).
	Do func(func())
}

// Window is Prism's main window: the live spectrum over a waterfall or RTA
// bars, the file view, the controls and the status bar. All its methods
// run on the Fyne goroutine.
type Window struct {
	app  fyne.App
	win  fyne.Window
	eng  Engine
	opts Options
	set  Settings
	ap   *applier.Applier // settings → engine, off the Fyne goroutine
	do   func(func())     // onto the Fyne goroutine

	spec *view.SpectrumView
	wf   *view.Waterfall
	rta  *view.RTAView
	lvl  *view.MetersView
	lh   *panel.LevelHistory // the level-history strip (W)
	cal  *panel.Calibration  // the unit and calibration the live spectrum and RTA show
	sp   *panel.Scope        // the scope and pitch trace (the lower pane's) and the file's pitch track

	tabs    *container.AppTabs
	liveTab *container.TabItem
	fileTab *container.TabItem
	c       *controls
	fp      *panel.Files    // the File tab
	play    *panel.FilePlay // the File tab's playback and selection
	// its views (the panel's, handed over when it is made)
	fview     *view.FileView
	fspec     *view.SpectrumView
	fdiff     *view.LinePlot // the difference to a reference (references.go)
	fdiffGrid view.RefGrid
	fab       *view.ABView
	rec       *panel.Record
	bar       *panel.StatusBar
	// the Transfer tab (transfer.go) and the side panels (the tab in
	// view shows its own)
	xferTab  *container.TabItem
	tp       *panel.Transfer
	liveSide *container.Scroll
	xferSide *container.Scroll
	// the Measure tab (measure.go) and its side panel
	measTab  *container.TabItem
	mp       *panel.Measure
	measSide *container.Scroll
	arc      *panel.Archive // the Archive tab (panel/archive.go)
	arcTab   *container.TabItem

	paused     bool
	lastFrames uint64    // Engine.Frames at the last pull
	pullDue    time.Time // the views pull no sooner (pullShare)
	pullShare  int       // 1/pullShare of the ticks' time at most goes to the views' pulls (0: no limit)
	monitorOn  bool      // the monitor output is on (not saved: it starts off)
	stats      live.Stats
	chans      []int
	cfg        [4]int    // rate, channels, FFT, hop the views are set up for
	cfgAt      time.Time // when cfg last changed (w.now)
	cfgFrames  uint64    // LiveStats.Frames then
	anim       *fyne.Animation
	dog        watchdog.Watchdog // with a trace: reports a tick that stopped running
	statusDue  time.Time
	notice     string
	now        func() time.Time
	lastEngine string
	readyDone  bool

	overlaySeen bool // an overlay (a dropdown's list) showed at a tick since (keys.go)

	dlg  *panel.Dialogs // the file dialogs and the recent folders
	note *panel.Notice  // the notice line above the status bar (news, failures in a user's words)
	pc   *panel.Plot    // the plot section (settings_view.go)

	// the live difference to a reference and the harmonics (references.go,
	// harmonics.go)
	diff        *view.LinePlot // the difference to a reference, live
	diffGrid    view.RefGrid
	rp          *panel.References         // the references
	refs        *view.RefSet              // theirs, drawn and subtracted here
	harm, fharm view.HarmonicMeter        // live and file
	harmFile    *analysis.FileSpectrogram // the file fharm measures (host.FileSpectrumShown)
}

// New builds the main window's content into win and starts pulling data
// from eng.
func New(a fyne.App, win fyne.Window, eng Engine, opts Options) *Window {
	w := &Window{app: a, win: win, eng: eng, opts: opts, notice: opts.Notice, do: opts.Do, now: time.Now, pullShare: pullShare}
	if w.do == nil {
		w.do = fyne.Do
	}
	w.ap = applier.New(eng)
	w.set = LoadSettings(a.Preferences())
	w.set.Source = eng.Source()
	if !eng.HasGPU() {
		w.set.Engine = "cpu"
	}
	w.build()
	w.applyTheme()
	w.applyDisplay()
	w.applyAnalysis()
	if w.set.Engine == "cpu" && eng.HasGPU() {
		w.ap.UseEngine("cpu")
	}
	w.installKeys()
	w.installTransferKeys()
	w.rp.LoadKept()
	win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) {
		if len(uris) > 0 {
			w.fp.OpenFile(uris[0].Path())
		}
	})
	if !opts.Manual {
		if opts.Trace != nil {
			w.dog.Start(os.Stderr, watchdog.StallAfter)
		}
		w.anim = fyne.NewAnimation(time.Second, func(float32) { w.Pull() })
		w.anim.RepeatCount = fyne.AnimationRepeatForever
		w.anim.Curve = fyne.AnimationLinear
		w.anim.Start()
	}
	win.SetOnClosed(w.Close)
	if opts.File != "" {
		w.fp.OpenFile(opts.File)
	}
	return w
}

// Close stops the per-frame pull and any file analysis.
func (w *Window) Close() {
	if w.anim != nil {
		w.anim.Stop()
	}
	w.closeTransfer()
	w.mp.Close()
	w.dog.Close()
	w.fp.Close()
	w.arc.Close()
	w.ap.Close()
	w.set.Save(w.app.Preferences())
	w.saveWindowSize()
}

// statusText is the status area's text: the strip, the line under it and
// the details.
func (w *Window) statusText() string {
	return w.bar.Strip() + "\n" + w.bar.Line() + "\n" + w.bar.Details()
}

// statusStrip is the strip's text alone (what shows at any window width).
func (w *Window) statusStrip() string { return w.bar.Strip() }

func (w *Window) build() {
	s := w.set
	w.note = panel.NewNotice(w.win)
	w.note.Verbose = w.opts.Verbose
	w.dlg = panel.NewDialogs(w.win, w.app.Preferences(), prefRecent, w.note)
	w.rp = panel.NewReferences((*host)(w), w.win, w.opts.ReferenceDir)
	w.refs = w.rp.Set()
	w.cal = panel.NewCalibration((*host)(w), w.eng, w.eng, w.win, w.do)
	w.spec = view.NewSpectrumView(48000, s.FFT, s.FreqScale, s.DBMin, s.DBMax)
	w.wf = view.NewWaterfall(48000, s.FFT, s.Hop(), s.FreqScale, s.Colormap, s.DBMin, s.DBMax, s.Span)
	w.rta = view.NewRTAView(48000, s.DBMin, s.DBMax)
	w.sp = panel.NewScope(w.eng, w.do)
	w.fp = panel.NewFiles((*host)(w), w.eng, w.win, w.do)
	w.fp.UsePreferences(w.app.Preferences()) // the file view's analysis mode (panel.FileModeSettings)
	w.fview, w.fspec, w.fdiff, w.fab = w.fp.Views()
	w.buildMeasureViews()

	lower := container.NewStack(w.wf, w.rta, w.sp.Views())
	w.lvl = view.NewMetersView()
	pe, _ := w.eng.(panel.PlayEngine) // nil: the engine plays no files
	w.play = panel.NewFilePlay((*host)(w), pe, w.fview, w.do, &w.set.Band, w.rp.StoreTrace)
	file := container.NewBorder(w.play.Build(), nil, nil, nil, w.fp.Build(w.openDialog))
	w.lh = panel.NewLevelHistory(w.eng, (*host)(w), w.note, w.sourceName)
	live := container.NewBorder(nil, w.lh.Object(), nil, w.lvl, container.NewGridWithRows(2, container.NewStack(w.spec, w.diff), lower))
	w.liveTab = container.NewTabItem("Live", live)
	w.fileTab = container.NewTabItem("File", file)
	w.buildTransfer()
	w.buildMeasure()
	w.arc = panel.NewArchive(w.eng, w.fp, w.dlg, w.do)
	w.arc.UsePreferences(w.app.Preferences()) // the side panel's choices (panel.ArchiveSettings)
	w.arcTab = container.NewTabItem("Archive", w.arc.Build())
	w.tabs = container.NewAppTabs(w.liveTab, w.fileTab, w.xferTab, w.measTab, w.arcTab)
	w.tabs.OnSelected = func(t *container.TabItem) {
		w.eng.SetPaused(t != w.liveTab) // no live analysis while a file or the transfer function is shown
		w.showWorkspace(t)
		w.showMeasure(t)
		w.arc.Show(t == w.arcTab, w.liveSide) // the Archive's side panel instead of the Live one
		w.updateStatus()
	}
	w.bar = panel.NewStatusBar(w.win, w.updateStatus)
	w.rec = panel.NewRecord(w.eng, (*host)(w), w.note, w.do, w.sourceName)
	recBtn, exportBtn := w.rec.Buttons()
	statusBar := container.NewVBox(w.note.Object(), w.bar.Build(container.NewHBox(w.rec.AudioButton(), recBtn, exportBtn)))
	exports := w.buildPlotControls(container.NewGridWithColumns(2,
		widget.NewButton("Export PNG", w.exportPNGDialog),
		widget.NewButton("Export spectrum", w.exportSpectrumDialog)))
	var panel fyne.CanvasObject
	w.c, panel = newControls(w, w.win, w.eng.InputDevices, w.eng.HasGPU(), w.cal.Build(), w.rp.Build(), exports)
	w.liveSide = container.NewVScroll(container.NewVBox(w.sp.Section(), panel)) // the scope's section on top, while shown
	w.xferSide = container.NewVScroll(w.tp.Content())
	w.xferSide.Hide()
	side := container.NewStack(w.liveSide, w.xferSide, w.measSide, w.arc.Side())
	w.liveSide.SetMinSize(fyne.NewSize(250, 200))
	w.xferSide.SetMinSize(fyne.NewSize(280, 200))
	w.win.SetContent(container.NewBorder(nil, statusBar, side, nil, w.tabs))
}

// Pull is the per-frame tick: it copies the newest spectra and columns
// into the views (unless paused) and, four times a second, refreshes the
// status bar. Apart from the status text it does not allocate in steady
// state.
func (w *Window) Pull() {
	now := time.Now()
	w.dog.Ticked()
	w.releaseSelectFocus()
	w.countFrame(now)
	w.measureFileDue(w.now())
	w.play.Pull()
	w.fp.Bandwidth.Sync()
	if now.After(w.statusDue) {
		w.statusDue = now.Add(250 * time.Millisecond)
		w.eng.ReadStats(&w.stats)
		w.syncConfig()
		w.tp.Sync(w.stats.Channels)
		w.mp.Sync(w.stats.Channels)
		w.updateStatus()
		w.note.Tick()
	}
	if !w.paused && w.tabs.Selected() == w.xferTab {
		w.pullTransfer()
		return
	}
	if w.paused || w.tabs.Selected() != w.liveTab || len(w.chans) == 0 {
		return
	}
	w.lvl.Pull(w.eng) // every tick: the meters move between frames
	w.lh.Pull()
	// nothing analyzed since the last frame: nothing to redraw (Fyne then
	// skips the repaint, which is most of the window's CPU)
	f := w.eng.Frames()
	start := w.now()
	if f == w.lastFrames || start.Before(w.pullDue) {
		return
	}
	w.lastFrames = f
	w.spec.Pull(w.cal.Source(), w.chans)
	w.measureLive(w.now())
	w.updateDiff(w.spec, w.diff, &w.diffGrid, w.set.Averaging)
	switch w.set.Lower {
	case "rta":
		w.rta.Pull(w.cal.Source(), w.lowerChannel())
	case "waterfall":
		w.wf.Pull(w.eng, w.lowerChannel())
	default:
		w.sp.Pull()
	}
	if w.pullShare > 1 {
		w.pullDue = start.Add(w.now().Sub(start) * time.Duration(w.pullShare))
	}
}

// pullShare is the views' pulls' share of the window's time at most, as
// 1/pullShare: a pull that took d starts the next no sooner than
// pullShare·d after it began, so the window keeps drawing, answering keys
// and moving the meters when pulls are slow (the traces of a 2^20-point
// FFT are half a million logarithms each). At the usual sizes a pull
// takes a few milliseconds and every tick pulls.
const pullShare = 3

// syncConfig follows the analysis's rate, channels, FFT size and hop into
// the views.
func (w *Window) syncConfig() {
	st := &w.stats
	if st.SampleRate <= 0 || st.FFT <= 0 {
		return
	}
	cfg := [4]int{st.SampleRate, st.Channels, st.FFT, st.Hop}
	if cfg != w.cfg {
		w.cfg, w.cfgAt, w.cfgFrames = cfg, w.now(), st.Frames
		w.spec.SetConfig(st.SampleRate, st.FFT, w.set.FreqScale)
		w.wf.SetConfig(st.SampleRate, st.FFT, st.Hop, w.set.FreqScale)
		w.rta.SetRate(st.SampleRate)
		w.markBand()
	}
	w.chans = w.chans[:0]
	if c := singleChannel(w.set.Channels); c >= 0 && c < st.Channels && st.Channels > 1 {
		w.chans = append(w.chans, c) // one channel alone, in its own colour
		w.spec.SetChannels(channelName(c, st.Channels))
		w.spec.SetChannelIndex(c)
	} else if w.set.Channels == "all" && st.Channels > 1 {
		w.spec.SetChannelIndex()
		for c := range st.Channels {
			w.chans = append(w.chans, c)
		}
		switch st.Channels {
		case 2:
			w.spec.SetChannels("L", "R")
		default:
			w.spec.SetChannels(channelNames[:min(st.Channels, len(channelNames))]...)
		}
	} else {
		w.chans = append(w.chans, st.Channels) // the mix
		w.spec.SetChannelIndex()
		if st.Channels > 1 {
			w.spec.SetChannels(view.MixName)
		} else {
			w.spec.SetChannels("mono")
		}
	}
	if st.Engine != w.lastEngine {
		w.lastEngine = st.Engine
		w.trace("engine", map[string]any{"engine": st.Engine, "device": st.Device})
		w.syncControls()
	}
	if !w.readyDone && w.win.Canvas().Size().Width > 0 && w.spec.Area().Dx() > 0 { // laid out and drawn once
		w.readyDone = true
		w.traceReady()
	}
}

// channelNames name the channels of a multichannel input in the legend.
var channelNames = []string{"ch 1", "ch 2", "ch 3", "ch 4", "ch 5", "ch 6", "ch 7", "ch 8"}
