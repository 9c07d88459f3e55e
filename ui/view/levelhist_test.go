package view

import (
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/live/levelhist"
	"github.com/prismaudio/prism/app/meter/soundlevel"
)

// levelRows is n one-second rows: LAeq −40 dB with a 10-dB swell every
// minute, the other levels above it by fixed steps (LCeq +3, LAFmax +6,
// LASmax +4, LCpeak +12, true peak +9 dBTP re LAeq).
func levelRows(n int) []soundlevel.Row {
	rows := make([]soundlevel.Row, n)
	for i := range rows {
		l := -40 + 10*math.Sin(2*math.Pi*float64(i)/60)
		rows[i] = soundlevel.Row{StartSeconds: float64(i), Samples: 48000, LAeq: l, LCeq: l + 3, LAFmax: l + 6,
			LASmax: l + 4, LCpeak: l + 12, SamplePeakDBFS: l + 8, TruePeakDBTP: l + 9}
	}
	return rows
}

// rowSource hands out rows as levelhist.History does.
type rowSource struct{ rows []soundlevel.Row }

func (s *rowSource) Rows(dst []soundlevel.Row, after int64) (int, int64) {
	if after > int64(len(s.rows)) {
		return 0, int64(len(s.rows))
	}
	n := copy(dst, s.rows[after:])
	return n, after + int64(n)
}

// TestLevelHistoryGolden: ten minutes of rows in the 10-min span, dark.
func TestLevelHistoryGolden(t *testing.T) {
	test.NewTempApp(t)
	v := NewLevelHistoryView()
	win := test.NewTempWindow(t, v)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(800, 180))
	v.SetSpan(10 * time.Minute)
	v.Pull(&rowSource{levelRows(600)})
	test.AssertImageMatches(t, "levelhist.png", capture(win))
}

// TestLevelHistoryTraces: a constant LAeq of −40 dB draws its colour at
// that level's row at the right edge and across the span; the newest
// row's numbers are the readout (in dB SPL with a calibration); rows
// pulled in chunks all arrive; a source that started over is read anew.
func TestLevelHistoryTraces(t *testing.T) {
	test.NewTempApp(t)
	v := NewLevelHistoryView()
	win := test.NewTempWindow(t, v)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(600, 200))
	rows := levelRows(1300) // more than a chunk
	for i := range rows {
		rows[i].LAeq = -40
	}
	src := &rowSource{rows}
	v.Pull(src)
	if len(v.Rows()) != 1300 {
		t.Fatalf("%d rows pulled, want 1300", len(v.Rows()))
	}
	v.SetSpan(time.Minute)
	img := capture(win)
	y := dbToY(-40, levelMinDB, levelMaxDB, v.area.Min.Y, v.area.Max.Y)
	want := paletteFor(true).traces[0]
	for _, x := range []int{v.area.Min.X + 5, (v.area.Min.X+v.area.Max.X)/2 + 3, v.area.Max.X - 5} { // off the time grid
		if got := img.RGBAAt(x, y); got != want {
			t.Errorf("LAeq at (%d, %d): %v, want %v", x, y, got, want)
		}
	}
	if txt := v.Text(); !strings.HasPrefix(txt, "LAeq −40.0  LCeq") || !strings.HasSuffix(txt, "dBTP") {
		t.Errorf("readout %q", txt)
	}
	v.SetCalibration(true, 120)
	capture(win)
	if txt := v.Text(); !strings.HasPrefix(txt, "LAeq 80.0  LCeq") {
		t.Errorf("calibrated readout %q", txt)
	}
	src.rows = levelRows(3) // the history started over
	v.Pull(src)
	if len(v.Rows()) != 3 {
		t.Errorf("after a start-over: %d rows, want 3", len(v.Rows()))
	}
	if levelhist.Capacity < 3600 {
		t.Errorf("the history keeps %d rows: less than the 1-h span", levelhist.Capacity)
	}
}
