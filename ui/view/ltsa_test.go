package view

import (
	"image"
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
	"github.com/prismaudio/prism/app/plot"
)

// syntheticLTSA is six hours of one-minute rows from 2021-03-15 00:00
// UTC at 48 kHz (129 bins of 187.5 Hz): a tone rising from 2 to 20 kHz
// over the hours at −40 dB over a floor of −100 dB, and no rows from
// 02:00 to 03:00 (a gap).
func syntheticLTSA() (*cache.LTSA, time.Time, time.Time) {
	from := time.Date(2021, 3, 15, 0, 0, 0, 0, time.UTC)
	l := &cache.LTSA{Average: time.Minute, Unit: "dBFS/Hz", Engine: "cpu"}
	for k := range 129 {
		l.Freqs = append(l.Freqs, float64(k)*187.5)
	}
	for m := range 360 {
		if m >= 120 && m < 180 {
			continue
		}
		tone := 2000 + 18000*float64(m)/360
		row := archive.Row{Start: from.Add(time.Duration(m) * time.Minute), Seconds: 60, Level: make([]float32, 129)}
		for k, f := range l.Freqs {
			row.Level[k] = -100
			if math.Abs(f-tone) < 200 {
				row.Level[k] = -40
			}
		}
		l.Rows = append(l.Rows, row)
	}
	return l, from, from.Add(6 * time.Hour)
}

// TestLTSAView: the overview renders (golden), the gap stays the plot's
// background, the readout names the instant, frequency and level, the
// wheel zooms around the cursor and asks for the span, a click hands the
// instant under it, and the time axis labels the clock.
func TestLTSAView(t *testing.T) {
	test.NewTempApp(t)
	l, from, to := syntheticLTSA()
	v := NewLTSAView(plot.Viridis, "")
	var asked [2]time.Time
	var picked time.Time
	v.OnView = func(a, b time.Time) { asked = [2]time.Time{a, b} }
	v.OnPick = func(t time.Time) { picked = t }
	win := showIn(t, v, 720, 300)
	v.SetLTSA(l, from, to)
	test.AssertImageMatches(t, "ltsa.png", capture(win))
	if lo, hi := v.Range(); lo != -100 || hi != -40 {
		t.Errorf("colour range %v…%v dB, want the levels' −100…−40", lo, hi)
	}

	// x of an instant, y of a frequency (widget units: the test canvas's scale is 1)
	a := v.area
	xAt := func(h float64) float32 { return float32(a.Min.X) + float32(h/6*float64(a.Dx())) }
	yAt := func(f float64) float32 { return float32(a.Max.Y-1) - float32(v.axis.Pos(f)*float64(a.Dy())) }
	img := capture(win)
	pal := paletteFor(true)
	if c := img.RGBAAt(int(xAt(2.5)), int(yAt(10000))); c != pal.plotBg {
		t.Errorf("the gap at 02:30 draws %v, want the plot background %v", c, pal.plotBg)
	}

	// hover at 04:00, on the tone: 2 + 18·4/6 = 14 kHz
	test.MoveMouse(win.Canvas(), fyne.NewPos(xAt(4), yAt(14000)))
	if r := v.Readout(); !strings.HasPrefix(r, "2021-03-15 0") || !strings.Contains(r, "UTC") || !strings.Contains(r, "-40.0 dBFS/Hz") {
		t.Errorf("readout on the tone at 04:00: %q", r)
	}
	test.MoveMouse(win.Canvas(), fyne.NewPos(xAt(2.5), yAt(14000)))
	if r := v.Readout(); !strings.Contains(r, "no recording") {
		t.Errorf("readout in the gap: %q", r)
	}

	test.TapAt(v, fyne.NewPos(xAt(3), yAt(5000)))
	if d := picked.Sub(from.Add(3 * time.Hour)); d < -time.Minute || d > time.Minute {
		t.Errorf("a click at the middle picks %v, want about 03:00", picked)
	}

	v.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(xAt(4), yAt(1000))}, Scrolled: fyne.Delta{DY: 1}})
	f, e := v.View()
	if span := e.Sub(f); span != time.Duration(0.8*6*float64(time.Hour)) || asked[0] != f || asked[1] != e {
		t.Errorf("a wheel step in shows %v (asked %v), want 80 %% of 6 h", span, asked)
	}
	if at4 := f.Add(time.Duration(float64(e.Sub(f)) * 4 / 6)); at4.Sub(from.Add(4*time.Hour)).Abs() > 2*time.Minute {
		t.Errorf("the zoom moved 04:00 from under the cursor: %v", at4)
	}
	v.SetView(from.Add(-time.Hour), from.Add(time.Hour))
	if f, e := v.View(); !f.Equal(from) || !e.Equal(from.Add(2*time.Hour)) {
		t.Errorf("a view before the archive shows %v…%v, want it clamped to 00:00…02:00", f, e)
	}

	// a finer LTSA of the view replaces the overview
	d := &cache.LTSA{Average: 10 * time.Second, Freqs: l.Freqs, Unit: l.Unit}
	for s := range 720 {
		row := archive.Row{Start: from.Add(time.Duration(s) * 10 * time.Second), Level: make([]float32, 129)}
		for k := range row.Level {
			row.Level[k] = -70
		}
		d.Rows = append(d.Rows, row)
	}
	v.SetDetail(d)
	if v.source() != d {
		t.Error("the detail covering the view is not shown")
	}
	v.SetView(from, to)
	if v.source() != l {
		t.Error("the detail is shown beyond what it covers")
	}

	// a colour range set on the same span redraws the title that states it
	title := func() *image.RGBA {
		img := capture(win)
		return img.SubImage(image.Rect(a.Min.X, 0, a.Max.X, a.Min.Y)).(*image.RGBA)
	}
	before := title()
	v.SetRange(-90, -30, false)
	if after := title(); sameRGBA(before, after) {
		t.Error("the title still shows the old colour range after SetRange")
	}
}

// sameRGBA says whether a and b hold the same pixels.
func sameRGBA(a, b *image.RGBA) bool {
	if a.Rect != b.Rect {
		return false
	}
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			if a.RGBAAt(x, y) != b.RGBAAt(x, y) {
				return false
			}
		}
	}
	return true
}

func TestFormatUTC(t *testing.T) {
	cases := []struct {
		t    time.Time
		step time.Duration
		want string
	}{
		{time.Date(2021, 3, 15, 0, 0, 0, 0, time.UTC), time.Hour, "Mar 15"},
		{time.Date(2021, 3, 15, 6, 0, 0, 0, time.UTC), 3 * time.Hour, "06:00"},
		{time.Date(2021, 3, 15, 6, 0, 30, 0, time.UTC), 30 * time.Second, "06:00:30"},
		{time.Date(2021, 3, 17, 0, 0, 0, 0, time.UTC), 48 * time.Hour, "Mar 17"},
	}
	for _, c := range cases {
		if got := FormatUTC(c.t, c.step); got != c.want {
			t.Errorf("FormatUTC(%v, %v) = %q, want %q", c.t, c.step, got, c.want)
		}
	}
	ticks := utcTicks(time.Date(2021, 3, 15, 0, 20, 0, 0, time.UTC), time.Date(2021, 3, 15, 3, 0, 0, 0, time.UTC), time.Hour)
	if len(ticks) != 3 || ticks[0].Hour() != 1 || ticks[2].Hour() != 3 {
		t.Errorf("hourly ticks from 00:20 to 03:00: %v", ticks)
	}
}

func TestFormatAverage(t *testing.T) {
	for d, want := range map[time.Duration]string{
		100 * time.Millisecond: "100 ms", 5 * time.Second: "5 s", 90 * time.Second: "90 s",
		time.Minute: "1 min", 30 * time.Minute: "30 min", 2 * time.Hour: "2 h",
	} {
		if got := FormatAverage(d); got != want {
			t.Errorf("FormatAverage(%v) = %q, want %q", d, got, want)
		}
	}
}
