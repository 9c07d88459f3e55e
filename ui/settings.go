package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/internal/prefs"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// Settings are everything the window lets the user choose; they are saved
// in the app's preferences and restored at the next start.
type Settings struct {
	Source     session.SourceSpec
	FFT        int
	Overlap    float64 // 0…0.9375: hop = FFT·(1−Overlap)
	Window     window.Func
	Averaging  string  // view.AvgOff, view.AvgExp, view.AvgLin, view.AvgLong
	AvgSeconds float64 // view.AvgExp time constant
	AvgFrames  int     // view.AvgLin frames
	PeakHold   float64 // seconds; 0: off; < 0: hold forever
	FreqScale  plot.Scale
	DBMin      float64
	DBMax      float64
	Colormap   plot.Colormap
	Span       float64       // waterfall seconds
	Lower      string        // the view under the spectrum: "waterfall", "rta", "scope" or "pitch"
	Fraction   int           // RTA: 1, 3, 6, 12, 24
	Weighting  dsp.Weighting // RTA
	Band       dsp.BandSpec  // the band filter (the zero value: none)
	Channels   string        // "mix" or "all"
	Engine     string        // "gpu" or "cpu"
	Theme      string        // "dark" or "light"
	// Unit is the spectrum's level unit: dBFS (sine level), dBFS/Hz
	// (noise density) or dB SPL (with the level calibration).
	Unit dsp.Unit
	// CalNote says how the level calibration was made ("" none); with
	// one, dB SPL = dBFS (sine level) + CalOffset.
	CalNote   string
	CalOffset float64
	MicFile   string             // a microphone response file (REW/miniDSP text), "" none
	Plot      view.PlotView      // the spectra's frequency range and smoothing (loaded and saved in settings_view.go)
	Mode      panel.ModeSettings // the analysis mode (STFT, multi-resolution, VQT, reassigned) and its parameters

	// The file view's own analysis (its controls are the File tab's):
	// frame size, overlap and window.
	FileFFT     int
	FileOverlap float64
	FileWindow  window.Func

	// stress holds, while the stress preset is on, the source, FFT size,
	// overlap and engine from before it: Save writes those (stress.go).
	stress stressSaved
}

// DefaultSettings: the default input (or the generator), 4096-point Hann
// frames at 75 % overlap, 1 s exponential average, 2 s peak hold, log
// frequency axis, −120…0 dBFS, viridis, 10 s waterfall, Z-weighted
// third-octave RTA (as `prism bands`), GPU if there is
// one, dark theme, the spectrum in dBFS and no calibration.
func DefaultSettings() Settings {
	return Settings{
		Source: session.SourceSpec{Kind: session.SourceDevice}, FFT: 4096, Overlap: 0.75, Window: window.Func{Kind: window.Hann},
		Averaging: view.AvgExp, AvgSeconds: 1, AvgFrames: 8, PeakHold: 2, FreqScale: plot.Log,
		DBMin: -120, DBMax: 0, Colormap: plot.Viridis, Span: 10, Lower: "waterfall", Fraction: 3, Weighting: dsp.DefaultWeighting,
		Channels: "mix", Engine: "gpu", Theme: "dark", Unit: dsp.DBFS,
		FileFFT: 4096, FileOverlap: 0.75, FileWindow: window.Func{Kind: window.Hann},
	}
}

// Hop is the hop in samples.
func (s Settings) Hop() int { return hopOf(s.FFT, s.Overlap) }

// FileHop is the file view's hop in samples.
func (s Settings) FileHop() int { return hopOf(s.FileFFT, s.FileOverlap) }

// hopOf is the hop of frames of n samples overlapping by overlap.
func hopOf(n int, overlap float64) int { return max(1, int(float64(n)*(1-overlap)+0.5)) }

// Live turns the settings into the analyzer's.
func (s Settings) Live() (live.Settings, error) {
	l := live.DefaultSettings()
	if err := checkFFT(s.FFT); err != nil {
		return l, err
	}
	l.FFT, l.Hop, l.Window = s.FFT, s.Hop(), s.Window
	l.AvgTau = time.Duration(s.AvgSeconds * float64(time.Second))
	l.AvgFrames = max(1, s.AvgFrames)
	switch {
	case s.PeakHold < 0:
		l.PeakHold, l.PeakDecay = 1000*time.Hour, 0
	case s.PeakHold == 0:
		l.PeakHold, l.PeakDecay = 0, 1000 // decays within a frame: no hold
	default:
		l.PeakHold = time.Duration(s.PeakHold * float64(time.Second))
	}
	l.Band = s.Band // Nyquist is the analyzer's to check
	if s.Lower == "rta" {
		l.Fraction, l.Weighting = s.Fraction, s.Weighting
	}
	// keep about a waterfall's span of columns, within reason
	l.History = min(16384, max(2048, int(s.Span*48000/float64(l.Hop))))
	return l, nil
}

// checkFFT is the analyses' FFT-size rule (engine.CheckFFT).
func checkFFT(n int) error {
	if err := engine.CheckFFT(n, 1); err != nil {
		return fmt.Errorf("FFT size %d: want a power of two %d…%d", n, engine.MinFFT, engine.MaxFFT)
	}
	return nil
}

// preference keys
const prefPrefix = "prism."

// LoadSettings reads saved settings over the defaults; values that no
// longer make sense fall back to the default.
func LoadSettings(p fyne.Preferences) Settings {
	d := DefaultSettings()
	s := d
	str := func(k, def string) string { return p.StringWithFallback(prefPrefix+k, def) }
	prefs.Load(p, prefPrefix, s.rows())
	var err error
	if s.FileWindow, err = window.Parse(str("file.window", d.FileWindow.String())); err != nil {
		s.FileWindow = d.FileWindow
	}
	s.Plot, s.Mode = loadPlotView(p), panel.LoadModeSettings(p, prefPrefix)
	// the names, read where they are stored: one that no longer reads
	// falls back to the default (a window, like a bad FFT size, to both)
	if s.Unit, err = dsp.ParseUnit(str("unit", d.Unit.String())); err != nil {
		s.Unit = d.Unit
	}
	s.FreqScale, err = plot.ParseScale(str("freqscale", d.FreqScale.String()))
	if err != nil {
		s.FreqScale = d.FreqScale
	}
	s.Colormap, err = plot.ParseColormap(str("colormap", d.Colormap.String()))
	if err != nil {
		s.Colormap = d.Colormap
	}
	var bad bool // a name the analysis would refuse: FFT size and window fall back
	if s.Window, err = window.Parse(str("window", d.Window.String())); err != nil {
		s.Window, bad = d.Window, true
	}
	if s.Weighting, err = dsp.ParseWeighting(str("rta.weighting", d.Weighting.String())); err != nil {
		s.Weighting, bad = d.Weighting, bad || s.Lower == "rta"
	}
	s.Band, err = dsp.ParseBand(str("band", ""))
	if err != nil || s.Band.Check(1<<30) != nil {
		bad = true
	}
	if err != nil || s.Band.Check(48000) != nil {
		s.Band = dsp.BandSpec{}
	}
	if bad {
		s.FFT, s.Window = d.FFT, d.Window
	}
	return s.sane(d)
}

// The dB range the plots may show: a bottom of at least dbFloor, a top
// of at most dbCeiling.
const (
	dbFloor   = -300
	dbCeiling = 100
)

// dbRangeOK says whether lo…hi is a dB range the plots may show.
func dbRangeOK(lo, hi float64) bool { return lo < hi && lo >= dbFloor && hi <= dbCeiling }

// shiftDB moves the dB range by step dB, as far as it stays one the plots
// may show (the Up and Down keys).
func (s *Settings) shiftDB(step float64) {
	if dbRangeOK(s.DBMin+step, s.DBMax+step) {
		s.DBMin, s.DBMax = s.DBMin+step, s.DBMax+step
	}
}

// sane replaces values out of range by the defaults'.
func (s Settings) sane(d Settings) Settings {
	if _, err := s.Live(); err != nil {
		s.FFT, s.Window = d.FFT, d.Window
	}
	if s.Overlap < 0 || s.Overlap > 0.97 {
		s.Overlap = d.Overlap
	}
	if checkFFT(s.FileFFT) != nil || s.FileOverlap < 0 || s.FileOverlap > 0.97 {
		s.FileFFT, s.FileOverlap = d.FileFFT, d.FileOverlap
	}
	if !dbRangeOK(s.DBMin, s.DBMax) {
		s.DBMin, s.DBMax = d.DBMin, d.DBMax
	}
	if s.Span <= 0 || s.Span > 600 {
		s.Span = d.Span
	}
	if !oneOf(s.Lower, "waterfall", "rta", "scope", "pitch") {
		s.Lower = d.Lower
	}
	if !oneOf(fmt.Sprint(s.Fraction), "1", "3", "6", "12", "24", "48") {
		s.Fraction = d.Fraction
	}
	if !oneOf(s.Averaging, view.AvgModes...) {
		s.Averaging = d.Averaging
	}
	if s.AvgSeconds <= 0 || s.AvgFrames < 1 {
		s.AvgSeconds, s.AvgFrames = d.AvgSeconds, d.AvgFrames
	}
	if !oneOf(s.Channels, "mix", "all") && singleChannel(s.Channels) < 0 {
		s.Channels = d.Channels
	}
	if !oneOf(s.Engine, "gpu", "cpu") {
		s.Engine = d.Engine
	}
	if !oneOf(s.Theme, "dark", "light") {
		s.Theme = d.Theme
	}
	if !oneOf(s.Source.Kind, session.SourceDevice, session.SourceGenerator, session.SourceFile) {
		s.Source = d.Source
	}
	return s.saneCal(d)
}

// oneOf says whether s is one of opts, in any case.
func oneOf(s string, opts ...string) bool {
	return slices.ContainsFunc(opts, func(o string) bool { return strings.EqualFold(s, o) })
}

// Save writes the settings to the preferences; while the stress preset
// is on, with what it changed as it was before it (kept).
func (s Settings) Save(p fyne.Preferences) {
	s = s.kept()
	prefs.Save(p, prefPrefix, s.rows())
	for k, v := range map[string]fmt.Stringer{"window": s.Window, "freqscale": s.FreqScale, "colormap": s.Colormap,
		"rta.weighting": s.Weighting, "band": s.Band, "unit": s.Unit, "file.window": s.FileWindow} {
		p.SetString(prefPrefix+k, v.String())
	}
	savePlotView(p, s.Plot)
	s.Mode.Save(p, prefPrefix)
}

// rows are the settings saved as they are (the names parsed on loading,
// Window, FreqScale…, are saved by Save and read by LoadSettings).
func (s *Settings) rows() []prefs.Row {
	return []prefs.Row{
		prefs.String("source.kind", &s.Source.Kind), prefs.String("source.device", &s.Source.Device),
		prefs.String("source.generator", &s.Source.Generator), prefs.String("source.file", &s.Source.File),
		prefs.Int("source.rate", &s.Source.Rate), prefs.Int("source.channels", &s.Source.Channels),
		prefs.Int("fft", &s.FFT), prefs.Float("overlap", &s.Overlap), prefs.String("averaging", &s.Averaging),
		prefs.Float("avg.seconds", &s.AvgSeconds), prefs.Int("avg.frames", &s.AvgFrames), prefs.Float("peakhold", &s.PeakHold),
		prefs.Float("db.min", &s.DBMin), prefs.Float("db.max", &s.DBMax), prefs.Float("span", &s.Span),
		prefs.String("lower", &s.Lower), prefs.Int("rta.fraction", &s.Fraction), prefs.String("channels", &s.Channels),
		prefs.String("engine", &s.Engine), prefs.String("theme", &s.Theme), prefs.String("cal.note", &s.CalNote),
		prefs.Float("cal.offset", &s.CalOffset), prefs.String("cal.mic", &s.MicFile),
		prefs.Int("file.fft", &s.FileFFT), prefs.Float("file.overlap", &s.FileOverlap),
	}
}

// kept are the settings as they are remembered: while the stress preset
// is on, with the source, FFT size, overlap and engine from before it.
func (s Settings) kept() Settings {
	if prev := s.stress; prev.on {
		s.Source, s.FFT, s.Overlap, s.Engine = prev.source, prev.fft, prev.overlap, prev.engine
		s.stress = stressSaved{}
	}
	return s
}

// SetFileAnalysis sets the file view's frame size, overlap and window and
// saves them (panel.FileHost).
func (h *host) SetFileAnalysis(fft int, overlap float64, win window.Func) {
	h.set.FileFFT, h.set.FileOverlap, h.set.FileWindow = fft, overlap, win
	h.set.Save(h.app.Preferences())
}
