package panel

import (
	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/tfr"
)

// ModeSettings are the analysis mode the window shows (package tfr's:
// the STFT, multi-resolution, variable-Q or reassigned) and the
// parameters of its own; the frame size, hop, window and averaging are
// the analysis settings'. The window keeps them with its other settings
// (LoadModeSettings, Save).
type ModeSettings struct {
	Mode          tfr.Mode
	BinsPerOctave int     // VQT: 12…96
	FMinHz        float64 // VQT: the lowest bin's centre
	Gamma         float64 // VQT: γ in Hz (0: constant Q)
	ThresholdDB   float64 // Reassigned: bins this far under the frame's strongest stay where they are
}

// DefaultModeSettings: the STFT; for the VQT 48 bins per octave from
// 20 Hz at constant Q; for the reassigned spectrogram a 60 dB threshold.
func DefaultModeSettings() ModeSettings {
	return ModeSettings{Mode: tfr.STFT, BinsPerOctave: 48, FMinHz: 20, ThresholdDB: 60}
}

// LoadModeSettings reads the mode settings saved under prefix (a name
// that no longer reads, or a value out of range, falls back to the
// default).
func LoadModeSettings(p fyne.Preferences, prefix string) ModeSettings {
	d := DefaultModeSettings()
	m := d
	if mode, err := tfr.ParseMode(p.StringWithFallback(prefix+"mode", d.Mode.String())); err == nil {
		m.Mode = mode
	}
	m.BinsPerOctave = p.IntWithFallback(prefix+"mode.bpo", d.BinsPerOctave)
	if m.BinsPerOctave < 12 || m.BinsPerOctave > 96 {
		m.BinsPerOctave = d.BinsPerOctave
	}
	m.FMinHz = p.FloatWithFallback(prefix+"mode.fmin", d.FMinHz)
	if !(m.FMinHz > 0) {
		m.FMinHz = d.FMinHz
	}
	m.Gamma = max(0, p.FloatWithFallback(prefix+"mode.gamma", d.Gamma))
	m.ThresholdDB = p.FloatWithFallback(prefix+"mode.threshold", d.ThresholdDB)
	return m
}

// Save writes the mode settings under prefix.
func (m ModeSettings) Save(p fyne.Preferences, prefix string) {
	p.SetString(prefix+"mode", m.Mode.String())
	p.SetInt(prefix+"mode.bpo", m.BinsPerOctave)
	p.SetFloat(prefix+"mode.fmin", m.FMinHz)
	p.SetFloat(prefix+"mode.gamma", m.Gamma)
	p.SetFloat(prefix+"mode.threshold", m.ThresholdDB)
}

// Live is what the session runs for these mode settings beside the live
// analysis's settings l (its frame size as the STFT's and the reassigned
// spectrogram's size, its hop, window, averages and holds; the multi-
// resolution sizes are the mode's default for the rate).
func (m ModeSettings) Live(l live.Settings) tfrlive.Settings {
	cfg := tfr.Config{Mode: m.Mode, Hop: l.Hop, Window: l.Window, Size: l.FFT,
		BinsPerOctave: m.BinsPerOctave, FMin: m.FMinHz, Gamma: m.Gamma, ThresholdDB: m.ThresholdDB}
	if cfg.Hop == 0 {
		cfg.Hop = max(1, l.FFT/4)
	}
	return tfrlive.SettingsFrom(l, cfg)
}

// ModeLabel is a mode's name in the selectors (short: the selector shares
// its row with the FFT size).
func ModeLabel(m tfr.Mode) string {
	switch m {
	case tfr.MultiRes:
		return "Multi-res"
	case tfr.VQT:
		return "VQT"
	case tfr.Reassigned:
		return "Reassigned"
	}
	return "STFT"
}

// Modes are the analysis modes in the selectors' order.
func Modes() []tfr.Mode { return tfr.Modes() }

// NextMode is the mode after m in the Q key's cycle (tfr.Modes' order).
func NextMode(m tfr.Mode) tfr.Mode {
	modes := tfr.Modes()
	for i, x := range modes {
		if x == m {
			return modes[(i+1)%len(modes)]
		}
	}
	return modes[0]
}

// ModeEngine is what the window calls to run a mode (session.Session):
// SetMode does not block; a mode that fails to start says why in the
// statistics' Status.
type ModeEngine interface {
	SetMode(s tfrlive.Settings)
}
