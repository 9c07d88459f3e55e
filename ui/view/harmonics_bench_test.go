package view

import (
	"math"
	"strconv"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/plot"
)

// BenchmarkHarmonicMeasure is one distortion measurement of a spectrum
// (dB back to power, dsp.AnalyzeDistortion), as the window makes it four
// times a second, by FFT size; the window kernel is made once.
func BenchmarkHarmonicMeasure(b *testing.B) {
	for _, n := range []int{4096, 65536} {
		b.Run("fft="+strconv.Itoa(n), func(b *testing.B) {
			binHz := 48000 / float64(n)
			db := make([]float32, n/2+1)
			for k := range db {
				f := float64(k) * binHz
				db[k] = float32(math.Max(-140, -6-3*math.Pow((f-1000)/binHz, 2)))
			}
			var h HarmonicMeter
			h.measure(db, binHz, windowOf("blackman-harris"))
			b.ReportAllocs()
			for b.Loop() {
				h.measure(db, binHz, windowOf("blackman-harris"))
			}
		})
	}
}

// BenchmarkFrameWithReferences is a live spectrum frame at 800×300 with
// eight references drawn and the harmonics marked: one pull and one draw.
func BenchmarkFrameWithReferences(b *testing.B) {
	test.NewTempApp(b)
	e := newFakeSource()
	v := NewSpectrumView(48000, 4096, plot.Log, -120, 0)
	win := test.NewTempWindow(b, v)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(800, 300))
	v.Pull(e, []int{2})
	var refs RefSet
	for i := range MaxReferences {
		t, err := TraceOf("r"+strconv.Itoa(i), v.spectra[0].ExpAvg, v.spectra[0].BinHz)
		if err != nil {
			b.Fatal(err)
		}
		if err := refs.Add(t); err != nil {
			b.Fatal(err)
		}
	}
	v.SetReferences(&refs)
	h := &HarmonicMeter{on: true}
	h.measure(v.spectra[0].Current, v.spectra[0].BinHz, windowOf("hann"))
	v.SetHarmonics(h)
	capture(win)
	b.ReportAllocs()
	for b.Loop() {
		v.Pull(e, []int{2})
		v.draw(v.img.Rect.Dx(), v.img.Rect.Dy())
	}
}
