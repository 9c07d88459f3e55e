package panel

import (
	"math/bits"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/ui/internal/prefs"
)

// ArchiveSettings are the Archive tab's side-panel choices that outlast
// the window, kept in the app's preferences under "archive.": the
// analysis (resolution, average, level unit and calibration, as typed),
// the colours, and the last archive opened (where the open dialog
// starts). The channel is not kept: it belongs to one archive.
type ArchiveSettings struct {
	FFT                                      int    // frame length; 0: auto
	Average                                  string // "auto" or seconds
	Unit                                     string // the level unit's label
	Sensitivity, Gain, FullScale, Curve, SPL string
	AutoRange                                bool
	Low, High                                string // the colour range, dB, when not auto
	Colormap                                 string
	Last                                     string // the last archive opened
}

func (s *ArchiveSettings) rows() []prefs.Row {
	return []prefs.Row{prefs.Int("fft", &s.FFT), prefs.String("average", &s.Average), prefs.String("unit", &s.Unit),
		prefs.String("sensitivity", &s.Sensitivity), prefs.String("gain", &s.Gain), prefs.String("full_scale", &s.FullScale),
		prefs.String("curve", &s.Curve), prefs.String("spl", &s.SPL), prefs.Bool("auto_range", &s.AutoRange),
		prefs.String("low", &s.Low), prefs.String("high", &s.High), prefs.String("colormap", &s.Colormap),
		prefs.String("last", &s.Last)}
}

const archivePrefix = "archive."

// Settings are the side panel's choices now.
func (a *Archive) Settings() ArchiveSettings {
	s := &a.side
	return ArchiveSettings{FFT: s.fftWant, Average: s.average.Text, Unit: s.unit.Selected,
		Sensitivity: s.sens.Text, Gain: s.gain.Text, FullScale: s.fullScale.Text, Curve: s.curve.Text, SPL: s.spl.Text,
		AutoRange: s.autoRange.Checked, Low: s.lo.Text, High: s.hi.Text, Colormap: s.colormap.Selected, Last: a.last}
}

// UsePreferences sets the side panel from p's saved choices and keeps
// them there from now on, each time one changes.
func (a *Archive) UsePreferences(p fyne.Preferences) {
	set := a.Settings()
	prefs.Load(p, archivePrefix, set.rows())
	a.loading = true
	a.SetSettings(set)
	a.loading = false
	a.prefs = p
}

// SetSettings sets the side panel's controls to set, as a user would
// (a value the panel cannot use shows as its problem, as typed).
func (a *Archive) SetSettings(set ArchiveSettings) {
	s := &a.side
	s.fftWant = set.FFT
	a.selectFFT()
	s.average.SetText(set.Average)
	for _, x := range []struct {
		e    interface{ SetText(string) }
		text string
	}{{s.sens, set.Sensitivity}, {s.gain, set.Gain}, {s.fullScale, set.FullScale}, {s.curve, set.Curve}, {s.spl, set.SPL}} {
		x.e.SetText(x.text)
	}
	s.unit.SetSelected(set.Unit)
	s.autoRange.SetChecked(set.AutoRange) // first: while auto, the entries show the view's range
	if !set.AutoRange {
		s.lo.SetText(set.Low)
		s.hi.SetText(set.High)
	}
	s.colormap.SetSelected(set.Colormap)
	a.last = set.Last
	a.saveSettings()
}

// saveSettings keeps the side panel's choices in the preferences.
func (a *Archive) saveSettings() {
	if a.prefs == nil || a.loading {
		return
	}
	set := a.Settings()
	prefs.Save(a.prefs, archivePrefix, set.rows())
}

// fftChosen notes the resolution chosen (kept while no archive offers
// it) and recomputes.
func (a *Archive) fftChosen() {
	s := &a.side
	if i := s.fft.SelectedIndex(); len(s.fft.Options) > 1 {
		s.fftWant = 0
		if i > 0 {
			s.fftWant = 256 << (i - 1)
		}
	}
	a.changed()
}

// selectFFT selects the option of the frame length wanted, where the
// archive open offers it (else Auto).
func (a *Archive) selectFFT() {
	s := &a.side
	i := 0
	if n := s.fftWant; n >= 256 && n&(n-1) == 0 {
		i = bits.Len(uint(n)) - bits.Len(256) + 1
	}
	if i >= len(s.fft.Options) {
		i = 0
	}
	s.fft.Selected = s.fft.Options[i]
	s.fft.Refresh()
}
