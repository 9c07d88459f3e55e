package ui

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/meter/soundlevel"
)

// TestLevelHistoryStrip: the strip is hidden until W; shown, it pulls the
// engine's level history on the tick (3.5 s of a 1-kHz sine at
// amplitude 0.1: three 1-s rows, LAeq −20 dB after the first); its
// export writes the level log; W hides it again; B toggles the file
// view's bandwidth line.
func TestLevelHistoryStrip(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	if w.lh.Shown() {
		t.Fatal("the strip shows before W")
	}
	const rate = 48000
	x := make([]float32, rate*7/2)
	for i := range x {
		x[i] = float32(0.1 * math.Sin(2*math.Pi*1000*float64(i)/rate))
	}
	e.LevelHistory().Write(x, 1, rate)
	w.typedRune('w')
	if !w.lh.Shown() {
		t.Fatal("W did not show the strip")
	}
	w.lastFrames = 0
	w.Pull()
	rows := w.lh.View().Rows()
	if len(rows) != 3 || math.Abs(rows[2].LAeq+20) > 0.02 {
		t.Fatalf("rows %+v, want 3 with LAeq −20", rows)
	}
	w.win.Canvas().Capture() // draws the strip
	if txt := w.lh.View().Text(); !strings.HasPrefix(txt, "LAeq −20.0") {
		t.Errorf("readout %q", txt)
	}
	path := filepath.Join(t.TempDir(), "levels.csv")
	if err := w.lh.Export(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err != nil || len(lines) != 4 || lines[0] != soundlevel.CSVHeader {
		t.Errorf("export: %v\n%s", err, b)
	}
	w.typedRune('W')
	if w.lh.Shown() {
		t.Error("W did not hide the strip")
	}
	on := w.fp.Bandwidth.On()
	w.typedRune('b')
	if w.fp.Bandwidth.On() == on {
		t.Error("B did not toggle the bandwidth line")
	}
}
