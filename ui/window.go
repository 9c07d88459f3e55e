package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
)

// Options start a Window.
type Options struct {
	File   string    // open this file in the File tab at start
	Notice string    // shown in the status bar at start (e.g. why the GPU is not used)
	Trace  io.Writer // if set, JSON lines: "ready", "engine" and once a second "perf" events
	// Manual leaves the per-frame pull to the caller (tests call Pull);
	// otherwise an endless animation calls it before every paint.
	Manual bool
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
	do   func(func()) // onto the Fyne goroutine

	spec  *SpectrumView
	wf    *Waterfall
	rta   *RTAView
	fview *FileView
	fspec *SpectrumView

	tabs     *container.AppTabs
	liveTab  *container.TabItem
	fileTab  *container.TabItem
	status   *widget.Label
	speed    *widget.Label
	fileInfo *widget.Label
	progress *widget.ProgressBar
	cancel   *widget.Button
	c        controls

	paused     bool
	lastFrames uint64 // Engine.Frames at the last pull
	monitorOn  bool   // the monitor output is on (not saved: it starts off)
	stats      live.LiveStats
	chans      []int
	cfg        [4]int // rate, channels, FFT, hop the views are set up for
	anim       *fyne.Animation
	ticks      int
	tickMark   time.Time
	fps        float64
	cpuMark    time.Duration
	cpuPct     float64
	statusDue  time.Time
	notice     string
	lastEngine string
	readyDone  bool

	fileCtx      context.CancelFunc
	detailCancel context.CancelFunc
	detailTimer  *time.Timer
	fileGen      int
}

// New builds the main window's content into win and starts pulling data
// from eng.
func New(a fyne.App, win fyne.Window, eng Engine, opts Options) *Window {
	w := &Window{app: a, win: win, eng: eng, opts: opts, notice: opts.Notice, do: opts.Do}
	if w.do == nil {
		w.do = fyne.Do
	}
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
		eng.UseEngine("cpu")
	}
	w.installKeys()
	win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) {
		if len(uris) > 0 {
			w.OpenFile(uris[0].Path())
		}
	})
	if !opts.Manual {
		w.anim = fyne.NewAnimation(time.Second, func(float32) { w.Pull() })
		w.anim.RepeatCount = fyne.AnimationRepeatForever
		w.anim.Curve = fyne.AnimationLinear
		w.anim.Start()
	}
	win.SetOnClosed(w.Close)
	if opts.File != "" {
		w.OpenFile(opts.File)
	}
	return w
}

// Close stops the per-frame pull and any file analysis.
func (w *Window) Close() {
	if w.anim != nil {
		w.anim.Stop()
	}
	if w.fileCtx != nil {
		w.fileCtx()
	}
	if w.detailCancel != nil {
		w.detailCancel()
	}
	w.set.Save(w.app.Preferences())
}

// Settings are the current settings.
func (w *Window) Settings() Settings { return w.set }

// Spectrum, Waterfall, RTA and FileView give tests and the desktop
// package the views.
func (w *Window) Spectrum() *SpectrumView { return w.spec }

// Waterfall is the live waterfall.
func (w *Window) Waterfall() *Waterfall { return w.wf }

// RTA is the live band-level view.
func (w *Window) RTA() *RTAView { return w.rta }

// FileView is the file tab's spectrogram.
func (w *Window) FileView() *FileView { return w.fview }

// StatusText is the status bar's text.
func (w *Window) StatusText() string { return w.status.Text + "\n" + w.speed.Text }

func (w *Window) build() {
	s := w.set
	w.spec = NewSpectrumView(48000, s.FFT, s.FreqScale, s.DBMin, s.DBMax)
	w.wf = NewWaterfall(48000, s.FFT, s.Hop(), s.FreqScale, s.Colormap, s.DBMin, s.DBMax, s.Span)
	w.rta = NewRTAView(48000, s.DBMin, s.DBMax)
	w.fview = NewFileView(s.FreqScale, s.Colormap, s.DBMin, s.DBMax)
	w.fspec = NewSpectrumView(48000, s.FFT, s.FreqScale, s.DBMin, s.DBMax)
	w.fspec.SetTraces(AvgOff, false)
	w.fspec.SetTitle("the spectrum under the cursor")
	w.fview.OnCursor = w.fileCursor
	w.fview.OnView = w.fileViewChanged

	lower := container.NewStack(w.wf, w.rta)
	liveView := container.NewGridWithRows(2, w.spec, lower)
	w.fileInfo = widget.NewLabel("No file open.")
	w.fileInfo.Truncation = fyne.TextTruncateEllipsis
	w.progress = widget.NewProgressBar()
	w.progress.Hide()
	w.cancel = widget.NewButton("Cancel", func() {
		if w.fileCtx != nil {
			w.fileCtx()
		}
	})
	w.cancel.Hide()
	fileBar := container.NewBorder(nil, nil,
		container.NewHBox(
			widget.NewButton("Open…", w.openDialog),
			widget.NewButton("Whole file", func() { w.zoomReset() }),
			widget.NewButton("Export spectrogram…", w.exportSpectrogramDialog),
		),
		container.NewHBox(w.progress, w.cancel), w.fileInfo)
	file := container.NewBorder(fileBar, nil, nil, nil, container.NewVSplit(w.fview, w.fspec))
	file.Objects[0].(*container.Split).Offset = 0.65
	w.liveTab = container.NewTabItem("Live", liveView)
	w.fileTab = container.NewTabItem("File", file)
	w.tabs = container.NewAppTabs(w.liveTab, w.fileTab)
	w.status = widget.NewLabel("starting…")
	w.status.Truncation = fyne.TextTruncateEllipsis
	w.speed = widget.NewLabel("")
	w.speed.Truncation = fyne.TextTruncateEllipsis
	statusBar := container.NewVBox(widget.NewSeparator(), w.status, w.speed)
	side := container.NewVScroll(w.buildControls())
	side.SetMinSize(fyne.NewSize(250, 200))
	w.win.SetContent(container.NewBorder(nil, statusBar, side, nil, w.tabs))
}

// Pull is the per-frame tick: it copies the newest spectra and columns
// into the views (unless paused) and, four times a second, refreshes the
// status bar. Apart from the status text it does not allocate in steady
// state.
func (w *Window) Pull() {
	now := time.Now()
	w.countFrame(now)
	if now.After(w.statusDue) {
		w.statusDue = now.Add(250 * time.Millisecond)
		w.eng.ReadStats(&w.stats)
		w.syncConfig()
		w.updateStatus()
	}
	if w.paused || w.tabs.Selected() != w.liveTab || len(w.chans) == 0 {
		return
	}
	// nothing analyzed since the last frame: nothing to redraw (Fyne then
	// skips the repaint, which is most of the window's CPU)
	f := w.eng.Frames()
	if f == w.lastFrames {
		return
	}
	w.lastFrames = f
	w.spec.Pull(w.eng, w.chans)
	if w.set.Lower == "rta" {
		w.rta.Pull(w.eng, w.stats.Channels)
	} else {
		w.wf.Pull(w.eng, w.stats.Channels)
	}
}

// countFrame keeps the frames-per-second and CPU-load figures.
func (w *Window) countFrame(now time.Time) {
	w.ticks++
	if w.tickMark.IsZero() {
		w.tickMark = now
		w.cpuMark, _ = live.ProcessCPU()
		return
	}
	if d := now.Sub(w.tickMark); d >= time.Second {
		w.fps = float64(w.ticks) / d.Seconds()
		cpu, ok := live.ProcessCPU()
		if ok {
			w.cpuPct = 100 * (cpu - w.cpuMark).Seconds() / d.Seconds()
		}
		w.ticks, w.tickMark, w.cpuMark = 0, now, cpu
		w.trace("perf", map[string]any{"fps": w.fps, "cpu_percent": w.cpuPct, "engine": w.stats.Engine,
			"ms_per_batch": w.stats.MsPerBatch, "engine_ms": w.stats.EngineMs, "frames_per_s": w.stats.FramesPerSec,
			"latency_p99_ms": w.stats.LatencyP99Ms, "dropped": w.stats.DroppedFrames, "status": w.status.Text})
	}
}

// FPS is the frames drawn per second, measured over the last second.
func (w *Window) FPS() float64 { return w.fps }

// syncConfig follows the analysis's rate, channels, FFT size and hop into
// the views.
func (w *Window) syncConfig() {
	st := &w.stats
	if st.SampleRate <= 0 || st.FFT <= 0 {
		return
	}
	cfg := [4]int{st.SampleRate, st.Channels, st.FFT, st.Hop}
	if cfg != w.cfg {
		w.cfg = cfg
		w.spec.SetConfig(st.SampleRate, st.FFT, w.set.FreqScale)
		w.wf.SetConfig(st.SampleRate, st.FFT, st.Hop, w.set.FreqScale)
		w.rta.SetRate(st.SampleRate)
		w.markBand()
	}
	w.chans = w.chans[:0]
	if w.set.Channels == "all" && st.Channels > 1 {
		for c := range st.Channels {
			w.chans = append(w.chans, c)
		}
	} else {
		w.chans = append(w.chans, st.Channels) // the mix
	}
	if st.Engine != w.lastEngine {
		w.lastEngine = st.Engine
		w.trace("engine", map[string]any{"engine": st.Engine, "device": st.Device})
		w.syncControls()
	}
	if !w.readyDone && w.win.Canvas().Size().Width > 0 && w.spec.area.Dx() > 0 { // laid out and drawn once
		w.readyDone = true
		w.traceReady()
	}
}

// engineLabel names an engine for people.
func engineLabel(name string) string {
	if name == "opencl" {
		return "GPU"
	}
	return strings.ToUpper(name)
}

func (w *Window) updateStatus() {
	st := &w.stats
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %d Hz × %d · N=%d hop %d · %s (%s) · %.2f ms/batch · %.0f frames/s · latency p99 %.1f ms · dropped %d · stalls %d · UI %.0f fps, CPU %.0f%%",
		st.Source, st.SampleRate, st.Channels, st.FFT, st.Hop, engineLabel(st.Engine), st.Device, st.MsPerBatch,
		st.FramesPerSec, st.LatencyP99Ms, st.DroppedFrames+st.Overflows, st.Stalls, w.fps, w.cpuPct)
	if w.paused {
		b.WriteString(" · PAUSED")
	}
	w.status.SetText(b.String())
	b.Reset()
	gpu, okG := st.EngineMs["opencl"]
	cpu, okC := st.EngineMs["cpu"]
	switch {
	case okG && okC && gpu > 0 && cpu >= gpu:
		fmt.Fprintf(&b, "per batch: GPU %.3f ms · CPU %.3f ms → GPU %.1f× faster", gpu, cpu, cpu/gpu)
	case okG && okC && cpu > 0:
		fmt.Fprintf(&b, "per batch: GPU %.3f ms · CPU %.3f ms → CPU %.1f× faster", gpu, cpu, gpu/cpu)
	case okC:
		fmt.Fprintf(&b, "per batch: CPU %.3f ms", cpu)
	}
	if mo := w.eng.MonitorOutput(); mo != "" {
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(mo)
	}
	msg := st.Status
	if msg == "" {
		msg = w.notice
	}
	if msg != "" {
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		b.WriteString("⚠ " + msg)
	}
	w.speed.SetText(b.String())
}

// trace writes a JSON event line when tracing.
func (w *Window) trace(event string, fields map[string]any) {
	if w.opts.Trace == nil {
		return
	}
	fields["event"] = event
	line, err := json.Marshal(fields)
	if err == nil {
		w.opts.Trace.Write(append(line, '\n'))
	}
}

// traceReady reports the window's and the spectrum plot's geometry (in
// pixels of the window) and its frequency axis, so a smoke test can find
// a tone in a screenshot.
func (w *Window) traceReady() {
	if w.opts.Trace == nil {
		return
	}
	scale := w.win.Canvas().Scale()
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(w.spec)
	ap, as := w.spec.PlotArea()
	ax := w.spec.Axis()
	size := w.win.Canvas().Size()
	w.trace("ready", map[string]any{
		"window": []float32{size.Width * scale, size.Height * scale},
		"plot":   []float32{(pos.X + ap.X) * scale, (pos.Y + ap.Y) * scale, as.Width * scale, as.Height * scale},
		"axis":   map[string]any{"scale": ax.Scale, "low": ax.Low, "high": ax.High},
		"db":     []float64{w.set.DBMin, w.set.DBMax},
	})
}

// ---- settings → analysis and views

// change applies fn to the settings, saves them, and applies what changed.
func (w *Window) change(fn func(s *Settings)) {
	prev := w.set
	fn(&w.set)
	w.set.Save(w.app.Preferences())
	if w.set.Engine != prev.Engine {
		w.eng.UseEngine(w.set.Engine)
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
	} else if !sameLive(pl, nl) {
		w.applyAnalysis()
	}
	if w.set.Theme != prev.Theme {
		w.applyTheme()
	}
	w.applyDisplay()
	w.syncControls()
	w.win.Canvas().Unfocus()
}

func sameLive(a, b live.LiveSettings) bool {
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
	w.eng.Apply(l)
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
	for _, v := range []*SpectrumView{w.spec, w.fspec} {
		v.SetRange(s.DBMin, s.DBMax)
		v.SetDark(dark)
	}
	w.spec.SetConfig(rate, fft, s.FreqScale)
	w.spec.SetTraces(s.Averaging, s.PeakHold != 0)
	if fs := w.fview.File(); fs != nil {
		w.fspec.SetConfig(fs.Rate, fs.FFT, s.FreqScale)
	}
	w.wf.SetRange(s.DBMin, s.DBMax)
	w.wf.SetColormap(s.Colormap)
	w.wf.SetDark(dark)
	if w.wf.span != s.Span {
		w.wf.SetSpan(s.Span)
	}
	if w.wf.scale != s.FreqScale && w.cfg[0] > 0 {
		w.wf.SetConfig(w.cfg[0], w.cfg[2], w.cfg[3], s.FreqScale)
	}
	w.rta.SetRange(s.DBMin, s.DBMax)
	w.rta.SetBands(s.Fraction, s.Weighting)
	w.rta.SetDark(dark)
	w.fview.SetRange(s.DBMin, s.DBMax)
	w.fview.SetColormap(s.Colormap)
	w.fview.SetScale(s.FreqScale)
	w.fview.SetDark(dark)
	if s.Lower == "rta" {
		w.wf.Hide()
		w.rta.Show()
	} else {
		w.rta.Hide()
		w.wf.Show()
	}
	w.markBand()
	for _, o := range []fyne.Widget{w.spec, w.wf, w.rta, w.fview, w.fspec} {
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
	if w.set.Band != "" {
		if b, err := parseBand(w.set.Band, rate); err == nil {
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
func (w *Window) setSource(spec live.SourceSpec) {
	w.notice = "switching to " + spec.String() + "…"
	go func() {
		notice, err := w.eng.SetSource(spec)
		w.do(func() {
			switch {
			case err != nil:
				w.notice = err.Error()
				w.set.Source = w.eng.Source()
				w.syncControls()
				dialog.ShowError(err, w.win)
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
	band, err := dsp.ParseBand(w.set.Band)
	go func() {
		if err == nil {
			err = w.eng.SetMonitorOutput(on, band)
		}
		w.do(func() {
			if err != nil {
				w.monitorOn = false
				w.c.monitor.SetChecked(false)
				dialog.ShowError(err, w.win)
			}
			w.updateStatus()
		})
	}()
}

// TogglePause freezes or resumes the display (the analysis carries on).
func (w *Window) TogglePause() {
	w.paused = !w.paused
	w.c.pause.SetText(pauseText(w.paused))
	w.updateStatus()
}

func pauseText(paused bool) string {
	if paused {
		return "Resume (Space)"
	}
	return "Pause (Space)"
}

// ToggleEngine switches GPU ↔ CPU.
func (w *Window) ToggleEngine() {
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

// ---- files

// OpenFile analyzes a whole file in the background, with progress and
// cancel, and shows it in the File tab.
func (w *Window) OpenFile(path string) {
	if w.fileCtx != nil {
		w.fileCtx()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.fileCtx = cancel
	w.fileGen++
	gen := w.fileGen
	w.tabs.Select(w.fileTab)
	w.fileInfo.SetText("Analyzing " + filepath.Base(path) + "…")
	w.progress.SetValue(0)
	w.progress.Show()
	w.cancel.Show()
	o, err := w.viewOptions()
	if err != nil {
		w.fileDone(gen, nil, err)
		return
	}
	o.MaxColumns = 4096
	go func() {
		last := time.Time{}
		fs, err := w.eng.AnalyzeView(ctx, path, o, func(done, total int) {
			if now := time.Now(); now.Sub(last) > 50*time.Millisecond && total > 0 {
				last = now
				w.do(func() {
					if gen == w.fileGen {
						w.progress.SetValue(float64(done) / float64(total))
					}
				})
			}
		})
		w.do(func() { w.fileDone(gen, fs, err) })
	}()
}

func (w *Window) viewOptions() (analysis.ViewOptions, error) {
	win, err := live.ParseWindow(w.set.Window)
	if err != nil {
		return analysis.ViewOptions{}, err
	}
	return analysis.ViewOptions{FFT: w.set.FFT, Hop: w.set.Hop(), Window: win, Channel: -1}, nil
}

func (w *Window) fileDone(gen int, fs *analysis.FileSpectrogram, err error) {
	if gen != w.fileGen {
		return
	}
	w.progress.Hide()
	w.cancel.Hide()
	w.fileCtx = nil
	switch {
	case err != nil && strings.Contains(err.Error(), context.Canceled.Error()):
		w.fileInfo.SetText("Analysis cancelled.")
		return
	case err != nil:
		w.fileInfo.SetText("Could not analyze: " + err.Error())
		dialog.ShowError(err, w.win)
		return
	}
	w.fview.SetFile(fs)
	w.fspec.SetConfig(fs.Rate, fs.FFT, w.set.FreqScale)
	info := fmt.Sprintf("%s · %d Hz × %d · %s · N=%d hop %d · %d frames in %.2f s on %s",
		filepath.Base(fs.Path), fs.Rate, fs.Channels, plot.FormatSeconds(fs.Duration, fs.Duration), fs.FFT, fs.Hop, fs.Frames,
		fs.Elapsed.Seconds(), fs.Engine)
	if len(fs.Warnings) > 0 {
		info += " · ⚠ " + strings.Join(fs.Warnings, "; ")
	}
	w.fileInfo.SetText(info)
}

// fileCursor shows the spectrum of the column under the cursor.
func (w *Window) fileCursor(sp *live.Spectrum, t float64, ok bool) {
	if !ok || sp == nil {
		return
	}
	w.fspec.SetTitle("at " + plot.FormatSeconds(t, 1))
	w.fspec.ShowSpectrum(sp)
}

// fileViewChanged schedules a finer analysis of the visible region once
// zooming settles.
func (w *Window) fileViewChanged(t0, t1 float64) {
	if w.detailTimer != nil {
		w.detailTimer.Stop()
	}
	fs := w.fview.File()
	if fs == nil {
		return
	}
	width := max(64, w.fview.area.Dx())
	visibleFrames := (t1 - t0) * float64(fs.Rate) / float64(fs.Hop)
	if fs.FramesPerColumn <= 1 && visibleFrames >= float64(width) {
		return // the overview already has a frame per pixel or more
	}
	gen := w.fileGen
	w.detailTimer = time.AfterFunc(300*time.Millisecond, func() {
		w.do(func() { w.analyzeDetail(gen, t0, t1, width) })
	})
}

// analyzeDetail re-analyzes t0…t1 with a hop that gives about two frames
// per pixel (never coarser than the overview's).
func (w *Window) analyzeDetail(gen int, t0, t1 float64, width int) {
	fs := w.fview.File()
	if fs == nil || gen != w.fileGen {
		return
	}
	if w.detailCancel != nil {
		w.detailCancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.detailCancel = cancel
	o := analysis.ViewOptions{FFT: fs.FFT, Window: fs.Window, Channel: fs.Channel, Start: t0, End: t1, MaxColumns: 2 * width}
	samples := (t1 - t0) * float64(fs.Rate)
	o.Hop = min(fs.Hop, max(1, fs.FFT/64, int(samples/float64(2*width))))
	// widen by half a frame on each side so the view's edges are covered
	pad := float64(fs.FFT) / float64(fs.Rate)
	o.Start, o.End = max(0, t0-pad), t1+pad
	go func() {
		d, err := w.eng.AnalyzeView(ctx, fs.Path, o, nil)
		w.do(func() {
			if err != nil || gen != w.fileGen {
				return
			}
			w.fview.SetDetail(d)
		})
	}()
}

func (w *Window) zoomReset() {
	if fs := w.fview.File(); fs != nil {
		w.fview.SetView(0, fs.Duration)
	}
}

func (w *Window) openDialog() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			dialog.ShowError(err, w.win)
			return
		}
		if r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		w.OpenFile(path)
	}, w.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".wav", ".WAV", ".flac", ".FLAC", ".mp3", ".MP3", ".rf64"}))
	d.Show()
}

// saveDialog asks for a path and calls fn with it.
func (w *Window) saveDialog(name string, fn func(path string)) {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil {
			dialog.ShowError(err, w.win)
			return
		}
		if wc == nil {
			return
		}
		path := wc.URI().Path()
		wc.Close()
		fn(path)
	}, w.win)
	d.SetFileName(name)
	d.Show()
}

// ExportPNG writes the current view (the live plots, or the file view and
// its spectrum) as one PNG.
func (w *Window) ExportPNG(path string) error {
	var imgs []*image.RGBA
	if w.tabs.Selected() == w.fileTab {
		imgs = append(imgs, w.fview.Image(), w.fspec.Image())
	} else {
		imgs = append(imgs, w.spec.Image())
		if w.set.Lower == "rta" {
			imgs = append(imgs, w.rta.Image())
		} else {
			imgs = append(imgs, w.wf.Image())
		}
	}
	return encode.WritePNG(path, stack(imgs))
}

// stack puts images one above the other.
func stack(imgs []*image.RGBA) *image.RGBA {
	wd, ht := 1, 0
	for _, m := range imgs {
		if m != nil {
			wd, ht = max(wd, m.Rect.Dx()), ht+m.Rect.Dy()
		}
	}
	out := image.NewRGBA(image.Rect(0, 0, wd, max(1, ht)))
	y := 0
	for _, m := range imgs {
		if m == nil {
			continue
		}
		draw.Draw(out, image.Rect(0, y, m.Rect.Dx(), y+m.Rect.Dy()), m, m.Rect.Min, draw.Src)
		y += m.Rect.Dy()
	}
	return out
}

// ExportSpectrum writes the current spectrum, its average and its peak
// hold (live: the first channel shown; file: the column under the cursor)
// as CSV or NPY, by the path's extension.
func (w *Window) ExportSpectrum(path string) error {
	format, ok := encode.FormatOf(path)
	if !ok || format == encode.FormatPNG {
		return fmt.Errorf("%s: export the spectrum as .csv or .npy", filepath.Base(path))
	}
	var sp *live.Spectrum
	if w.tabs.Selected() == w.fileTab {
		if w.fspec.n == 0 {
			return fmt.Errorf("no spectrum: move the cursor over the file first")
		}
		sp = &w.fspec.spectra[0]
	} else {
		if w.spec.n == 0 {
			return fmt.Errorf("no spectrum yet")
		}
		sp = &w.spec.spectra[0]
	}
	traces := []encode.Trace{{Name: "current_dbfs", DB: sp.Current}}
	avg := sp.ExpAvg
	if w.set.Averaging == AvgLin {
		avg = sp.LinAvg
	}
	if len(avg) == len(sp.Current) {
		traces = append(traces, encode.Trace{Name: "average_dbfs", DB: avg})
	}
	if len(sp.PeakHold) == len(sp.Current) {
		traces = append(traces, encode.Trace{Name: "peak_hold_dbfs", DB: sp.PeakHold})
	}
	return encode.WriteTraces(path, format, sp.BinHz, traces)
}

func (w *Window) exportPNGDialog() {
	w.saveDialog("prism.png", func(path string) {
		if err := w.ExportPNG(path); err != nil {
			dialog.ShowError(err, w.win)
		}
	})
}

func (w *Window) exportSpectrumDialog() {
	w.saveDialog("spectrum.csv", func(path string) {
		if err := w.ExportSpectrum(path); err != nil {
			dialog.ShowError(err, w.win)
		}
	})
}

// exportSpectrogramDialog writes the open file's whole spectrogram (NPY,
// CSV or PNG, as `prism analyze` would) with progress.
func (w *Window) exportSpectrogramDialog() {
	fs := w.fview.File()
	if fs == nil {
		dialog.ShowInformation("Export spectrogram", "Open a file first.", w.win)
		return
	}
	base := strings.TrimSuffix(filepath.Base(fs.Path), filepath.Ext(fs.Path))
	w.saveDialog(base+".npy", func(path string) { w.ExportSpectrogram(path, nil) })
}

// ExportSpectrogram writes the open file's spectrogram to path in the
// background; done (optional) gets the outcome on the Fyne goroutine.
func (w *Window) ExportSpectrogram(path string, done func(error)) {
	fs := w.fview.File()
	report := func(err error) {
		if err != nil {
			dialog.ShowError(err, w.win)
		}
		if done != nil {
			done(err)
		}
	}
	if fs == nil {
		report(fmt.Errorf("no file open"))
		return
	}
	format, ok := encode.FormatOf(path)
	if !ok {
		report(fmt.Errorf("%s: export as .npy, .csv or .png", filepath.Base(path)))
		return
	}
	o := analysis.ViewOptions{FFT: fs.FFT, Hop: fs.Hop, Window: fs.Window, Channel: fs.Channel}
	scale, err1 := plot.ParseScale(w.set.FreqScale)
	cmap, err2 := plot.ParseColormap(w.set.Colormap)
	if err := errors.Join(err1, err2); err != nil {
		report(err)
		return
	}
	img := plot.ImageOptions{Width: 1920, Height: 1080, Scale: scale, DBMin: w.set.DBMin, DBMax: w.set.DBMax, Colormap: cmap}
	ctx, cancel := context.WithCancel(context.Background())
	w.fileCtx = cancel
	w.progress.SetValue(0)
	w.progress.Show()
	w.cancel.Show()
	w.fileInfo.SetText("Exporting " + filepath.Base(path) + "…")
	go func() {
		err := w.eng.ExportSpectrogram(ctx, fs.Path, path, format, o, img, func(d, t int) {
			if t > 0 && d%64 == 0 {
				w.do(func() { w.progress.SetValue(float64(d) / float64(t)) })
			}
		})
		w.do(func() {
			w.progress.Hide()
			w.cancel.Hide()
			w.fileCtx = nil
			if err == nil {
				w.fileInfo.SetText("Wrote " + path)
			} else {
				w.fileInfo.SetText("Export failed: " + err.Error())
			}
			report(err)
		})
	}()
}

// ---- keyboard

// Keys lists the keyboard shortcuts (shown by the Keys button).
const Keys = `Space	pause / resume the display
G	GPU ↔ CPU engine
F	frequency scale: log → lin → mel
M	colormap
A	averaging: off → exponential → linear
H	peak hold on / off
R	reset averages and holds
V	waterfall ↔ RTA bars
T	dark ↔ light theme
[ ]	FFT size down / up
↑ ↓	dB range up / down by 10 dB
+ −	zoom the file view in / out
← →	pan the file view
0	whole file
Ctrl+O	open a file
Ctrl+S	export the view as PNG
Ctrl+E	export the spectrum (CSV/NPY)`

func (w *Window) installKeys() {
	c := w.win.Canvas()
	c.SetOnTypedKey(func(e *fyne.KeyEvent) { w.TypedKey(e.Name) })
	c.SetOnTypedRune(w.TypedRune)
	for k, fn := range map[fyne.KeyName]func(){
		fyne.KeyO: w.openDialog, fyne.KeyS: w.exportPNGDialog, fyne.KeyE: w.exportSpectrumDialog,
	} {
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}, func(fyne.Shortcut) { fn() })
	}
}

// TypedKey handles the named keys (when no entry has the focus).
func (w *Window) TypedKey(k fyne.KeyName) {
	switch k {
	case fyne.KeySpace:
		w.TogglePause()
	case fyne.KeyUp:
		w.change(func(s *Settings) { s.DBMin, s.DBMax = s.DBMin+10, s.DBMax+10 })
	case fyne.KeyDown:
		w.change(func(s *Settings) { s.DBMin, s.DBMax = s.DBMin-10, s.DBMax-10 })
	case fyne.KeyLeft:
		w.fview.Pan(-0.1)
	case fyne.KeyRight:
		w.fview.Pan(0.1)
	}
}

// TypedRune handles the letter shortcuts.
func (w *Window) TypedRune(r rune) {
	switch r {
	case 'g', 'G':
		w.ToggleEngine()
	case 'f', 'F':
		w.change(func(s *Settings) { s.FreqScale = next([]string{"log", "lin", "mel"}, s.FreqScale) })
	case 'm', 'M':
		w.change(func(s *Settings) { s.Colormap = next(plot.ColormapNames(), s.Colormap) })
	case 'a', 'A':
		w.change(func(s *Settings) { s.Averaging = next([]string{AvgOff, AvgExp, AvgLin}, s.Averaging) })
	case 'h', 'H':
		w.change(func(s *Settings) {
			if s.PeakHold != 0 {
				s.PeakHold = 0
			} else {
				s.PeakHold = 2
			}
		})
	case 'r', 'R':
		w.applyAnalysis()
	case 'v', 'V':
		w.change(func(s *Settings) { s.Lower = next([]string{"waterfall", "rta"}, s.Lower) })
	case 't', 'T':
		w.change(func(s *Settings) { s.Theme = next([]string{"dark", "light"}, s.Theme) })
	case '[':
		w.change(func(s *Settings) { s.FFT = max(64, s.FFT/2) })
	case ']':
		w.change(func(s *Settings) { s.FFT = min(65536, s.FFT*2) })
	case '+', '=':
		t0, t1 := w.fview.View()
		w.fview.Zoom(0.5, (t0+t1)/2)
	case '-':
		t0, t1 := w.fview.View()
		w.fview.Zoom(2, (t0+t1)/2)
	case '0':
		w.zoomReset()
	case ' ':
		w.TogglePause()
	}
}

// next is the option after cur (the first if cur is not there).
func next(opts []string, cur string) string {
	for i, o := range opts {
		if o == cur {
			return opts[(i+1)%len(opts)]
		}
	}
	return opts[0]
}
