package session

import (
	"context"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfrfile"
	"github.com/prismaudio/prism/app/tfrview"
)

// AnalyzeModeView is tfrview.AnalyzeView (the file view in an analysis
// mode) on the session's engines.
func (m *Session) AnalyzeModeView(ctx context.Context, path string, o tfrview.Options, progress analysis.Progress) (*tfrview.Spectrogram, error) {
	return tfrview.AnalyzeView(ctx, path, o, m.engines, progress)
}

// ExportModeSpectrogram writes a file's frames in o's mode to out
// (npy with its JSON sidecar, csv or png, by format) exactly as `prism
// analyze --mode` does (package tfrfile), on the session's engines.
func (m *Session) ExportModeSpectrogram(ctx context.Context, in, out string, format encode.Format, o tfrview.Options, img plot.ImageOptions) error {
	cfg := o.Mode
	cfg.Hop, cfg.Window, cfg.Size = o.View.Hop, o.View.Window, o.View.FFT
	_, err := tfrfile.AnalyzeFile(ctx, in, out, format, tfrfile.Options{Transform: cfg, Channel: o.View.Channel, Image: img}, m.engines)
	return err
}

// engineWatch is how often a running mode checks that it runs on the
// live analysis's engine.
const engineWatch = 50 * time.Millisecond

// onCPU says whether the live analysis runs on the CPU engine.
func (m *Session) onCPU() bool {
	var st live.Stats
	m.live.ReadStats(&st)
	return st.Engine == engine.CPU
}

// followEngine restarts run (the mode running) on the live analysis's
// engine once that switches between the GPU and the CPU (UseEngine, or
// a fallback after a GPU failure), until run stops.
func (m *Session) followEngine(run *modeRun) {
	t := time.NewTicker(engineWatch)
	defer t.Stop()
	for {
		select {
		case <-run.stop:
			return
		case <-t.C:
		}
		if m.onCPU() == run.cpu {
			continue
		}
		m.mu.Lock()
		if !m.closed && m.mode.cur.Load() == run {
			if err := m.restartModeLocked(); err != nil {
				msg := "analysis mode: " + err.Error()
				m.mode.err.Store(&msg)
			}
		}
		m.mu.Unlock()
		return
	}
}
