package ui

import (
	"time"

	"fyne.io/fyne/v2/storage"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// host is the window as its panels see it: each method serves the host
// interface of a panel in package panel, and none is an export of ui.
type host Window

var (
	_ panel.FileHost   = (*host)(nil)
	_ panel.RefHost    = (*host)(nil)
	_ panel.RecordHost = (*host)(nil)
)

// SaveDialog asks for a path and calls fn with it (panel.RecordHost,
// FileHost and RefHost).
func (h *host) SaveDialog(name string, fn func(path string)) { h.dlg.Save(name, fn) }

// RecordChannel is the output channel recorded and, by default, exported:
// the waterfall's, the mix (or the one channel of a mono input)
// (panel.RecordHost).
func (h *host) RecordChannel() int { return (*Window)(h).lowerChannel() }

// HistoryOptions are what a history export writes: every channel shown
// or the mix, of how many, and the image's axes and colours
// (panel.RecordHost).
func (h *host) HistoryOptions() (bool, int, plot.ImageOptions) {
	s := h.set
	return s.Channels == "all", h.stats.Channels,
		plot.ImageOptions{Width: 1920, Height: 1080, Scale: s.FreqScale, DBMin: s.DBMin, DBMax: s.DBMax, Colormap: s.Colormap}
}

// FileOptions are the file view's own frames and the image an export
// draws (panel.FileHost).
func (h *host) FileOptions() (analysis.ViewOptions, plot.ImageOptions) {
	s := h.set
	_, _, img := h.HistoryOptions()
	return analysis.ViewOptions{FFT: s.FileFFT, Hop: s.FileHop(), Window: s.FileWindow, Channel: -1}, img
}

// Dark says the dark theme is on (panel.FileHost).
func (h *host) Dark() bool { return h.set.Theme == "dark" }

// ShowFileTab brings the File tab forward (panel.FileHost).
func (h *host) ShowFileTab() { h.tabs.Select(h.fileTab) }

// RememberFolder puts dir first in the recent folders (panel.FileHost).
func (h *host) RememberFolder(dir string) { h.dlg.RememberFolder(dir) }

// UpdateStatus writes the status area (panel.FileHost).
func (h *host) UpdateStatus() { (*Window)(h).updateStatus() }

// ShowOpenDialog asks for a file to open (panel.FileHost).
func (h *host) ShowOpenDialog(title string, open func(path string)) {
	h.dlg.ShowOpen(title, open)
}

// DifferenceShown says whether the difference to a reference is chosen
// (panel.FileHost).
func (h *host) DifferenceShown() bool { return h.refs.DiffTo() >= 0 }

// FileSpectrumShown shows the file's spectrum under the cursor in the
// unit shown, and measures and differences it (panel.FileHost).
func (h *host) FileSpectrumShown(sp *live.Spectrum) {
	w := (*Window)(h)
	w.cal.ShowFile(w.fspec, sp)
	if f := w.fview.File(); f != w.harmFile { // another file: the old one's readout must go
		w.harmFile = f
		w.fharm.Discard()
	}
	w.fharm.MarkStale()
	w.measureFileDue(w.now())
	w.updateDiff(w.fspec, w.fdiff, &w.fdiffGrid, view.AvgOff)
}

// Harmonics turns the harmonic markers and the distortion readout on or
// off (panel.RefHost).
func (h *host) Harmonics(on bool) { (*Window)(h).harmonics(on) }

// HarmonicsOn says whether the harmonic markers and readout are on
// (panel.RefHost).
func (h *host) HarmonicsOn() bool { return h.harm.On() }

// ChooseFile asks for a file and hands it to use (panel.RefHost).
func (h *host) ChooseFile(filter storage.FileFilter, use func(path string) error) {
	h.dlg.Choose(filter, use)
}

// AddNotice adds msg to the status bar's notice (panel.RefHost).
func (h *host) AddNotice(msg string) {
	if h.notice != "" {
		msg = h.notice + "; " + msg
	}
	h.notice = msg
}

// Clock is the window's time (panel.RefHost; tests set it).
func (h *host) Clock() time.Time { return h.now() }

// Notices is the window's notice line (news, and failures in a user's
// words, never modal): panels say what they did or why not there.
func (h *host) Notices() *panel.Notice { return h.note }

// inputRates lists the rates the input device takes (controlsHost).
func (w *Window) inputRates(device string, channels int) ([]int, error) {
	return w.eng.InputRates(device, channels)
}

// onUI runs fn on the Fyne goroutine (controlsHost).
func (w *Window) onUI(fn func()) { w.do(fn) }

// notices is the notice line (controlsHost).
func (w *Window) notices() *panel.Notice { return w.note }
