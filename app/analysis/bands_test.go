package analysis

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestSineInItsBand: a sine at −20 dBFS reads −20.0 ± 0.1 dB in its band,
// A-weighted, for every fraction, on both engines: 1 kHz for octaves and
// thirds (a band centre), and for even fractions, where 1 kHz is a band
// edge, the centre of the band just above it (its A weighting is added
// back).
func TestSineInItsBand(t *testing.T) {
	for _, e := range testEngines(t) {
		for _, frac := range []int{1, 3, 6, 12, 24} {
			hz := 1000.0
			if frac%2 == 0 {
				hz = 1000 * math.Pow(math.Pow(10, 0.3), 1/(2*float64(frac)))
			}
			in := apptest.GenWAV(t, fmt.Sprintf("sine:%.6f:-20", hz), 48000, 4)
			wA := dsp.WeightA.GainDB(hz)
			res, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: frac, Weighting: dsp.WeightA, Channel: -1, MinFreq: 20, MaxFreq: 20000}, e)
			levels := res.Levels
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range levels {
				if l.Lower < hz && hz < l.Upper {
					found = true
					if math.Abs(l.LevelDB-wA+20) > 0.1 {
						t.Errorf("%s 1/%d: band %g Hz reads %.3f dB, want −20.0 ± 0.1", e.Preferred.Name(), frac, l.Nominal, l.LevelDB)
					}
				}
			}
			if !found {
				t.Errorf("1/%d: no band holds 1 kHz", frac)
			}
		}
	}
}

// TestPinkIsFlatInThirds: pink noise reads flat across third-octave bands
// from 25 Hz to 16 kHz within ±0.5 dB (60 s, so each band averages enough
// bins and frames; the FFT size is chosen for the 25 Hz band).
func TestPinkIsFlatInThirds(t *testing.T) {
	in := apptest.GenWAV(t, "pink:-20", 48000, 60)
	e := testEngines(t)[0]
	res, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 3, Weighting: dsp.WeightZ, Channel: -1, MinFreq: 25, MaxFreq: 16000}, e)
	levels, n := res.Levels, res.FFT
	if err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	for _, l := range levels {
		mean += l.LevelDB
	}
	mean /= float64(len(levels))
	for _, l := range levels {
		if math.Abs(l.LevelDB-mean) > 0.5 || l.UnderResolved {
			t.Errorf("band %g Hz: %.2f dB, mean %.2f (N=%d, under-resolved %v)", l.Nominal, l.LevelDB, mean, n, l.UnderResolved)
		}
	}
	if len(levels) != 29 {
		t.Errorf("%d bands from 25 Hz to 16 kHz, want 29", len(levels))
	}
}

// TestBandsShortFile: a file shorter than the automatic FFT size gets a
// smaller FFT, with the bands it cannot resolve marked, instead of an error.
func TestBandsShortFile(t *testing.T) {
	in := apptest.GenWAV(t, "sine:1000:-20", 48000, 0.5)
	res, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 3, Weighting: dsp.WeightZ, Channel: -1, MinFreq: 20, MaxFreq: 20000}, testEngines(t)[0])
	levels, n := res.Levels, res.FFT
	if err != nil {
		t.Fatal(err)
	}
	under := 0
	for _, l := range levels {
		if l.UnderResolved {
			under++
		}
		if l.Nominal == 1000 && math.Abs(l.LevelDB+20) > 0.1 {
			t.Errorf("1 kHz band %.2f dB", l.LevelDB)
		}
	}
	if n > 24000 || under == 0 {
		t.Errorf("FFT %d for a 24000-sample file, %d bands marked under-resolved", n, under)
	}
}

// TestBandsBurstAnywhere: a smooth 1 kHz burst reads its exact mean square
// over the whole file (every sample weighted once: no fade-in, no
// unanalysed tail) within 0.05 dB wherever it falls, at the very start and
// end too.
func TestBandsBurstAnywhere(t *testing.T) {
	const rate, n, burst = 48000, 3 * 48000, 9600 // 3 s file, 0.2 s burst
	e := testEngines(t)[0]
	for _, at := range []int{0, 1234, 48000, 70001, n - burst} {
		x := make([]float32, n)
		ms := 0.0
		for i := range burst {
			env := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/burst) // Hann envelope: the burst stays in its band
			v := 0.1 * env * math.Sin(2*math.Pi*1000*float64(i)/rate)
			x[at+i] = float32(v)
			ms += float64(x[at+i]) * float64(x[at+i])
		}
		ms /= n
		in := apptest.TempPath(t, "burst.wav")
		apptest.WriteWAV(t, in, rate, [][]float32{x})
		res, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 3, Weighting: dsp.WeightZ, Channel: -1, MinFreq: 500, MaxFreq: 2000}, e)
		if err != nil {
			t.Fatal(err)
		}
		want := dsp.MeanSquareDBFS(ms)
		for _, l := range res.Levels {
			if l.Nominal == 1000 && math.Abs(l.LevelDB-want) > 0.05 {
				t.Errorf("burst at %d: 1 kHz band %.3f dB, want %.3f (the file's mean square)", at, l.LevelDB, want)
			}
		}
	}
}

// TestBandsTailCovered: whatever the file's length in hops, its last
// samples weigh as much as the others: a steady 1 kHz sine reads the
// file's exact mean square in its band within 0.01 dB for lengths that
// are and are not whole hops, with transforms short and as long as the
// file.
func TestBandsTailCovered(t *testing.T) {
	const rate = 48000
	e := testEngines(t)[0]
	for _, n := range []int{96000, 96123, 98304} {
		x := apptest.Tone(n, rate, 1000, 0.1)
		ms := 0.0
		for _, v := range x {
			ms += float64(v) * float64(v) / float64(n)
		}
		in := apptest.TempPath(t, "tail.wav")
		apptest.WriteWAV(t, in, rate, [][]float32{x})
		for _, fft := range []int{8192, 65536} {
			res, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 3, Weighting: dsp.WeightZ, Channel: -1, FFT: fft, MinFreq: 1000, MaxFreq: 1000}, e)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Levels[0].LevelDB, dsp.MeanSquareDBFS(ms); math.Abs(got-want) > 0.01 {
				t.Errorf("%d samples, N=%d: 1 kHz band %.4f dB, want %.4f (the file's mean square)", n, fft, got, want)
			}
		}
	}
}
