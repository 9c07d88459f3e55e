package ui

import (
	"math"
	"strings"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// saneCal drops a unit or calibration the preferences hold that no longer
// makes sense.
func (s Settings) saneCal(d Settings) Settings {
	if s.CalNote == "" || !(math.Abs(s.CalOffset) <= panel.MaxCalOffset) {
		s.CalNote, s.CalOffset = "", 0
	}
	if s.Unit == dsp.DBSPL && s.CalNote == "" {
		s.Unit = d.Unit
	}
	return s
}

// calSettings are s's unit and calibration, as panel.Calibration sees
// them.
func (s *Settings) calSettings() panel.CalSettings {
	return panel.CalSettings{Unit: s.Unit, CalNote: s.CalNote, CalOffset: s.CalOffset, MicFile: s.MicFile}
}

// CalSettings are the unit and calibration shown (panel.CalHost).
func (h *host) CalSettings() panel.CalSettings { return h.set.calSettings() }

// ChangeCal changes the unit and calibration by fn and applies them
// (panel.CalHost).
func (h *host) ChangeCal(fn func(c *panel.CalSettings)) {
	(*Window)(h).change(func(s *Settings) {
		c := s.calSettings()
		fn(&c)
		s.Unit, s.CalNote, s.CalOffset, s.MicFile = c.Unit, c.CalNote, c.CalOffset, c.MicFile
	})
}

// InputChannels is the input's channels (panel.CalHost).
func (h *host) InputChannels() int { return h.stats.Channels }

// applyCal brings the views to the settings' unit and calibration: it
// reads the microphone file when it changed (a file no longer readable is
// dropped, with a notice), shifts the dB SPL axes by the calibration and
// names the unit.
func (w *Window) applyCal() {
	s := &w.set
	if err := w.cal.Follow(s.calSettings(), s.Window); err != nil {
		w.notice = err.Error()
		s.MicFile = ""
	}
	shift, rtaUnit := w.cal.Axes(s.calSettings())
	for _, v := range []*view.SpectrumView{w.spec, w.fspec} {
		v.SetRange(s.DBMin+shift, s.DBMax+shift)
		v.SetUnit(w.cal.UnitLabel(), strings.ReplaceAll(s.Unit.String(), "-", "_"))
	}
	w.cal.ShowFile(w.fspec, nil)
	w.rta.SetRange(s.DBMin+shift, s.DBMax+shift)
	w.rta.SetUnit(rtaUnit)
	w.lvl.SetCalibration(s.Unit == dsp.DBSPL, s.CalOffset)
	w.lh.SetCalibration(s.Unit == dsp.DBSPL, s.CalOffset)
	w.tp.View().SetMic(w.cal.Mic()) // the transfer function without the microphone's response
}
