package view

import (
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/room"
	"github.com/prismaudio/prism/app/sweep"
)

// knownMeasureData is a measurement of known shape: the transfer view's
// response (fakeResponse: a +6 dB peak at 1 kHz over an 80 Hz high-pass)
// 1/48 octave from 20 Hz to 20 kHz; harmonic k at −30−6·(k−2) dB re the
// fundamental at every frequency where k·f ≤ 20 kHz (the THD their
// power sum); and the room analysis of exponentially decaying noise
// (T60 0.5 s, 1 s at 48 kHz, a fixed seed).
func knownMeasureData(t *testing.T) *MeasureData {
	d := &MeasureData{Summary: "20 Hz–20 kHz sweep, 5 s at -12 dBFS · latency 2.08 ms · peak -3.2 dBFS · SNR 92 dB · polarity +",
		Smoothing: 6, Rate: fakeTrRate}
	for f := 20.0; f <= 20000; f *= math.Pow(2, 1.0/48) {
		h := fakeResponse(f)
		d.FreqHz, d.MagnitudeDB, d.PhaseDeg = append(d.FreqHz, f), append(d.MagnitudeDB, dual.MagnitudeDB(h)), append(d.PhaseDeg, cmplx.Phase(h)*180/math.Pi)
	}
	dist := &sweep.Distortion{HarmonicDB: make([][]float64, sweep.MaxHarmonic-1)}
	for f := 20.0; f <= 10000; f *= math.Pow(2, 1.0/24) {
		dist.FreqHz = append(dist.FreqHz, f)
		var p float64
		for k := 2; k <= sweep.MaxHarmonic; k++ {
			v := math.NaN()
			if float64(k)*f <= 20000 {
				v = -30 - 6*float64(k-2)
				p += math.Pow(10, v/10)
			}
			dist.HarmonicDB[k-2] = append(dist.HarmonicDB[k-2], v)
		}
		dist.THDPercent = append(dist.THDPercent, 100*math.Sqrt(p))
	}
	d.Distortion = dist
	const rate = 48000
	ir := make([]float64, rate)
	seed := uint32(1)
	for i := range ir {
		seed = seed*1664525 + 1013904223
		ir[i] = (float64(seed)/(1<<32) - 0.5) * math.Pow(10, -3*float64(i)/rate/0.5)
	}
	res, err := room.Analyze(ir, rate, room.Options{Fraction: 1})
	if err != nil {
		t.Fatal(err)
	}
	d.Room, d.ETC = &res, room.ETC(ir)
	return d
}

// TestMeasureView: the golden image of a known measurement (the
// magnitude and the phase above, the distortion and the decays below,
// the room table under them), the table's rows, and the exported image's
// size; nothing but the hint before the first.
func TestMeasureView(t *testing.T) {
	test.NewTempApp(t)
	v := NewMeasureView()
	win := showIn(t, v, 1000, 760)
	if v.Image(100, 100).Bounds().Dx() != 200 || !strings.HasPrefix(v.summary.Text, "No measurement yet") {
		t.Errorf("empty view: %q", v.summary.Text)
	}
	d := knownMeasureData(t)
	v.SetData(d)
	test.AssertImageMatches(t, "measure.png", capture(win))
	table := v.table.Text
	for _, row := range []string{"band", "63 Hz", "1000 Hz", "8000 Hz", "broadband"} {
		if !strings.Contains(table, row) {
			t.Errorf("the room table has no %q row:\n%s", row, table)
		}
	}
	if img := v.Image(400, 300); img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
		t.Errorf("exported image %v", img.Bounds())
	}
	if v.Data() != d || v.summary.Text != d.Summary {
		t.Error("the data shown is not the data given")
	}
}
