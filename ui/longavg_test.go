package ui

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/ui/internal/uitest"
	"github.com/prismaudio/prism/ui/view"
)

// flatSpectrum is a spectrum of bins bins all at db.
func flatSpectrum(bins int, db float32) []float32 {
	s := make([]float32, bins)
	for k := range s {
		s[k] = db
	}
	return s
}

// yOf is the pixel row of level db in a spectrum plot's area, computed
// here from the axis's definition (dbMax at the top row, dbMin at the
// bottom one), not by the plot's own mapping.
func yOf(v *view.SpectrumView, db float64) int {
	a := v.Area()
	dbMin, dbMax := v.Range()
	return a.Min.Y + int(math.Round((dbMax-db)/(dbMax-dbMin)*float64(a.Dy()-1)))
}

// avgPixelsAt counts the rows within ±1 of db where column x of v's last
// frame has the first channel's average colour.
func avgPixelsAt(v *view.SpectrumView, x int, db float64) int {
	want := view.ColorsFor(v.Dark()).MixAvg // the fake is stereo: the mix is shown
	n := 0
	for y := yOf(v, db) - 1; y <= yOf(v, db)+1; y++ {
		if near(v.Image().RGBAAt(x, y), want, 2) {
			n++
		}
	}
	return n
}

// legendText is the legend label of the average trace ("" none).
func avgLegend(v *view.SpectrumView) string {
	for _, it := range v.Legend() {
		if strings.Contains(it.Text(), "average") {
			return it.Text()
		}
	}
	return ""
}

// TestLongTermAverageMode: choosing "Long-term" in the controls draws the
// engine's LongAvg as the average trace (at the fake's level, not the
// exponential average's), does not restart the analysis, and names the
// time averaged in the legend: frames × hop / rate, computed here.
func TestLongTermAverageMode(t *testing.T) {
	e := newFakeEngine()
	e.spectrum = flatSpectrum(2049, -40) // Current −40, ExpAvg −43, LongAvg −60 dBFS
	w, _ := newTestWindow(t, e)
	e.settle()
	applied := len(e.applied)
	e.mu.Lock()
	e.longFrames = 4500
	e.mu.Unlock()
	w.c.avg.SetSelected("Long-term (since reset)")
	if w.set.Averaging != view.AvgLong {
		t.Fatalf("the selector set averaging %q", w.set.Averaging)
	}
	e.settle()
	if len(e.applied) != applied {
		t.Errorf("choosing the long-term average applied settings %d times: it would restart it", len(e.applied)-applied)
	}
	w.Pull()
	capture(w.win)
	v := w.spec
	x := (v.Area().Min.X + v.Area().Max.X) / 2
	if n := avgPixelsAt(v, x, -40+fakeLongOffset); n == 0 {
		t.Errorf("no average trace at the long-term average's %d dBFS", -40+fakeLongOffset)
	}
	if n := avgPixelsAt(v, x, -43); n != 0 {
		t.Errorf("the exponential average (−43 dBFS) is drawn in the long-term mode")
	}
	secs := 4500 * 1024 / 48000.0 // 96 s
	if got, want := avgLegend(v), fmt.Sprintf("long-term average (%.0f s)", secs); got != want {
		t.Errorf("legend %q, want %q", got, want)
	}
	e.mu.Lock()
	e.longFrames = 200
	e.mu.Unlock()
	w.Pull()
	capture(w.win)
	if got, want := avgLegend(v), fmt.Sprintf("long-term average (%.1f s)", 200*1024/48000.0); got != want || want != "long-term average (4.3 s)" {
		t.Errorf("legend %q, want %q", got, want)
	}
	// the same spectrum under exponential averaging draws −43 and not −60
	w.c.avg.SetSelected("Exponential 1 s")
	w.Pull()
	capture(w.win)
	if avgPixelsAt(v, x, -43) == 0 || avgPixelsAt(v, x, -60) != 0 || avgLegend(v) != "average" {
		t.Errorf("exponential: legend %q, trace at −43: %d px, at −60: %d px", avgLegend(v), avgPixelsAt(v, x, -43), avgPixelsAt(v, x, -60))
	}
}

// TestLongTermAverageKeysResetAndSettings: A cycles off → exponential →
// linear → long-term → off; the choice is saved and restored; R sends the
// settings to the engine again (which restarts its long-term average) and
// the legend's time starts again from 0.
func TestLongTermAverageKeysResetAndSettings(t *testing.T) {
	e := newFakeEngine()
	w, a := newTestWindow(t, e)
	var got []string
	for range 4 {
		w.typedRune('a')
		got = append(got, w.set.Averaging)
		if LoadSettings(a.Preferences()).Averaging != w.set.Averaging {
			t.Errorf("averaging %q is not saved", w.set.Averaging)
		}
	}
	if strings.Join(got, " ") != "lin long off exp" { // from the default, exp
		t.Errorf("A cycles %v", got)
	}
	w.typedRune('a')
	w.typedRune('a')
	if w.set.Averaging != view.AvgLong || LoadSettings(a.Preferences()).Averaging != view.AvgLong {
		t.Fatalf("averaging %q, saved %q", w.set.Averaging, LoadSettings(a.Preferences()).Averaging)
	}
	if w.c.avg.Selected != "Long-term (since reset)" {
		t.Errorf("the selector shows %q", w.c.avg.Selected)
	}
	if !strings.Contains(keyHelp(), "A\taveraging: off → exponential → linear → long-term") {
		t.Error("the keys' help does not list the long-term average")
	}
	e.settle()
	e.mu.Lock()
	e.longFrames = 3000
	applied := len(e.applied)
	e.mu.Unlock()
	w.Pull()
	capture(w.win)
	if got := avgLegend(w.spec); got != "long-term average (64 s)" {
		t.Errorf("before R: legend %q", got)
	}
	w.typedRune('r')
	e.settle()
	if len(e.applied) != applied+1 {
		t.Fatalf("R applied the settings %d times, want once", len(e.applied)-applied)
	}
	w.Pull()
	capture(w.win)
	if got := avgLegend(w.spec); got != "long-term average (0.0 s)" {
		t.Errorf("after R: legend %q", got)
	}
}

// TestLongTermAverageStoredExportedConverted: in the long-term mode a
// stored reference holds LongAvg (none while it holds no frame),
// exportSpectrum writes it in a column named long_term_average_<unit>,
// and the unit conversion shifts it as it shifts the current spectrum.
func TestLongTermAverageStoredExportedConverted(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.typedRune('a')
	w.typedRune('a') // exp → lin → long
	e.settle()
	w.Pull()
	if err := w.rp.Store("empty"); err == nil || !strings.Contains(err.Error(), "prism: the long-term average holds no frame") {
		t.Errorf("storing a long-term average of no frame: %v", err)
	}
	e.mu.Lock()
	e.longFrames = 100
	e.mu.Unlock()
	w.Pull()
	if err := w.rp.Store("long"); err != nil {
		t.Fatal(err)
	}
	binHz := 48000.0 / 4096
	ref := w.rp.Refs()[0].Trace
	for k, lv := range ref.Level {
		if want := float64(fakeLevel(float64(k)*binHz) + fakeLongOffset); lv != want {
			t.Fatalf("stored bin %d: %g dB, want the long-term average's %g", k, lv, want)
		}
	}
	path := filepath.Join(t.TempDir(), "spectrum.csv")
	if err := w.exportSpectrum(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || strings.Join(rows[0], ",") != "freq_hz,current_dbfs,long_term_average_dbfs,peak_hold_dbfs" {
		t.Fatalf("header %v, %v", rows[0], err)
	}
	for _, k := range []int{1, 85, 1000, 2048} {
		lv, _ := strconv.ParseFloat(rows[k+1][2], 64)
		if want := float64(fakeLevel(float64(k)*binHz) + fakeLongOffset); math.Abs(lv-want) > 0.005 {
			t.Errorf("exported bin %d: %v, want %.3f", k, rows[k+1], want)
		}
	}
	if err := w.cal.SetUnit(dsp.DBFSPerHz); err != nil {
		t.Fatal(err)
	}
	w.Pull()
	sp := w.spec.Shown()
	for _, k := range []int{1, 85, 1000, 2048} {
		fk := float64(k) * binHz
		off := float64(sp.Current[k]) - float64(fakeLevel(fk)) // the density offset at k
		if math.Abs(off) < 1 || math.Abs(float64(sp.LongAvg[k])-float64(fakeLevel(fk)+fakeLongOffset)-off) > 1e-3 {
			t.Errorf("dBFS/Hz bin %d: current shifted %.3f dB, long-term average %.3f → %.3f", k, off, fakeLevel(fk)+fakeLongOffset, sp.LongAvg[k])
		}
	}
	if err := w.exportSpectrum(path); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(raw), "freq_hz,current_dbfs_hz,long_term_average_dbfs_hz,") {
		t.Errorf("dBFS/Hz export header %q", strings.SplitN(string(raw), "\n", 2)[0])
	}
}

// TestHarmonicReadoutOnLongTerm: in the long-term mode the distortion
// readout measures LongAvg (the fake's spectrum moved fakeLongOffset dB):
// the fundamental reads that much lower, the THD (a ratio) the same.
func TestHarmonicReadoutOnLongTerm(t *testing.T) {
	const rate, n, a1, f0 = 48000, 8192, 0.5, 1000.0
	amps := map[int]float64{2: 0.001 * a1, 3: 0.0005 * a1}
	truth := 100 * math.Sqrt(0.001*0.001+0.0005*0.0005) // %
	e := newFakeEngine()
	e.fft = n
	e.spectrum = uitest.DistortedSpectrum(t, "blackman-harris", n, rate, a1, f0, amps, 1e-6, 8)
	w, _ := newTestWindow(t, e)
	w.c.window.SetSelected("blackman-harris")
	w.c.avg.SetSelected("Long-term (since reset)")
	harmonicsCheck(t, w).SetChecked(true)
	w.Pull()
	waitFor(t, func() bool { return !w.harm.Busy() })
	d, line, err := w.distortion()
	if err != nil {
		t.Fatal(err)
	}
	if want := 20*math.Log10(a1) + fakeLongOffset; math.Abs(d.FundamentalDBFS-want) > 0.01 || math.Abs(d.THDPercent-truth) > 0.002 {
		t.Errorf("fundamental %.3f dBFS, THD %.5f %%; want %.3f dBFS (the long-term average's) and %.5f %% (%s)", d.FundamentalDBFS, d.THDPercent, want, truth, line)
	}
}
