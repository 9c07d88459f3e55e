package dsp_test

import (
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
)

// A band spec is parsed once, then checked against each file's rate.
func ExampleParseBand() {
	b, err := dsp.ParseBand("third:1000")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v %.1f–%.1f Hz\n", b.Kind, b.Lo, b.Hi)
	fmt.Println(b.Check(2000))
	// Output:
	// bandpass 891.3–1122.0 Hz
	// band "third:1000": edges must be below Nyquist (1000 Hz at 2000 Hz sampling)
}

// Third-octave bands of IEC 61260-1 around 1 kHz, with the A weighting at
// their centres.
func ExampleBands() {
	bands, err := dsp.Bands(3, 800, 1250, 24000)
	if err != nil {
		panic(err)
	}
	for _, b := range bands {
		fmt.Printf("%g Hz: %.1f…%.1f Hz, A %+.1f dB\n", b.Nominal, b.Lower, b.Upper, dsp.WeightA.GainDB(b.Exact))
	}
	// Output:
	// 800 Hz: 707.9…891.3 Hz, A -0.8 dB
	// 1000 Hz: 891.3…1122.0 Hz, A +0.0 dB
	// 1250 Hz: 1122.0…1412.5 Hz, A +0.6 dB
}

// The dominant peak of a dB spectrum, between bins, with its note: a
// sine of amplitude 0.5 at 440 Hz in a 1024-point Hann frame at 8 kHz
// (bin 56.32), its spectrum in dBFS as the engines write it.
func ExampleWindowKernel_PeakDB() {
	const n, rate = 1024, 8000.0
	win := make([]float64, n)
	sum := 0.0
	for i := range win {
		win[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/n)
		sum += win[i]
	}
	db := make([]float32, n/2+1)
	for k := range db { // the DFT, directly
		var re, im float64
		for i, w := range win {
			x := 0.5 * math.Cos(2*math.Pi*440*float64(i)/rate)
			s, c := math.Sincos(-2 * math.Pi * float64(k*i) / n)
			re, im = re+w*x*c, im+w*x*s
		}
		db[k] = float32(20 * math.Log10(2*math.Hypot(re, im)/sum))
	}
	k, err := dsp.NewWindowKernel(win)
	if err != nil {
		panic(err)
	}
	p := k.PeakDB(db, rate/n)
	fmt.Printf("%.3f Hz, %.3f dBFS, %s\n", p.Freq, p.LevelDB, p.Note)
	fmt.Println(dsp.MeanSquareDBFS(0.5), dsp.MeanSquareDBFS(0.125))
	// Output:
	// 440.000 Hz, -6.021 dBFS, A4
	// 0 -6.020599913279624
}
