package ui

import (
	"github.com/prismaudio/prism/app/plot"
)

// host is the window as its panels see it: each method serves the host
// interface of a panel in package panel, and none is an export of ui.
type host Window

// SaveDialog asks for a path and calls fn with it (panel.RecordHost).
func (h *host) SaveDialog(name string, fn func(path string)) { (*Window)(h).saveDialog(name, fn) }

// RecordChannel is the output channel recorded and, by default, exported:
// the waterfall's, the mix (or the one channel of a mono input)
// (panel.RecordHost).
func (h *host) RecordChannel() int { return h.stats.Channels }

// HistoryOptions are what a history export writes: every channel shown
// or the mix, of how many, and the image's axes and colours
// (panel.RecordHost).
func (h *host) HistoryOptions() (bool, int, plot.ImageOptions) {
	s := h.set
	return s.Channels == "all", h.stats.Channels,
		plot.ImageOptions{Width: 1920, Height: 1080, Scale: s.FreqScale, DBMin: s.DBMin, DBMax: s.DBMax, Colormap: s.Colormap}
}
