package ui

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/view"
)

// statusBar is the status area: the strip (what must always show at
// 1280×800), the line under it (the source and the analysis, or the file
// shown) and the details behind the Details button; it keeps the
// window's frame rate and process CPU and the warning shown.
type statusBar struct {
	strip, line, details *widget.Label
	detailsBtn           *widget.Button
	win                  fyne.Window
	warn                 string    // the warning shown (engine status or notice)
	warnAt               time.Time // when it appeared
	ticks                int
	tickMark             time.Time
	cpuMark              time.Duration
	fps, cpuPct          float64
}

// statusFacts are what the status area shows, gathered by the window.
type statusFacts struct {
	st             *live.Stats
	rec            live.RecordStatus
	paused, hasGPU bool
	monitor        string // the monitor output ("" off)
	fill           string // fillText
	noise          string // mixNoiseNote
	file           string // the file shown, in place of the live line ("" live)
	now            time.Time
}

// newStatusBar makes the status area; refresh runs before the details
// open.
func newStatusBar(win fyne.Window, refresh func()) *statusBar {
	b := &statusBar{win: win, strip: widget.NewLabel("starting…"), line: widget.NewLabel(""), details: widget.NewLabel("")}
	b.strip.Truncation = fyne.TextTruncateEllipsis
	b.line.Truncation = fyne.TextTruncateEllipsis
	b.detailsBtn = widget.NewButton("Details", func() {
		refresh()
		b.showDetails()
	})
	return b
}

// countFrame counts a tick; once a second it measures the frames per
// second and the process's CPU, and says so (true).
func (b *statusBar) countFrame(now time.Time) bool {
	b.ticks++
	if b.tickMark.IsZero() {
		b.tickMark = now
		b.cpuMark, _ = live.ProcessCPU()
		return false
	}
	d := now.Sub(b.tickMark)
	if d < time.Second {
		return false
	}
	b.fps = float64(b.ticks) / d.Seconds()
	cpu, ok := live.ProcessCPU()
	if ok {
		b.cpuPct = 100 * (cpu - b.cpuMark).Seconds() / d.Seconds()
	}
	b.ticks, b.tickMark, b.cpuMark = 0, now, cpu
	return true
}

// countFrame keeps the frames-per-second and CPU-load figures.
func (w *Window) countFrame(now time.Time) {
	if w.bar.countFrame(now) {
		w.trace("perf", map[string]any{"fps": w.bar.fps, "cpu_percent": w.bar.cpuPct, "engine": w.stats.Engine,
			"ms_per_batch": w.stats.MsPerBatch, "engine_ms": w.stats.EngineMs, "frames_per_s": w.stats.FramesPerSec,
			"latency_p99_ms": w.stats.LatencyP99Ms, "dropped": w.stats.DroppedFrames, "stalls": w.stats.Stalls, "paused": w.paused, "fft": w.cfg[2],
			"status": w.statusText()})
	}
}

// fillText says, while the first frame of long FFTs fills, when it will
// be analyzed: at N=2^20 and 48 kHz a frame spans 21.8 s of input, and an
// empty display that long needs a reason. It is empty once a frame has
// been analyzed since the settings changed (st.Frames past framesAt), and
// for frames shorter than a second.
func fillText(st *live.Stats, framesAt uint64, waited time.Duration) string {
	if st.SampleRate <= 0 || st.Frames != framesAt {
		return ""
	}
	span := time.Duration(float64(st.FFT) / float64(st.SampleRate) * float64(time.Second))
	if span < time.Second {
		return ""
	}
	left := max(span-waited, 0)
	return fmt.Sprintf("first frame in %.0f s (N=%d spans %.1f s)", math.Ceil(left.Seconds()), st.FFT, span.Seconds())
}

// engineLabel names an engine for people.
func engineLabel(name string) string {
	if name == "opencl" {
		return "GPU"
	}
	return strings.ToUpper(name)
}

// warnFor is how long a warning stays in the status strip after it first
// appears (it stays in the details).
const warnFor = 5 * time.Second

// updateStatus writes the status area: the strip (what must always show:
// PAUSED, the engine, its load, drops and stalls, the UI's frame rate and
// CPU, a fresh warning), the line under it (the source and the analysis,
// or the file shown) and the details behind the Details button (all of
// it, with the last warning and its age).
func (w *Window) updateStatus() {
	st := &w.stats
	f := statusFacts{st: st, rec: w.eng.RecordStatus(), paused: w.paused, hasGPU: w.eng.HasGPU(),
		monitor: w.eng.PlaythroughStatus(), now: w.now(), noise: mixNoiseNote(w.set, st.Channels)}
	f.fill = fillText(st, w.cfgFrames, f.now.Sub(w.cfgAt))
	if fs := w.fp.fview.File(); fs != nil && w.tabs.Selected() == w.fileTab {
		f.file = w.fp.fileSummary(fs)
	}
	msg := st.Status
	if msg == "" {
		msg = w.notice
	}
	w.rec.sync()
	w.bar.show(view.HumanDurations(msg), &f)
}

// show writes the three texts with msg the warning now.
func (b *statusBar) show(msg string, f *statusFacts) {
	if msg != b.warn {
		b.warn, b.warnAt = msg, f.now
	}
	b.strip.SetText(b.stripText(f))
	b.line.SetText(lineText(f))
	b.details.SetText(b.detailsText(f))
}

// stripText is what must always show.
func (b *statusBar) stripText(f *statusFacts) string {
	st := f.st
	var s strings.Builder
	if f.paused {
		s.WriteString("⏸ PAUSED · ")
	}
	if r := recordText(f.rec); r != "" {
		s.WriteString(r + " · ")
	}
	fmt.Fprintf(&s, "%s · %.2f ms/batch · %.0f frames/s · drops %d · stalls %d · UI %.0f fps · CPU %.0f%%",
		engineLabel(st.Engine), st.MsPerBatch, st.FramesPerSec, st.DroppedFrames+st.Overflows, st.Stalls, b.fps, b.cpuPct)
	if st.Outages > 0 { // source outages, kept as gaps in the timeline
		fmt.Fprintf(&s, " · gaps %d", st.Outages)
	}
	if l := loadText(engineLoads(st)); l != "" {
		s.WriteString(" · " + l)
	}
	if f.fill != "" {
		s.WriteString(" · " + f.fill)
	}
	if b.warn != "" && f.now.Sub(b.warnAt) < warnFor {
		s.WriteString(" · ⚠ " + b.warn)
	}
	return s.String()
}

// lineText is the source and the analysis, or the file shown.
func lineText(f *statusFacts) string {
	if f.file != "" {
		return f.file + " · live display paused"
	}
	st := f.st
	var s strings.Builder
	fmt.Fprintf(&s, "%s · %d Hz × %d · N=%d hop %d · %s · latency p99 %s",
		st.Source, st.SampleRate, st.Channels, st.FFT, st.Hop, st.Device,
		view.FormatDuration(time.Duration(st.LatencyP99Ms*float64(time.Millisecond))))
	if f.rec.Active {
		s.WriteString(" · recording to " + f.rec.Path)
	}
	if f.monitor != "" {
		s.WriteString(" · " + f.monitor)
	}
	if f.noise != "" {
		s.WriteString(" · " + f.noise)
	}
	return s.String()
}

// detailsText is everything, with the last warning and its age.
func (b *statusBar) detailsText(f *statusFacts) string {
	st := f.st
	var s strings.Builder
	fmt.Fprintf(&s, "Source: %s\nFormat: %d Hz × %d channels\nAnalysis: N=%d, hop %d\nEngine: %s (%s)\n",
		st.Source, st.SampleRate, st.Channels, st.FFT, st.Hop, engineLabel(st.Engine), st.Device)
	fmt.Fprintf(&s, "Load: %.3f ms per batch, %.0f frames/s, latency p99 %s\nDropped frames %d, overflows %d, stalls %d\nWindow: %.0f fps, process CPU %.0f%%\n",
		st.MsPerBatch, st.FramesPerSec, view.FormatDuration(time.Duration(st.LatencyP99Ms*float64(time.Millisecond))),
		st.DroppedFrames, st.Overflows, st.Stalls, b.fps, b.cpuPct)
	if st.Outages > 0 {
		fmt.Fprintf(&s, "Source outages %d: %.1f s without input (of the dropped frames), kept as gaps\n",
			st.Outages, float64(st.DroppedOutageFrames)/float64(max(st.SampleRate, 1)))
	}
	s.WriteString(engineTimes(st))
	if !f.hasGPU {
		s.WriteString("No GPU engine here (OpenCL is not usable): the CPU engine does all the work\n")
	}
	if f.monitor != "" {
		s.WriteString("Monitor: " + f.monitor + "\n")
	}
	if f.paused {
		s.WriteString("Display PAUSED (Space resumes)\n")
	}
	if rs := f.rec; rs.Active {
		fmt.Fprintf(&s, "Recording %s: %d frames, %d gap rows, %d dropped (Ctrl+Shift+R stops)\n", rs.Path, rs.Frames, rs.Gaps, rs.Dropped)
	}
	if b.warn != "" {
		fmt.Fprintf(&s, "Last warning (%s ago): %s\n", view.FormatDuration(f.now.Sub(b.warnAt).Round(time.Second)), b.warn)
	}
	return strings.TrimSuffix(s.String(), "\n")
}

// engineTimes compares the engines' times per batch and their shares of
// real time, a line each.
func engineTimes(st *live.Stats) string {
	var s strings.Builder
	gpu, okG := st.EngineMs["opencl"]
	cpu, okC := st.EngineMs["cpu"]
	switch {
	case okG && okC && gpu > 0 && cpu >= gpu:
		fmt.Fprintf(&s, "Per batch: GPU %.3f ms · CPU %.3f ms → GPU %.1f× faster\n", gpu, cpu, cpu/gpu)
	case okG && okC && cpu > 0:
		fmt.Fprintf(&s, "Per batch: GPU %.3f ms · CPU %.3f ms → CPU %.1f× faster\n", gpu, cpu, gpu/cpu)
	case okC:
		fmt.Fprintf(&s, "Per batch: CPU %.3f ms\n", cpu)
	}
	if loads := engineLoads(st); len(loads) > 0 {
		s.WriteString("Share of real time used (headroom):")
		for _, e := range []string{"opencl", "cpu"} {
			if l, ok := loads[e]; ok && l > 0 {
				fmt.Fprintf(&s, " %s %.0f%% (%.1f×)", engineLabel(e), 100*l, 1/l)
			}
		}
		s.WriteString("\n")
	}
	return s.String()
}

// showDetails opens the status details under the Details button.
func (b *statusBar) showDetails() {
	pop := widget.NewPopUp(container.NewPadded(b.details), b.win.Canvas())
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b.detailsBtn)
	size := pop.MinSize()
	pop.ShowAtPosition(fyne.NewPos(max(0, pos.X+b.detailsBtn.Size().Width-size.Width), max(0, pos.Y-size.Height)))
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

// mixNoiseNote says how to read the generator's noise in the mix view: its
// level is the RMS of each channel (AES17), and channels of independent
// noise average to 1/C of the power, 10·log10(C) dB lower ("" where the
// view does not mislead).
func mixNoiseNote(s Settings, channels int) string {
	g := s.Source.Generator
	noise := strings.HasPrefix(g, "white") || strings.HasPrefix(g, "pink")
	if s.Source.Kind != session.SourceGenerator || !noise || channels < 2 || s.Channels == "all" {
		return ""
	}
	return fmt.Sprintf("generator noise: %s dBFS RMS per channel; the mix of %d independent channels reads %.1f dB lower",
		strings.TrimPrefix(strings.TrimPrefix(g, "white:"), "pink:"), channels, 10*math.Log10(float64(channels)))
}
