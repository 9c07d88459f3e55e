package ui

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/meter"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// hover puts the cursor over the spectrum at frequency f.
func hover(w *Window, f float64) {
	w.spec.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(w.spec.XFor(f), 40)}})
	w.spec.Render(w.spec.Image().Rect.Dx(), w.spec.Image().Rect.Dy())
}

// checkLevels compares the live spectrum shown with the fake's levels
// plus offset(f) at every bin.
func checkLevels(t *testing.T, w *Window, what string, offset func(f float64) float64) {
	t.Helper()
	sp := w.spec.Shown()
	for k, v := range sp.Current {
		f := float64(k) * sp.BinHz
		if want := float64(fakeLevel(f)) + offset(f); math.Abs(float64(v)-want) > 0.001 {
			t.Fatalf("%s: bin %d (%.1f Hz) reads %.4f, want %.4f", what, k, f, v, want)
		}
	}
}

// TestUnitDensity: dBFS/Hz shows every bin ENBW-corrected — for Hann
// (ENBW 1.5 bins) at N = 4096 and 48 kHz, 10·log10(2·1.5·48000/4096) dB
// below its sine level — and the axis, the cursor and peak readouts and
// the exported columns say dBFS/Hz.
func TestUnitDensity(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	if err := w.cal.SetUnit(dsp.DBFSPerHz); err != nil {
		t.Fatal(err)
	}
	w.Pull()
	capture(w.win)
	hover(w, 500)
	off := -10 * math.Log10(2*1.5*48000/4096.0)
	checkLevels(t, w, "dBFS/Hz", func(float64) float64 { return off })
	if !strings.Contains(w.spec.Readout(), " dBFS/Hz   B4") || !strings.Contains(w.spec.PeakLabel(), "−21.5 dBFS/Hz") {
		t.Errorf("readout %q, peak %q", w.spec.Readout(), w.spec.PeakLabel())
	}
	if want := -6 + off; math.Abs(w.spec.Shown().Peak.LevelDB-want) > 0.01 {
		t.Errorf("peak level %v, want %v", w.spec.Shown().Peak.LevelDB, want)
	}
	rows := exportCSV(t, w)
	if strings.Join(rows[0], ",") != "freq_hz,current_dbfs_hz,average_dbfs_hz,peak_hold_dbfs_hz" {
		t.Errorf("header %v", rows[0])
	}
	if l, _ := strconv.ParseFloat(rows[86][1], 64); math.Abs(l-(float64(fakeLevel(85*48000/4096.0))+off)) > 0.005 {
		t.Errorf("bin 85 exported as %v", rows[86])
	}
	if w.rta.UnitLabel() != "dBFS" {
		t.Errorf("RTA unit %q in dBFS/Hz, want dBFS (band levels are not densities)", w.rta.UnitLabel())
	}
	if err := w.cal.SetUnit(dsp.DBSPL); !errors.Is(err, panel.ErrNotCalibrated) || w.set.Unit.String() != "dbfs-hz" {
		t.Errorf("dB SPL before a calibration: %v, unit %q", err, w.set.Unit.String())
	}
}

func exportCSV(t *testing.T, w *Window) [][]string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spectrum.csv")
	if err := w.exportSpectrum(p); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(p)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2050 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	return rows
}

// writeMic writes a response file: flat below 200 Hz, rising linearly in
// log-frequency to +2 dB at 2 kHz and staying there.
func writeMic(t *testing.T, text string) string {
	p := filepath.Join(t.TempDir(), "mic.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodMic = "\"Sens Factor =-1.5dB, SERNO: 700\"\n* a test microphone\n20 0 0\n200 0 0\n"

// TestCalibrationAndMic: a full-scale calibration of 120 dB SPL shows
// dB SPL everywhere (spectrum, peak, RTA, the meters' RMS) at dBFS + 120,
// with the axes following; a microphone file subtracts its response per
// bin (log-frequency interpolation, checked at known points) and per band
// centre, and names itself; a bad file is refused naming its line; the
// calibration is remembered; Clear forgets it.
func TestCalibrationAndMic(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	if err := w.cal.CalibrateFullScale(120); err != nil {
		t.Fatal(err)
	}
	w.Pull()
	capture(w.win)
	checkLevels(t, w, "dB SPL", func(float64) float64 { return 120 })
	if w.spec.UnitLabel() != "dB SPL" || !strings.Contains(w.spec.PeakLabel(), "114.0 dB SPL") || specMax(w.spec) != 120 {
		t.Errorf("unit %q, peak %q, axis top %v", w.spec.UnitLabel(), w.spec.PeakLabel(), specMax(w.spec))
	}
	if !strings.Contains(w.lvl.Text(), "RMS 95.7 dB SPL") {
		t.Errorf("meters: %q", w.lvl.Text())
	}
	if err := w.cal.CalibrateFullScale(-3); err == nil {
		t.Error("a −3 dB SPL calibration: no error")
	}

	// 0 dB to 200 Hz, +2 dB from 2 kHz, linear in log f between
	bad := writeMic(t, goodMic+"2000 2 0\n1000 1 0\n")
	err := w.cal.LoadMicFile(bad)
	var ce *dsp.CalFileError
	if !errors.As(err, &ce) || ce.Line != 6 || !strings.Contains(err.Error(), "line 6") || w.cal.Mic() != nil {
		t.Errorf("bad file: %v", err)
	}
	if err := w.cal.LoadMicFile(writeMic(t, goodMic+"2000 2 0\n20000 2 0\n")); err != nil {
		t.Fatal(err)
	}
	w.change(func(s *Settings) { s.Lower = "rta" })
	w.Pull()
	capture(w.win)
	resp := func(f float64) float64 { return 2 * math.Min(1, math.Max(0, math.Log10(f/200))) }
	checkLevels(t, w, "dB SPL with mic", func(f float64) float64 { return 120 - resp(f) })
	if w.spec.UnitLabel() != "dB SPL (mic.txt)" || w.rta.UnitLabel() != "dB SPL (mic.txt)" {
		t.Errorf("units %q, %q", w.spec.UnitLabel(), w.rta.UnitLabel())
	}
	for _, b := range w.rta.Levels() {
		if want := float64(fakeLevel(b.Exact)) + 120 - resp(b.Exact); math.Abs(b.LevelDB-want) > 1e-3 {
			t.Errorf("band %v Hz: %.3f, want %.3f", b.Nominal, b.LevelDB, want)
		}
	}

	s := LoadSettings(a.Preferences())
	if s.Unit.String() != "dbspl" || s.CalOffset != 120 || !strings.Contains(s.CalNote, "120 dB SPL") || filepath.Base(s.MicFile) != "mic.txt" {
		t.Errorf("saved: unit %q, offset %v, note %q, mic %q", s.Unit.String(), s.CalOffset, s.CalNote, s.MicFile)
	}
	w.cal.Clear()
	w.Pull()
	checkLevels(t, w, "cleared", func(float64) float64 { return 0 })
	if w.set.Unit.String() != "dbfs" || w.cal.Mic() != nil || w.spec.UnitLabel() != "dBFS" || specMax(w.spec) != 0 {
		t.Errorf("after Clear: unit %q, mic %v, label %q", w.set.Unit.String(), w.cal.Mic(), w.spec.UnitLabel())
	}
}

// TestCalibrateFromInput: the input measured as a 94 dB SPL calibrator
// (the fake finds it at −26 dBFS) calibrates to +120 dB; a failed
// measurement leaves the calibration as it was and says why.
func TestCalibrateFromInput(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	var got error
	done := false
	w.cal.CalibrateFromInput(1, 94, func(err error) { got, done = err, true })
	waitFor(t, func() bool { return done })
	if got != nil || w.set.CalOffset != 120 || w.set.Unit.String() != "dbspl" || !strings.Contains(w.set.CalNote, "ch 2 = 94 dB SPL") {
		t.Errorf("calibrated: %v, %+v", got, w.set)
	}
	e.calErr = meter.ErrNoCalibratorInput
	done = false
	w.cal.CalibrateFromInput(0, 114, func(err error) { got, done = err, true })
	waitFor(t, func() bool { return done })
	if !errors.Is(got, meter.ErrNoCalibratorInput) || !strings.HasPrefix(got.Error(), "prism: ") || w.set.CalOffset != 120 {
		t.Errorf("failed measurement: %v, offset %v", got, w.set.CalOffset)
	}
	if err := w.cal.CalibrateAs(panel.CalModeInput, "ninety", 0); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("a level that is not a number: %v", err)
	}
	if err := w.cal.CalibrateAs(panel.CalModeFullScale, "110", 0); err != nil || w.set.CalOffset != 110 {
		t.Errorf("full scale from the dialog: %v, %v", err, w.set.CalOffset)
	}
}

// TestCalSourceNoAllocs: the converted spectra (dB SPL with a microphone
// file) cost no allocation per frame once the offsets are computed.
func TestCalSourceNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	mic, err := dsp.ParseMicResponse(strings.NewReader(goodMic+"2000 2 0\n"), "mic.txt")
	if err != nil {
		t.Fatal(err)
	}
	var d view.DisplayCal
	d.Set(dsp.DBSPL, 100, mic, window.Func{Kind: window.Hann})
	src := &view.CalSource{Src: newFakeEngine(), Cal: &d}
	var sp live.Spectrum
	src.Latest(0, &sp)
	if n := testing.AllocsPerRun(20, func() { src.Latest(0, &sp) }); n != 0 {
		t.Errorf("%v allocs per converted spectrum", n)
	}
}

// TestFileSpectrumUnit: the file tab's spectrum under the cursor shows
// the unit too, and follows a change of unit without a cursor move.
func TestFileSpectrumUnit(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	fs := syntheticFile()
	e.file = fs
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	col := fs.Columns[100]
	sp := &live.Spectrum{Current: col, BinHz: fs.BinHz(), Peak: fs.Peak(col)}
	w.fview.OnCursor(sp, 1, true)
	if err := w.cal.CalibrateFullScale(100); err != nil {
		t.Fatal(err)
	}
	check := func(what string, off float64) {
		t.Helper()
		got := w.fspec.Shown().Current
		for k := range col {
			if math.Abs(float64(got[k]-col[k])-off) > 1e-3 {
				t.Fatalf("%s: bin %d reads %v, the file %v", what, k, got[k], col[k])
			}
		}
		if d := w.fspec.Shown().Peak.LevelDB - sp.Peak.LevelDB; math.Abs(d-off) > 1e-3 {
			t.Errorf("%s: peak %+.3f dB from the file's", what, d)
		}
	}
	check("dB SPL", 100)
	if w.fspec.UnitLabel() != "dB SPL" {
		t.Errorf("file spectrum unit %q", w.fspec.UnitLabel())
	}
	if err := w.cal.SetUnit(dsp.DBFS); err != nil {
		t.Fatal(err)
	}
	check("dBFS", 0)
}

// TestCalibrationRestored: a window started on preferences holding a
// calibration and a microphone file shows dB SPL with both at once; a
// microphone file gone since is dropped with a notice, the level
// calibration kept.
func TestCalibrationRestored(t *testing.T) {
	mic := writeMic(t, goodMic+"2000 2 0\n")
	for _, c := range []struct {
		name, mic string
		wantMic   bool
	}{{"mic there", mic, true}, {"mic gone", mic + ".gone", false}} {
		t.Run(c.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			p := a.Preferences()
			p.SetString(prefPrefix+"unit", "dbspl")
			p.SetString(prefPrefix+"cal.note", "full-scale sine = 100 dB SPL")
			p.SetFloat(prefPrefix+"cal.offset", 100)
			p.SetString(prefPrefix+"cal.mic", c.mic)
			win := test.NewTempWindow(t, nil)
			win.Resize(fyne.NewSize(1280, 800))
			w := New(a, win, newFakeEngine(), Options{Manual: true, Do: func(f func()) { uiQueue <- f }})
			t.Cleanup(w.Close)
			w.Pull()
			resp := func(f float64) float64 { return 2 * math.Min(1, math.Max(0, math.Log10(f/200))) }
			if !c.wantMic {
				resp = func(float64) float64 { return 0 }
			}
			checkLevels(t, w, c.name, func(f float64) float64 { return 100 - resp(f) })
			if (w.cal.Mic() != nil) != c.wantMic || (!c.wantMic && (w.set.MicFile != "" || !strings.Contains(w.notice, "microphone file"))) {
				t.Errorf("mic %v, setting %q, notice %q", w.cal.Mic(), w.set.MicFile, w.notice)
			}
			w.cal.CalibrateDialog()
			if w.cal.Dialog() == nil {
				t.Error("no calibration dialog")
			}
		})
	}
}

// TestWindowPullNoAllocs: the window's per-frame pull in dB SPL with a
// microphone file (spectra and band levels converted) and the meters
// allocates nothing in steady state.
func TestWindowPullNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	if err := w.cal.CalibrateFullScale(110); err != nil {
		t.Fatal(err)
	}
	if err := w.cal.LoadMicFile(writeMic(t, goodMic+"2000 2 0\n")); err != nil {
		t.Fatal(err)
	}
	w.change(func(s *Settings) { s.Lower = "rta" })
	for range 3 {
		w.Pull()
	}
	w.statusDue = time.Now().Add(time.Hour) // the status text is rebuilt 4× a second: not this frame
	if n := testing.AllocsPerRun(50, w.Pull); n != 0 {
		t.Errorf("Window.Pull: %v allocs per frame", n)
	}
	if w.spec.UnitLabel() != "dB SPL (mic.txt)" || w.lastFrames == 0 {
		t.Errorf("unit %q, frames %d", w.spec.UnitLabel(), w.lastFrames)
	}
}

// TestUnitControl: the unit selector drives the setting; dB SPL without
// a calibration is refused and the selector goes back.
func TestUnitControl(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.cal.UnitSelect().SetSelected("dBFS/Hz")
	if w.set.Unit.String() != "dbfs-hz" || w.spec.UnitLabel() != "dBFS/Hz" {
		t.Errorf("after choosing dBFS/Hz: unit %q, label %q", w.set.Unit.String(), w.spec.UnitLabel())
	}
	w.cal.UnitSelect().SetSelected("dB SPL")
	if w.set.Unit.String() != "dbfs-hz" || w.cal.UnitSelect().Selected != "dBFS/Hz" {
		t.Errorf("dB SPL uncalibrated: unit %q, selector %q", w.set.Unit.String(), w.cal.UnitSelect().Selected)
	}
	if !strings.Contains(w.cal.Label(), "Not calibrated") {
		t.Errorf("label %q", w.cal.Label())
	}
	if err := w.cal.CalibrateFullScale(100); err != nil {
		t.Fatal(err)
	}
	if w.cal.UnitSelect().Selected != "dB SPL" || !strings.Contains(w.cal.Label(), "dB SPL = dBFS +100.0 dB (full-scale sine = 100 dB SPL)") {
		t.Errorf("calibrated: selector %q, label %q", w.cal.UnitSelect().Selected, w.cal.Label())
	}
}

// TestCalibrationSettingsSane: preferences that make no sense fall back:
// an unknown unit to dBFS, dB SPL without a calibration to dBFS, an
// offset beyond any microphone to none.
func TestCalibrationSettingsSane(t *testing.T) {
	for _, c := range []struct {
		unit, note string
		offset     float64
		wantUnit   string
		wantOffset float64
	}{
		{"watts", "", 0, "dbfs", 0},
		{"dbspl", "", 94, "dbfs", 0},
		{"dbspl", "full-scale sine = 1e9 dB SPL", 1e9, "dbfs", 0},
		{"dbfs-hz", "full-scale sine = 120 dB SPL", 120, "dbfs-hz", 120},
		{"dbspl", "full-scale sine = 120 dB SPL", 120, "dbspl", 120},
	} {
		a := test.NewTempApp(t)
		p := a.Preferences()
		p.SetString(prefPrefix+"unit", c.unit)
		p.SetString(prefPrefix+"cal.note", c.note)
		p.SetFloat(prefPrefix+"cal.offset", c.offset)
		s := LoadSettings(p)
		if s.Unit.String() != c.wantUnit || s.CalOffset != c.wantOffset {
			t.Errorf("%+v: unit %q offset %v", c, s.Unit.String(), s.CalOffset)
		}
	}
}
