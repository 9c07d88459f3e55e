package ui

import (
	"encoding/json"
	"time"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// countFrame keeps the frames-per-second and CPU-load figures.
func (w *Window) countFrame(now time.Time) {
	if w.bar.CountFrame(now) {
		fps, cpu := w.bar.Rates()
		w.trace("perf", map[string]any{"fps": fps, "cpu_percent": cpu, "engine": w.stats.Engine,
			"ms_per_batch": w.stats.MsPerBatch, "engine_ms": w.stats.EngineMs, "frames_per_s": w.stats.FramesPerSec,
			"latency_p99_ms": w.stats.LatencyP99Ms, "dropped": w.stats.DroppedFrames, "stalls": w.stats.Stalls, "paused": w.paused, "fft": w.cfg[2],
			"status": w.statusText()})
	}
}

// updateStatus writes the status area: the strip (what must always show:
// PAUSED, the engine, its load, drops and stalls, the UI's frame rate and
// CPU, a fresh warning), the line under it (the source and the analysis,
// or the file shown) and the details behind the Details button (all of
// it, with the last warning and its age).
func (w *Window) updateStatus() {
	st := &w.stats
	f := panel.StatusFacts{Stats: st, Record: w.eng.RecordStatus(), Paused: w.paused, HasGPU: w.eng.HasGPU(),
		Monitor: w.eng.PlaythroughStatus(), Now: w.now(), Noise: w.set.Source.MixNoiseNote(st.Channels, w.set.Channels == "all")}
	f.Fill = panel.FillText(st, w.cfgFrames, f.Now.Sub(w.cfgAt))
	if fs := w.fview.File(); fs != nil && w.tabs.Selected() == w.fileTab {
		f.File = w.fp.Summary(fs)
	}
	msg := st.Status
	if msg == "" {
		msg = w.notice
	}
	if msg == "" {
		msg = st.BandLimitNotice() // an input that may be upsampled
	}
	w.rec.Sync()
	w.bar.Show(view.HumanDurations(msg), &f)
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
