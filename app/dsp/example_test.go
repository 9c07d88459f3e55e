package dsp_test

import (
	"fmt"

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

// The dominant peak of a dB spectrum, between bins, with its note.
func ExampleFindPeak() {
	db := []float32{-120, -100, -80, -12, -6.5, -9, -70, -100}
	p := dsp.FindPeak(db, 10) // bins 10 Hz apart
	fmt.Printf("%.2f Hz, %.2f dBFS, %s\n", p.Freq, p.LevelDB, p.Note)
	fmt.Println(dsp.MeanSquareDBFS(0.5), dsp.MeanSquareDBFS(0.125))
	// Output:
	// 41.88 Hz, -6.36 dBFS, E1
	// 0 -6.020599913279624
}
