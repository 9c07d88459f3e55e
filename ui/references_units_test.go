package ui

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/ui/view"
)

// diffLevels is the difference plot's line (nil: no difference shown).
func diffLevels(w *Window) []float32 {
	w.Pull()
	d := w.difference()
	if d == nil || len(d.Lines()) == 0 {
		return nil
	}
	return d.Lines()[0].DB
}

// legendLabels are the references the live spectrum's legend lists.
func legendLabels(w *Window) []string {
	w.rp.SetDifference(-1)
	w.Pull()
	capture(w.win)
	var l []string
	for _, it := range w.spec.RefLegend() {
		l = append(l, it.Label)
	}
	return l
}

// TestReferenceUnitsRoundTrip: a reference stored in dBFS records its
// unit and analysis in its file; shown on a dBFS/Hz axis it is moved by
// −10·log10(2·ENBW·rate/FFT) (computed here from the values the file
// records) and on a dB SPL axis by the calibration, so that the
// difference of the same spectrum to it reads 0 dB at every bin in every
// unit; one stored in dB SPL and saved reloads in dB SPL, is not drawn on
// a dBFS axis without a calibration (its row says why in one sentence,
// the legend leaves it out, the difference to it is empty), and is drawn
// again once calibrated; a microphone file on the axis refuses the
// references made without it.
func TestReferenceUnitsRoundTrip(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.Pull()
	if err := w.rp.Store("bench"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.csv")
	if err := w.rp.Save(0, path); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(text), "# prism reference\n# unit: dBFS\n# sample_rate_hz: 48000\n# fft: 4096\n# window: hann\n# enbw_bins: 1.5") ||
		!strings.Contains(string(text), "# averaging: exp 1 s\nfreq_hz,level\n") {
		t.Fatalf("saved file begins %q", string(text)[:200])
	}
	back, err := dsp.ReadTraceFile(path)
	if err != nil || back.Unit != "dBFS" || back.Info.FFT != 4096 || back.Info.SampleRateHz != 48000 || back.Info.CalNote != "" || back.Info.Mic != "" {
		t.Fatalf("read back %v %+v", err, back)
	}
	w.rp.SetDifference(0)
	if d := diffLevels(w); len(d) != 2049 || slices.ContainsFunc(d, func(v float32) bool { return math.Abs(float64(v)) > 1e-3 }) {
		t.Fatalf("dBFS: difference to itself not 0 dB")
	}

	// dBFS/Hz: the density of a sine level, by the file's own record
	if err := w.cal.SetUnit(dsp.DBFSPerHz); err != nil {
		t.Fatal(err)
	}
	wantOff := -10 * math.Log10(2*back.Info.ENBWBins*back.Info.SampleRateHz/float64(back.Info.FFT))
	if r := w.rp.Refs()[0]; r.NotDrawn != "" || math.Abs(r.OffsetDB-wantOff) > 1e-12 || math.Abs(wantOff+15.46) > 0.01 {
		t.Errorf("on dBFS/Hz: offset %v (want %v), not drawn %q", r.OffsetDB, wantOff, r.NotDrawn)
	}
	if d := diffLevels(w); len(d) != 2049 || slices.ContainsFunc(d, func(v float32) bool { return math.Abs(float64(v)) > 1e-3 }) {
		t.Errorf("dBFS/Hz: the spectrum less the converted reference is not 0 dB")
	}

	// dB SPL: calibrated at 120 dB for full scale
	if err := w.cal.CalibrateFullScale(120); err != nil {
		t.Fatal(err)
	}
	if r := w.rp.Refs()[0]; r.NotDrawn != "" || r.OffsetDB != 120 {
		t.Errorf("on dB SPL: offset %v, not drawn %q", r.OffsetDB, r.NotDrawn)
	}
	if d := diffLevels(w); len(d) != 2049 || slices.ContainsFunc(d, func(v float32) bool { return math.Abs(float64(v)) > 1e-3 }) {
		t.Errorf("dB SPL: the spectrum less the converted reference is not 0 dB")
	}
	if err := w.rp.Store("spl"); err != nil {
		t.Fatal(err)
	}
	spl := w.rp.Refs()[1].Trace
	if spl.Unit != "dB SPL" || spl.Info.CalOffsetDB != 120 || !strings.Contains(spl.Info.CalNote, "120") ||
		spl.Level[100] != float64(fakeLevel(100*48000.0/4096)-3)+120 {
		t.Errorf("stored in dB SPL: %q %+v, bin 100 %v", spl.Unit, spl.Info, spl.Level[100])
	}
	splPath := filepath.Join(dir, "room.csv")
	if err := w.rp.Save(1, splPath); err != nil {
		t.Fatal(err)
	}

	// no calibration, dBFS: the dB SPL reference is not drawn, and says why
	w.cal.Clear()
	if err := w.rp.Load(splPath); err != nil {
		t.Fatal(err)
	}
	names, units, why := w.rp.Rows()
	wantWhy := "Not drawn. It is in dB SPL (calibration: " + spl.Info.CalNote + "); the axis is dBFS and no calibration is set — use Calibrate… or switch the unit to dB SPL."
	if !slices.Equal(names, []string{"bench", "spl", "room"}) || !slices.Equal(units, []string{"dBFS", "dB SPL", "dB SPL"}) ||
		why[0] != "" || why[1] != wantWhy || why[2] != wantWhy {
		t.Errorf("rows %q %q %q", names, units, why)
	}
	if l := legendLabels(w); !slices.Equal(l, []string{"bench"}) {
		t.Errorf("legend %q, want the dBFS reference only", l)
	}
	w.rp.SetDifference(2)
	if d := diffLevels(w); d == nil || len(d) != 0 {
		t.Errorf("difference to a reference the axis cannot show: %d values", len(d))
	}

	// calibrated again (another offset): the reloaded dB SPL one is drawn as it is
	if err := w.cal.CalibrateFullScale(100); err != nil {
		t.Fatal(err)
	}
	if r := w.rp.Refs(); r[2].NotDrawn != "" || r[2].OffsetDB != 0 || r[0].OffsetDB != 100 {
		t.Errorf("calibrated at 100: offsets %v %v, %q", r[2].OffsetDB, r[0].OffsetDB, r[2].NotDrawn)
	}
	// reference 2 (stored at 120 dB for full scale) less the spectrum at 100:
	// the difference is the 20 dB the calibration moved
	if d := diffLevels(w); len(d) != 2049 || math.Abs(float64(d[100])+20) > 1e-3 {
		t.Errorf("difference to the reloaded dB SPL reference at bin 100: %v, want −20", d)
	}

	// a microphone file: references made without one are not drawn
	if err := w.cal.LoadMicFile(writeMic(t, goodMic+"2000 2 0\n")); err != nil {
		t.Fatal(err)
	}
	if _, _, why := w.rp.Rows(); !strings.Contains(why[0], "It was made with no microphone file and the axis with the microphone file mic.txt — remove the microphone file to show it.") {
		t.Errorf("with a microphone file: %q", why)
	}
}

// TestLoadPrismFiles: Load… takes the window's own spectrum export (the
// file Ctrl+E writes; it used to be refused with "wrong number of
// fields"), asking which of its traces, in the unit its columns say;
// `prism transfer`'s CSV of two channels (each, or one) as transfer
// functions, listed as such, never offered for the difference nor drawn
// over spectra, handed to the transfer view (Transfers, OnChange); REW's
// text as dB SPL; and a transfer function stored by the transfer view
// (StoreTrace) comes back from the reference directory exactly.
func TestLoadPrismFiles(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "refs")
	w, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: keep})
	changes := 0
	w.rp.OnChange = func() { changes++ }
	w.Pull()
	dir := t.TempDir()
	export := filepath.Join(dir, "spectrum.csv")
	if err := w.exportSpectrum(export); err != nil {
		t.Fatal(err)
	}
	if err := w.rp.Open(export); err != nil {
		t.Fatal(err)
	}
	if got, chosen := w.rp.Choosing(); !slices.Equal(got, []string{"spectrum current", "spectrum average", "spectrum peak hold", "every one"}) || chosen != "spectrum average" {
		t.Fatalf("choosing from %q, %q first", got, chosen)
	}
	if err := w.rp.Choose("spectrum average"); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.rp.Choosing(); got != nil {
		t.Error("the dialog is still open")
	}
	avg := w.rp.Refs()[0].Trace
	if avg.Unit != "dBFS" || len(avg.Level) != 2049 || avg.IsTransfer() {
		t.Fatalf("export loaded as %q, %d points", avg.Unit, len(avg.Level))
	}
	for k, lv := range avg.Level {
		if want := float64(fakeLevel(float64(k)*48000/4096) - 3); math.Abs(lv-want) > 0.005+1e-5 || avg.FreqHz[k] != float64(k)*48000/4096 {
			t.Fatalf("bin %d: loaded %v Hz %v dB, exported %v dB (to 2 decimals)", k, avg.FreqHz[k], lv, want)
		}
	}

	// prism transfer's CSV, two channels, written by its own writer
	res := transfer.Result{SampleRate: 48000, FFT: 8, FreqHz: []float64{0, 6000, 12000, 18000, 24000}, Channels: []transfer.Channel{
		{Index: 1, MagnitudeDB: []float64{-200, 1.25, 2.5, -3.125, 0}, PhaseDeg: []float64{0, 90.5, -179.25, 12, 180}, Coherence: []float64{0, 0.5, 0.999, 1, 0.25}},
		{Index: 3, MagnitudeDB: []float64{-200, -1, -2, -3, -4}, PhaseDeg: []float64{0, 1, 2, 3, 4}, Coherence: []float64{0, 0.125, 0.25, 0.375, 0.5}},
	}}
	tf := filepath.Join(dir, "tf.csv")
	if err := transfer.WriteFile(tf, encode.FormatCSV, res, nil, false); err != nil {
		t.Fatal(err)
	}
	before := changes
	if err := w.rp.Open(tf); err != nil {
		t.Fatal(err)
	}
	if got, chosen := w.rp.Choosing(); !slices.Equal(got, []string{"tf ch1", "tf ch3", "every one"}) || chosen != "tf ch1" {
		t.Fatalf("choosing from %q, %q first", got, chosen)
	}
	if err := w.rp.Choose("every one"); err != nil {
		t.Fatal(err)
	}
	if changes-before != 2 {
		t.Errorf("OnChange called %d times for two references", changes-before)
	}
	ts := w.rp.Transfers()
	if len(ts) != 2 || ts[0].Name != "tf ch1" || ts[1].Name != "tf ch3" || ts[0].Unit != "dB" ||
		!slices.Equal(ts[0].Level, res.Channels[0].MagnitudeDB) || !slices.Equal(ts[0].PhaseDeg, res.Channels[0].PhaseDeg) ||
		!slices.Equal(ts[0].Coherence, res.Channels[0].Coherence) || !slices.Equal(ts[1].Coherence, res.Channels[1].Coherence) {
		t.Fatalf("transfer functions %+v", ts)
	}
	_, units, why := w.rp.Rows()
	if !slices.Equal(units, []string{"dBFS", "transfer function", "transfer function"}) || why[1] != "" {
		t.Errorf("rows say %q %q", units, why)
	}
	if got := diffPicker(t, w).Options; !slices.Equal(got, []string{"None", "spectrum average"}) {
		t.Errorf("difference offered to %q", got)
	}
	if w.rp.SetDifference(1); w.difference() != nil {
		t.Error("a difference to a transfer function")
	}
	if l := legendLabels(w); !slices.Equal(l, []string{"spectrum average"}) {
		t.Errorf("spectrum legend %q", l)
	}
	w.rp.Show(1, false)
	if ts := w.rp.Transfers(); len(ts) != 1 || ts[0].Name != "tf ch3" {
		t.Errorf("with ch1 hidden: %d transfer functions", len(ts))
	}

	// the transfer view's Store reference; a name taken gets a number
	st, err := dsp.NewTransferTrace("tf ch3", []float64{10, 100, 1000}, []float64{-1.5, 0.25, 3}, []float64{-10, 20.125, 170}, []float64{0.9, 0.95, 1})
	if err != nil {
		t.Fatal(err)
	}
	st.Info = &dsp.TraceInfo{SampleRateHz: 48000, FFT: 65536, Window: "hann", ENBWBins: 1.5, Averaging: "complex 64"}
	if err := w.rp.StoreTrace(st); err != nil || w.rp.Refs()[3].Trace.Name != "tf ch3 (2)" {
		t.Fatalf("StoreTrace: %v, %q", err, w.rp.Refs()[3].Trace.Name)
	}

	// REW's text: dB SPL, not drawn on this uncalibrated dBFS axis
	rew := filepath.Join(dir, "sub.txt")
	writeFile(t, rew, "* Measurement data measured by REW V5.20\n* Freq(Hz) SPL(dB)\n20.000 70.500\n200.000 75.250\n2000.000 72.000\n")
	if err := w.rp.Open(rew); err != nil || w.rp.Refs()[4].Trace.Unit != "dB SPL" || !strings.Contains(w.rp.Refs()[4].NotDrawn, "no calibration is set") {
		t.Errorf("REW's text: %v, %+v", err, w.rp.Refs()[4])
	}

	// the next window: the same references back, transfer functions exactly
	w2, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: keep})
	if got := refNames(w2); !slices.Equal(got, []string{"spectrum average", "tf ch1", "tf ch3", "tf ch3 (2)", "sub"}) {
		t.Fatalf("next window: %q", got)
	}
	back := w2.rp.Refs()[3].Trace
	if !back.IsTransfer() || back.Unit != "dB" || *back.Info != *st.Info || !slices.Equal(back.FreqHz, st.FreqHz) || !slices.Equal(back.Level, st.Level) ||
		!slices.Equal(back.PhaseDeg, st.PhaseDeg) || !slices.Equal(back.Coherence, st.Coherence) {
		t.Errorf("kept transfer function came back as %+v", back)
	}
	if r := w2.rp.Refs()[0]; r.Trace.Unit != "dBFS" || r.IsTransfer() {
		t.Errorf("kept export trace came back as %q", r.Trace.Unit)
	}
	// Load takes every trace of a file, or none if they do not all fit
	if err := w2.rp.Load(tf); err != nil || len(w2.rp.Refs()) != 7 || w2.rp.Refs()[5].Trace.Name != "tf ch1 (2)" {
		t.Fatalf("loading two more: %v, %q", err, refNames(w2))
	}
	if err := w2.rp.Load(tf); err == nil || !strings.Contains(err.Error(), "2 references do not fit: at most 8 are kept, delete 1 first") || len(w2.rp.Refs()) != view.MaxReferences-1 {
		t.Errorf("two more than fit: %v", err)
	}
}

// TestLoadBadReferenceMessage: a bad file is said above the references in
// one sentence naming the line and the action, with the Go error behind
// Details and no dialog in the way; the next success clears it.
func TestLoadBadReferenceMessage(t *testing.T) {
	w, _ := newTestWindow(t, newFakeEngine())
	dir := t.TempDir()
	bad := filepath.Join(dir, "notnum.csv")
	for _, c := range []struct{ text, want string }{
		{"freq_hz,level\n100,-20\n200,-21\n300,loud\n", `Line 4 of notnum.csv: "loud" is not a number — fix the file or load another.`},
		{"time_s,0,10\n0,-1,-2\n", "Line 1 of notnum.csv: this is a spectrogram (time_s, then a column per frequency), not a spectrum: export one spectrum (Ctrl+E) or store one as a reference — fix the file or load another."},
		{"* REW\n20 70 1\n10 71 2\n", "Line 3 of notnum.csv: frequencies must increase — fix the file or load another."},
	} {
		writeFile(t, bad, c.text)
		if err := w.rp.Open(bad); err == nil {
			t.Fatalf("%q loaded", c.text)
		}
		msg, details := w.rp.Message()
		if msg != c.want || !strings.HasPrefix(details, "prism: load reference: dsp: trace notnum line ") {
			t.Errorf("message %q details %q, want %q", msg, details, c.want)
		}
	}
	if n := len(w.win.Canvas().Overlays().List()); n != 0 {
		t.Errorf("%d dialogs open", n)
	}
	good := filepath.Join(dir, "good.csv")
	writeFile(t, good, "freq_hz,level\n100,-20\n")
	if err := w.rp.Open(good); err != nil {
		t.Fatal(err)
	}
	if msg, _ := w.rp.Message(); msg != "" {
		t.Errorf("after a good file the message is %q", msg)
	}
}

// TestReferenceUnitNotKnown: a file that does not say its unit is drawn
// as it is and its row offers the units; the one chosen converts it (by
// the calibration on a dB SPL axis), its kept file says it from then on,
// and the next window reads it so.
func TestReferenceUnitNotKnown(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "refs")
	w, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: keep})
	old := filepath.Join(t.TempDir(), "old.csv")
	writeFile(t, old, "freq_hz,level\n20,-60\n20000,-90\n")
	if err := w.cal.CalibrateFullScale(110); err != nil {
		t.Fatal(err)
	}
	if err := w.rp.Load(old); err != nil {
		t.Fatal(err)
	}
	if r := w.rp.Refs()[0]; r.OffsetDB != 0 || r.NotDrawn != "" {
		t.Errorf("unit not known: offset %v, %q", r.OffsetDB, r.NotDrawn)
	}
	picks := sideWidgets(w, func(s *widget.Select) bool { return s.PlaceHolder == "unit?" })
	if len(picks) != 1 || !slices.Equal(picks[0].Options, view.UnitLabels) {
		t.Fatalf("%d unit pickers", len(picks))
	}
	picks[0].SetSelected("dBFS")
	if r := w.rp.Refs()[0]; r.Trace.Unit != "dBFS" || r.OffsetDB != 110 || r.NotDrawn != "" {
		t.Errorf("said dBFS: unit %q offset %v %q", r.Trace.Unit, r.OffsetDB, r.NotDrawn)
	}
	if n := len(sideWidgets(w, func(s *widget.Select) bool { return s.PlaceHolder == "unit?" })); n != 0 {
		t.Errorf("%d unit pickers left", n)
	}
	text, _ := os.ReadFile(w.rp.Refs()[0].File)
	if !strings.HasPrefix(string(text), "# prism reference\n# unit: dBFS\nfreq_hz,level\n20,-60\n") {
		t.Errorf("kept file now %q", text)
	}
	w2, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: keep})
	if r := w2.rp.Refs(); len(r) != 1 || r[0].Trace.Unit != "dBFS" {
		t.Errorf("next window: %+v", r)
	}
}
