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
)

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
			"latency_p99_ms": w.stats.LatencyP99Ms, "dropped": w.stats.DroppedFrames, "stalls": w.stats.Stalls, "paused": w.paused, "fft": w.cfg[2],
			"status": w.statusText()})
	}
}

// fillText says, while the first frame of long FFTs fills, when it will
// be analyzed: at N=2^20 and 48 kHz a frame spans 21.8 s of input, and an
// empty display that long needs a reason. It is empty once a frame has
// been analyzed since the settings changed (st.Frames past framesAt), and
// for frames shorter than a second.
func fillText(st *live.LiveStats, framesAt uint64, waited time.Duration) string {
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
	now := w.now()
	msg := st.Status
	if msg == "" {
		msg = w.notice
	}
	msg = humanDurations(msg)
	if msg != w.warn {
		w.warn, w.warnAt = msg, now
	}
	var b strings.Builder
	if w.paused {
		b.WriteString("⏸ PAUSED · ")
	}
	rs := w.eng.RecordStatus()
	if r := recordText(rs); r != "" {
		b.WriteString(r + " · ")
	}
	w.syncRecord()
	fmt.Fprintf(&b, "%s · %.2f ms/batch · %.0f frames/s · drops %d · stalls %d · UI %.0f fps · CPU %.0f%%",
		engineLabel(st.Engine), st.MsPerBatch, st.FramesPerSec, st.DroppedFrames+st.Overflows, st.Stalls, w.fps, w.cpuPct)
	if st.Outages > 0 { // source outages, kept as gaps in the timeline
		fmt.Fprintf(&b, " · gaps %d", st.Outages)
	}
	if l := loadText(engineLoads(st)); l != "" {
		b.WriteString(" · " + l)
	}
	if f := fillText(st, w.cfgFrames, now.Sub(w.cfgAt)); f != "" {
		b.WriteString(" · " + f)
	}
	if w.warn != "" && now.Sub(w.warnAt) < warnFor {
		b.WriteString(" · ⚠ " + w.warn)
	}
	w.status.SetText(b.String())

	b.Reset()
	if fs := w.fview.File(); fs != nil && w.tabs.Selected() == w.fileTab {
		b.WriteString(w.fileSummary(fs))
		b.WriteString(" · live display paused")
	} else {
		fmt.Fprintf(&b, "%s · %d Hz × %d · N=%d hop %d · %s · latency p99 %s",
			st.Source, st.SampleRate, st.Channels, st.FFT, st.Hop, st.Device,
			formatDuration(time.Duration(st.LatencyP99Ms*float64(time.Millisecond))))
		if rs.Active {
			b.WriteString(" · recording to " + rs.Path)
		}
		if mo := w.eng.MonitorOutput(); mo != "" {
			b.WriteString(" · " + mo)
		}
		if n := mixNoiseNote(w.set, st.Channels); n != "" {
			b.WriteString(" · " + n)
		}
	}
	w.speed.SetText(b.String())

	b.Reset()
	fmt.Fprintf(&b, "Source: %s\nFormat: %d Hz × %d channels\nAnalysis: N=%d, hop %d\nEngine: %s (%s)\n",
		st.Source, st.SampleRate, st.Channels, st.FFT, st.Hop, engineLabel(st.Engine), st.Device)
	fmt.Fprintf(&b, "Load: %.3f ms per batch, %.0f frames/s, latency p99 %s\nDropped frames %d, overflows %d, stalls %d\nWindow: %.0f fps, process CPU %.0f%%\n",
		st.MsPerBatch, st.FramesPerSec, formatDuration(time.Duration(st.LatencyP99Ms*float64(time.Millisecond))),
		st.DroppedFrames, st.Overflows, st.Stalls, w.fps, w.cpuPct)
	if st.Outages > 0 {
		fmt.Fprintf(&b, "Source outages %d: %.1f s without input (of the dropped frames), kept as gaps\n",
			st.Outages, float64(st.DroppedOutageFrames)/float64(max(st.SampleRate, 1)))
	}
	gpu, okG := st.EngineMs["opencl"]
	cpu, okC := st.EngineMs["cpu"]
	switch {
	case okG && okC && gpu > 0 && cpu >= gpu:
		fmt.Fprintf(&b, "Per batch: GPU %.3f ms · CPU %.3f ms → GPU %.1f× faster\n", gpu, cpu, cpu/gpu)
	case okG && okC && cpu > 0:
		fmt.Fprintf(&b, "Per batch: GPU %.3f ms · CPU %.3f ms → CPU %.1f× faster\n", gpu, cpu, gpu/cpu)
	case okC:
		fmt.Fprintf(&b, "Per batch: CPU %.3f ms\n", cpu)
	}
	if loads := engineLoads(st); len(loads) > 0 {
		b.WriteString("Share of real time used (headroom):")
		for _, e := range []string{"opencl", "cpu"} {
			if l, ok := loads[e]; ok && l > 0 {
				fmt.Fprintf(&b, " %s %.0f%% (%.1f×)", engineLabel(e), 100*l, 1/l)
			}
		}
		b.WriteString("\n")
	}
	if !w.eng.HasGPU() {
		b.WriteString("No GPU engine here (OpenCL is not usable): the CPU engine does all the work\n")
	}
	if mo := w.eng.MonitorOutput(); mo != "" {
		b.WriteString("Monitor: " + mo + "\n")
	}
	if w.paused {
		b.WriteString("Display PAUSED (Space resumes)\n")
	}
	if rs.Active {
		fmt.Fprintf(&b, "Recording %s: %d frames, %d gap rows, %d dropped (Ctrl+Shift+R stops)\n", rs.Path, rs.Frames, rs.Gaps, rs.Dropped)
	}
	if w.warn != "" {
		fmt.Fprintf(&b, "Last warning (%s ago): %s\n", formatDuration(now.Sub(w.warnAt).Round(time.Second)), w.warn)
	}
	w.detailText.SetText(strings.TrimSuffix(b.String(), "\n"))
}

// showDetails opens the status details under the Details button.
func (w *Window) showDetails() {
	w.updateStatus()
	pop := widget.NewPopUp(container.NewPadded(w.detailText), w.win.Canvas())
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(w.detailsBtn)
	size := pop.MinSize()
	pop.ShowAtPosition(fyne.NewPos(max(0, pos.X+w.detailsBtn.Size().Width-size.Width), max(0, pos.Y-size.Height)))
}

// statusDetails is the text of the status details.
func (w *Window) statusDetails() string { return w.detailText.Text }

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
	if s.Source.Kind != live.SourceGenerator || !noise || channels < 2 || s.Channels == "all" {
		return ""
	}
	return fmt.Sprintf("generator noise: %s dBFS RMS per channel; the mix of %d independent channels reads %.1f dB lower",
		strings.TrimPrefix(strings.TrimPrefix(g, "white:"), "pink:"), channels, 10*math.Log10(float64(channels)))
}
