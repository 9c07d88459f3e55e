package panel

import (
	"context"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/app/tfrview"
)

// This file gives the File tab the analysis modes (package tfr: multi-
// resolution, variable-Q, reassigned) beside the STFT: a Mode selector
// and the mode's parameters under the view's own FFT, overlap and window,
// kept with the file analysis's settings ("file.mode…"), and the
// overview and every zoom's re-analysis computed in the mode chosen
// (package tfrview) through FileModeEngine.

// FileModeEngine is what the file tab needs of the analysis to show a
// file in a mode (session.Session); an engine without it shows the STFT.
type FileModeEngine interface {
	AnalyzeModeView(ctx context.Context, path string, o tfrview.Options, progress analysis.Progress) (*tfrview.Spectrogram, error)
	// ExportModeSpectrogram writes a file's frames in a mode to out as
	// `prism analyze --mode` does (NPY with its JSON sidecar, CSV, PNG).
	ExportModeSpectrogram(ctx context.Context, in, out string, format encode.Format, o tfrview.Options, img plot.ImageOptions) error
}

// FileModeSettings are the file view's analysis mode and its parameters:
// the live ones' (ModeSettings), the multi-resolution (and reassigned)
// FFT sizes and the reassigned spectrogram's synchrosqueezing.
type FileModeSettings struct {
	ModeSettings
	Sizes   []int // largest first; nil: the mode's default for the file's rate
	Squeeze bool  // Reassigned: move energy in frequency only
}

// fileModePrefix is where the file view's mode settings are kept, after
// the file analysis's own ("prism.file.fft", …).
const fileModePrefix = "prism.file."

// LoadFileModeSettings reads the file view's mode settings (the defaults
// where none are kept or a value no longer reads).
func LoadFileModeSettings(p fyne.Preferences) FileModeSettings {
	m := FileModeSettings{ModeSettings: LoadModeSettings(p, fileModePrefix)}
	m.Sizes, _ = parseSizes(p.StringWithFallback(fileModePrefix+"mode.sizes", ""))
	m.Squeeze = p.BoolWithFallback(fileModePrefix+"mode.squeeze", false)
	return m
}

// Save keeps the file view's mode settings.
func (m FileModeSettings) Save(p fyne.Preferences) {
	m.ModeSettings.Save(p, fileModePrefix)
	p.SetString(fileModePrefix+"mode.sizes", sizesText(m.Sizes))
	p.SetBool(fileModePrefix+"mode.squeeze", m.Squeeze)
}

// Config is the transform these settings describe (the file's rate, the
// view's hop, window and FFT size are tfrview's to set).
func (m FileModeSettings) Config() tfr.Config {
	return tfr.Config{Mode: m.Mode, Sizes: m.Sizes, BinsPerOctave: m.BinsPerOctave, FMin: m.FMinHz,
		Gamma: m.Gamma, ThresholdDB: m.ThresholdDB, Squeeze: m.Squeeze}
}

// parseSizes reads FFT sizes written "16384, 4096, 1024" ("" or "auto":
// nil, the default).
func parseSizes(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "auto") {
		return nil, nil
	}
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 16 || n&(n-1) != 0 {
			return nil, strconv.ErrSyntax
		}
		out = append(out, n)
	}
	return out, nil
}

// sizesText writes sizes as parseSizes reads them ("auto" for nil).
func sizesText(sizes []int) string {
	if len(sizes) == 0 {
		return "auto"
	}
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// fileModeUI is the File tab's mode controls.
type fileModeUI struct {
	set                           FileModeSettings
	prefs                         fyne.Preferences // nil: not kept
	mode, bpo                     *widget.Select
	fmin, gamma, sizes, threshold *widget.Entry
	squeeze                       *widget.Check
	vqtBox, sizesBox, reassBox    *fyne.Container
	row                           *fyne.Container
}

// bpoChoices are the VQT's bins per octave offered.
var bpoChoices = []string{"12", "24", "36", "48", "64", "72", "96"}

// UsePreferences reads the file view's mode settings from p and keeps
// them there from now on.
func (fp *Files) UsePreferences(p fyne.Preferences) {
	fp.fm.prefs, fp.fm.set = p, LoadFileModeSettings(p)
	fp.syncMode()
}

// FileMode is the file view's mode and its parameters.
func (fp *Files) FileMode() FileModeSettings { return fp.fm.set }

// SetFileMode chooses the file view's mode and its parameters as the
// controls do: they are kept, and a file shown is analyzed again in it.
func (fp *Files) SetFileMode(m FileModeSettings) {
	fp.fm.set = m
	if fp.fm.prefs != nil {
		m.Save(fp.fm.prefs)
	}
	fp.syncMode()
	if fs := fp.fview.File(); fs != nil {
		t0, t1 := fp.fview.View()
		fp.OpenFile(fs.Path)
		fp.keepView = [2]float64{t0, t1}
	}
}

// buildModes makes the mode controls' row.
func (fp *Files) buildModes() fyne.CanvasObject {
	u := &fp.fm
	labels := make([]string, 0, 4)
	for _, m := range Modes() {
		labels = append(labels, ModeLabel(m))
	}
	changed := func(string) { fp.modeControlsChanged() }
	u.mode = widget.NewSelect(labels, changed)
	u.bpo = widget.NewSelect(bpoChoices, changed)
	entry := func(hint string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(hint)
		e.OnSubmitted = changed
		return e
	}
	u.fmin, u.gamma, u.sizes, u.threshold = entry("20"), entry("0"), entry("auto"), entry("60")
	u.squeeze = widget.NewCheck("Squeeze", func(bool) { fp.modeControlsChanged() })
	wide := func(e *widget.Entry, w float32) fyne.CanvasObject {
		return container.NewGridWrap(fyne.NewSize(w, e.MinSize().Height), e)
	}
	u.vqtBox = container.NewHBox(widget.NewLabel("Bins/octave"), u.bpo, widget.NewLabel("fmin Hz"), wide(u.fmin, 70),
		widget.NewLabel("γ Hz"), wide(u.gamma, 60))
	u.sizesBox = container.NewHBox(widget.NewLabel("Sizes"), wide(u.sizes, 150))
	u.reassBox = container.NewHBox(widget.NewLabel("Threshold dB"), wide(u.threshold, 60), u.squeeze)
	u.row = container.NewHBox(widget.NewLabel("Mode"), u.mode, u.vqtBox, u.sizesBox, u.reassBox)
	fp.syncMode()
	return u.row
}

// syncMode shows the settings in the controls, the parameters of the
// mode chosen alone.
func (fp *Files) syncMode() {
	u := &fp.fm
	if u.row == nil {
		return
	}
	fp.syncing = true
	defer func() { fp.syncing = false }()
	s := u.set
	u.mode.SetSelected(ModeLabel(s.Mode))
	u.bpo.SetSelected(strconv.Itoa(s.BinsPerOctave))
	u.fmin.SetText(strconv.FormatFloat(s.FMinHz, 'g', -1, 64))
	u.gamma.SetText(strconv.FormatFloat(s.Gamma, 'g', -1, 64))
	u.sizes.SetText(sizesText(s.Sizes))
	u.threshold.SetText(strconv.FormatFloat(s.ThresholdDB, 'g', -1, 64))
	u.squeeze.SetChecked(s.Squeeze)
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	show(u.vqtBox, s.Mode == tfr.VQT)
	show(u.sizesBox, s.Mode == tfr.MultiRes || s.Mode == tfr.Reassigned)
	show(u.reassBox, s.Mode == tfr.Reassigned)
}

// modeControlsChanged reads the controls (a value that does not read
// keeps the one before, and says so) and applies them.
func (fp *Files) modeControlsChanged() {
	if fp.syncing {
		return
	}
	u := &fp.fm
	s := u.set
	for _, m := range Modes() {
		if ModeLabel(m) == u.mode.Selected {
			s.Mode = m
		}
	}
	if n, err := strconv.Atoi(u.bpo.Selected); err == nil {
		s.BinsPerOctave = n
	}
	num := func(e *widget.Entry, what string, ok func(float64) bool, dst *float64) {
		v, err := strconv.ParseFloat(strings.TrimSpace(e.Text), 64)
		if err != nil || !ok(v) {
			fp.host.Notices().Fail("The "+what+" was not changed: write a number like "+e.PlaceHolder+".", nil)
			return
		}
		*dst = v
	}
	num(u.fmin, "VQT's lowest frequency", func(v float64) bool { return v > 0 }, &s.FMinHz)
	num(u.gamma, "VQT's γ", func(v float64) bool { return v >= 0 }, &s.Gamma)
	num(u.threshold, "reassignment threshold", func(v float64) bool { return v > 0 }, &s.ThresholdDB)
	if sz, err := parseSizes(u.sizes.Text); err == nil {
		s.Sizes = sz
	} else {
		fp.host.Notices().Fail("The FFT sizes were not changed: write powers of two, largest first, like 16384,4096,1024 (or auto).", nil)
	}
	s.Squeeze = u.squeeze.Checked
	fp.SetFileMode(s)
}

// modeEngine is the engine's mode analysis when a mode other than the
// STFT is chosen and the engine has it (nil: the STFT is shown).
func (fp *Files) modeEngine() FileModeEngine {
	me, ok := fp.eng.(FileModeEngine)
	if !ok || fp.fm.set.Mode == tfr.STFT {
		return nil
	}
	return me
}

// analyzeModeDetail re-analyzes t0…t1 in the overview's mode, as
// analyzeDetail does the STFT: a hop of about two frames per pixel
// (never coarser than the overview's), widened by a frame each side.
func (fp *Files) analyzeModeDetail(ms *tfrview.Spectrogram, me FileModeEngine, gen int, t0, t1 float64, width int) {
	if fp.detailCancel != nil {
		fp.detailCancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	fp.detailCancel = cancel
	o := tfrview.Options{View: analysis.ViewOptions{FFT: ms.Mode.Size, Window: ms.Window, Channel: ms.Channel, MaxColumns: 2 * width}, Mode: ms.Mode}
	samples := (t1 - t0) * float64(ms.Rate)
	o.View.Hop = DetailHop(ms.Hop, ms.FFT, samples, width)
	pad := float64(ms.FFT) / float64(ms.Rate)
	o.View.Start, o.View.End = max(0, t0-pad), t1+pad
	go func() {
		d, err := me.AnalyzeModeView(ctx, ms.Path, o, nil)
		fp.do(func() {
			if err != nil || gen != fp.fileGen || fp.fview.ModeFile() != ms {
				return
			}
			fp.fview.SetModeDetail(d)
			fp.host.UpdateStatus()
		})
	}()
}

// DetailHop is a zoom's re-analysis hop: about two frames per pixel of
// width over samples, never coarser than the overview's hop nor finer
// than 1/64 of the frame (span samples).
func DetailHop(hop, span int, samples float64, width int) int {
	return min(hop, max(1, span/64, int(samples/float64(2*width))))
}

// analyzeModeLanes analyses each channel of the file shown in its mode
// (ms, the overview) and hands them to the view as lanes.
func (p *FilePlay) analyzeModeLanes(ctx context.Context, me FileModeEngine, ms *tfrview.Spectrogram) {
	o := tfrview.Options{View: analysis.ViewOptions{FFT: ms.Mode.Size, Hop: ms.Hop, Window: ms.Window, MaxColumns: len(ms.Columns)}, Mode: ms.Mode}
	path := p.file.Path
	runLanes(p, ctx, func(ctx context.Context, c int) (*tfrview.Spectrogram, error) {
		oc := o
		oc.View.Channel = c
		return me.AnalyzeModeView(ctx, path, oc, nil)
	}, p.fview.SetModeLanes)
}

// modeExport is the export of the file shown in its mode to path (nil
// when the view shows the STFT, or the engine has no modes).
func (fp *Files) modeExport(path string, format encode.Format, img plot.ImageOptions) func(ctx context.Context) error {
	ms := fp.fview.ModeFile()
	me, ok := fp.eng.(FileModeEngine)
	if ms == nil || !ok {
		return nil
	}
	o := tfrview.Options{View: analysis.ViewOptions{FFT: ms.Mode.Size, Hop: ms.Hop, Window: ms.Window, Channel: ms.Channel}, Mode: ms.Mode}
	return func(ctx context.Context) error {
		return me.ExportModeSpectrogram(ctx, ms.Path, path, format, o, img)
	}
}
