package analysis

import (
	"context"
	"math"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestBandsDecimation: the decimation is the least power of two at which
// a 2^20-point transform resolves the lowest band (1/48 octave at 20 Hz
// needs bins of 0.072 Hz: 48 kHz needs none; 96, 192 and 384 kHz need 2,
// 4 and 8), and none where the full rate suffices.
func TestBandsDecimation(t *testing.T) {
	b48, _ := dsp.Bands(48, 20, 21, 1e6)
	b3, _ := dsp.Bands(3, 20, 21, 1e6)
	for _, c := range []struct {
		band       dsp.Band
		rate, want int
	}{{b48[0], 44100, 1}, {b48[0], 48000, 1}, {b48[0], 96000, 2}, {b48[0], 192000, 4}, {b48[0], 384000, 8}, {b3[0], 384000, 1}} {
		d := bandsDecimation(c.band, c.rate)
		if d != c.want || dsp.UnderResolved(c.band, float64(c.rate/d)/bandsMaxFFT) {
			t.Errorf("band %g Hz at %d Hz: decimation %d, want %d", c.band.Nominal, c.rate, d, c.want)
		}
	}
}

// TestBandsMultirate96k: at 96 kHz the multirate bank measures the
// 1/48-octave bands from 20 Hz on the signal decimated by 2 and reads the
// same levels as the 48 kHz analysis of the same sines (20.1, 31.4, 45 Hz
// and 1 kHz, 6 s: transforms of 2^18 points at 48 kHz both) within
// 0.02 dB in every band above −60 dBFS, and marks the same bands
// under-resolved.
func TestBandsMultirate96k(t *testing.T) {
	const seconds = 6
	hz := []float64{20.1, 31.4, 45, 1000}
	res := map[int]BandsResult{}
	for _, rate := range []int{48000, 96000} {
		x := make([]float32, seconds*rate)
		for i := range x {
			v := 0.0
			for j, f := range hz {
				v += 0.1 * math.Sin(2*math.Pi*f*float64(i)/float64(rate)+float64(j))
			}
			x[i] = float32(v)
		}
		in := apptest.TempPath(t, "multi.wav")
		apptest.WriteWAV(t, in, rate, [][]float32{x})
		r, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 48, Weighting: dsp.WeightZ, Channel: -1, MinFreq: 20, MaxFreq: 1100}, testEngines(t)[0])
		if err != nil {
			t.Fatal(err)
		}
		res[rate] = r
	}
	lo, hi := res[48000], res[96000]
	if lo.Decimation != 1 || lo.FFT != 1<<18 || hi.Decimation != 2 || hi.DecimatedFFT != 1<<18 || len(lo.Levels) != len(hi.Levels) {
		t.Fatalf("48 kHz: D %d N %d; 96 kHz: D %d N %d/%d; %d and %d bands", lo.Decimation, lo.FFT, hi.Decimation, hi.FFT, hi.DecimatedFFT, len(lo.Levels), len(hi.Levels))
	}
	worst := 0.0
	for i, l := range hi.Levels {
		if l.UnderResolved != lo.Levels[i].UnderResolved || l.Nominal != lo.Levels[i].Nominal {
			t.Errorf("band %g Hz: under-resolved %v (48 kHz: %g Hz, %v)", l.Nominal, l.UnderResolved, lo.Levels[i].Nominal, lo.Levels[i].UnderResolved)
		}
		if lo.Levels[i].LevelDB > -60 {
			d := math.Abs(l.LevelDB - lo.Levels[i].LevelDB)
			worst = max(worst, d)
			if d > 0.02 {
				t.Errorf("band %g Hz: %.4f dB at 96 kHz, %.4f at 48 kHz", l.Nominal, l.LevelDB, lo.Levels[i].LevelDB)
			}
		}
	}
	t.Logf("worst difference %.4f dB over %d bands", worst, len(hi.Levels))
}

// TestBandsMultirateBurst: through the decimated pass, a 30 Hz burst
// (0.5 s, Hann envelope) in a 2 s 96 kHz file reads the file's exact mean
// square, summed over the bands that hold it (20…60 Hz), within 0.05 dB
// wherever it falls, at the very start and end too: the decimation
// filter's whole convolution is kept and every sample weighs the same.
func TestBandsMultirateBurst(t *testing.T) {
	const rate, n, burst = 96000, 2 * 96000, 48000
	for _, at := range []int{0, 70001, n - burst} {
		x := make([]float32, n)
		ms := 0.0
		for i := range burst {
			env := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/burst)
			x[at+i] = float32(0.1 * env * math.Sin(2*math.Pi*30*float64(i)/rate))
			ms += float64(x[at+i]) * float64(x[at+i]) / n
		}
		in := apptest.TempPath(t, "burst96.wav")
		apptest.WriteWAV(t, in, rate, [][]float32{x})
		res, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 48, Weighting: dsp.WeightZ, Channel: -1, MinFreq: 20, MaxFreq: 60}, testEngines(t)[0])
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, l := range res.Levels {
			sum += math.Pow(10, l.LevelDB/10)
		}
		got, want := 10*math.Log10(sum), dsp.MeanSquareDBFS(ms)
		if res.Decimation != 2 || math.Abs(got-want) > 0.05 {
			t.Errorf("burst at %d: D %d, bands sum to %.4f dB, want %.4f", at, res.Decimation, got, want)
		}
	}
}
