package view

import (
	"image/color"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/meter"
)

// TestMetersViewZonesAndCalibration: a bar over −9 dBFS is yellow there
// and red over −1 dBTP; with a level calibration the RMS reads dB SPL.
func TestMetersViewZonesAndCalibration(t *testing.T) {
	test.NewTempApp(t)
	v := NewMetersView()
	win := test.NewTempWindow(t, v)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(200, 400))
	src := meterFunc(func(m *meter.Meters) {
		*m = meter.Meters{Channels: 1}
		inf := math.Inf(-1)
		m.Ch[0] = meter.Channel{SamplePeak: 1, TruePeak: 1, SamplePeakHold: inf, TruePeakHold: inf, TruePeakMax: inf, RMS: -20}
	})
	v.Pull(src)
	capture(win)
	pal := ColorsFor(true)
	peak, _ := v.Bars(0)
	x := (peak.Min.X + peak.Max.X) / 2
	for _, z := range []struct {
		db   float64
		want color.RGBA
	}{{-30, pal.Traces[2]}, {-5, color.RGBA{240, 200, 40, 255}}, {0, pal.Peak}} {
		if got := v.Image().RGBAAt(x, v.LevelY(z.db)); got != z.want {
			t.Errorf("%v dBFS: %v, want %v", z.db, got, z.want)
		}
	}
	if !strings.HasSuffix(v.Text(), "\n1  TP max −∞  RMS −20.0") {
		t.Errorf("text %q", v.Text())
	}
	v.SetCalibration(true, 114)
	capture(win)
	if !strings.Contains(v.Text(), "RMS 94.0 dB SPL") {
		t.Errorf("calibrated: %q", v.Text())
	}
}

type meterFunc func(*meter.Meters)

func (f meterFunc) ReadMeters(m *meter.Meters) { f(m) }

// TestMetersNoAllocs: pulling the meters (the engine's ReadMeters into the
// view's copy) and drawing them allocate nothing in steady state.
func TestMetersNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewMetersView()
	win := test.NewTempWindow(t, v)
	win.Resize(fyne.NewSize(200, 400))
	v.Pull(e)
	capture(win)
	var m meter.Meters
	if n := testing.AllocsPerRun(50, func() { e.ReadMeters(&m) }); n != 0 {
		t.Errorf("ReadMeters: %v allocs", n)
	}
	if n := testing.AllocsPerRun(50, func() {
		v.pulled = false // redraw every time
		v.Pull(e)
		v.draw(v.img.Rect.Dx(), v.img.Rect.Dy())
	}); n != 0 {
		t.Errorf("pull and draw: %v allocs", n)
	}
}

// TestMetersRefreshRate: the meters redraw every meterRefreshSeconds of
// input (not every 20 ms step), at once when the channels change or the
// meters are reset, and not at all when nothing changed.
func TestMetersRefreshRate(t *testing.T) {
	test.NewTempApp(t)
	v := NewMetersView()
	var m meter.Meters
	src := meterFunc(func(dst *meter.Meters) { *dst = m })
	var drawn []float64
	pull := func(sec float64, ch int) {
		m.Seconds, m.Channels = sec, ch
		m.Ch[0].RMS = -sec // something changes every step
		before := v.drawnAt
		v.Pull(src)
		if v.drawnAt != before || len(drawn) == 0 {
			drawn = append(drawn, v.drawnAt)
		}
	}
	for i := 1; i <= 10; i++ {
		pull(0.02*float64(i), 1)
	}
	pull(0.20, 2) // a new source: at once
	pull(0.02, 2) // a reset: at once
	pull(0.02, 2) // nothing new
	want := []float64{0.02, 0.06, 0.10, 0.14, 0.18, 0.20, 0.02}
	if len(drawn) != len(want) {
		t.Fatalf("redrawn at %v, want %v", drawn, want)
	}
	for i := range want {
		if math.Abs(drawn[i]-want[i]) > 1e-9 {
			t.Fatalf("redrawn at %v, want %v", drawn, want)
		}
	}
}
