package dual

import (
	"fmt"
	"math"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// delayPair returns white noise x and y = polarity·x delayed by d samples
// (fractional by the windowed sinc) plus noise 40 dB down, long enough for
// frames frames of n at hop n/2.
func delayPair(n, frames int, d float64, polarity float64, seed uint64) (x, y []float64) {
	margin := int(math.Ceil(math.Abs(d))) + 256
	length := n/2*(frames+1) + 2*margin
	src := apptest.WhiteNoise(length, seed, 1)
	dy := apptest.Delayed(src, d)
	noise := apptest.WhiteNoise(length, seed+1, 0.01)
	x = src[margin : length-margin]
	y = make([]float64, len(x))
	for i := range y {
		y[i] = polarity*dy[margin+i] + noise[margin+i]
	}
	return x, y
}

func findDelay(t *testing.T, x, y []float64, n int, phat bool) (Delay, *DelayFinder) {
	t.Helper()
	a, err := NewCrossAverager(n/2+1, MaxTransferFrames, 0)
	if err != nil {
		t.Fatal(err)
	}
	spectraOf(t, a, x, y, n, n/2)
	f := NewDelayFinder(n/2 + 1)
	return f.Find(a.Spectra().Gxy, phat), f
}

// Delays from −1 s to +1 s (8 kHz, N = 32768: lags ±2 s) are found exact
// to ±1 sample when whole (they come out within 0.05) and to ±0.1 sample
// when fractional, with GCC-PHAT and without; an inverted measurement
// reports polarity −1.
func TestDelayFinder(t *testing.T) {
	const fs, n = 8000, 32768
	delays := []float64{-8000, -4321.75, -1, 0, 120, 120.37, 2345.5, 8000}
	if testing.Short() {
		delays = []float64{-8000, -4321.75, 0, 120.37, 8000}
	}
	for i, d := range delays {
		for _, phat := range []bool{true, false} {
			pol := 1.0
			if i%2 == 1 {
				pol = -1
			}
			t.Run(fmt.Sprintf("delay=%v/phat=%v", d, phat), func(t *testing.T) {
				x, y := delayPair(n, 4, d, pol, uint64(10+i))
				got, _ := findDelay(t, x, y, n, phat)
				tol := 0.1
				if d == math.Trunc(d) {
					tol = 1
				}
				if !got.Found || math.Abs(got.Samples-d) > tol || got.Polarity != int(pol) {
					t.Fatalf("found %+v, want %v samples, polarity %v", got, d, pol)
				}
				if ms := got.Seconds(fs) * 1000; math.Abs(ms-d/fs*1000) > tol/fs*1000 {
					t.Errorf("%v ms, want %v", ms, d/fs*1000)
				}
				t.Logf("error %.4f samples, peak/RMS %.0f", got.Samples-d, got.PeakRatio)
			})
		}
	}
}

// Two independent noises have no delay: Found is false, and the finder
// says so rather than giving a number.
func TestDelayNoCorrelation(t *testing.T) {
	const n = 8192
	for _, phat := range []bool{true, false} {
		for seed := range uint64(4) {
			x := apptest.WhiteNoise(n/2*9, 100+seed, 1)
			y := apptest.WhiteNoise(n/2*9, 200+seed, 1)
			got, _ := findDelay(t, x, y, n, phat)
			if got.Found || got.Samples != 0 || got.Polarity != 0 {
				t.Errorf("phat %v seed %d: found %+v in uncorrelated noise", phat, seed, got)
			}
			if got.PeakRatio > MinPeakRatio || got.PeakRatio < 2 {
				t.Errorf("phat %v seed %d: peak/RMS %v", phat, seed, got.PeakRatio)
			}
		}
	}
}

// The impulse response of a pure delay of d samples, PHAT-weighted, is a
// unit impulse at lag d: IR reads 1 there and 0 elsewhere; its ETC reads
// 0 dB at d; Find does not allocate.
func TestDelayImpulseResponseETC(t *testing.T) {
	const n, d = 256, 37
	gxy := make([]complex128, n/2+1)
	for k := range gxy {
		s, c := math.Sincos(-2 * math.Pi * float64(k*d) / n)
		gxy[k] = complex(3*c, 3*s)
	}
	f := NewDelayFinder(len(gxy))
	got := f.Find(gxy, true)
	if !got.Found || math.Abs(got.Samples-d) > 1e-6 || got.Polarity != 1 {
		t.Fatalf("found %+v, want %d", got, d)
	}
	ir := f.IR()
	for i, v := range ir {
		want := 0.0
		if i-n/2 == d {
			want = 1
		}
		if math.Abs(v-want) > 1e-9 {
			t.Fatalf("IR lag %d: %v, want %v", i-n/2, v, want)
		}
	}
	etc := f.ETC()
	if etc[n/2+d] != 0 {
		t.Errorf("ETC at the delay: %v dB, want 0", etc[n/2+d])
	}
	for i, v := range etc {
		if v > 0 {
			t.Errorf("ETC lag %d: %v dB above the peak", i-n/2, v)
		}
	}
	if a := testing.AllocsPerRun(10, func() { f.Find(gxy, true); f.ETC() }); a != 0 {
		t.Errorf("Find+ETC: %v allocs per call, want 0", a)
	}
	if m := got.Metres(8000, SpeedOfSound); math.Abs(m-float64(d)/8000*343) > 1e-6 {
		t.Errorf("metres %v", m)
	}
}

// TestDelayRefine: Refine given the peak of Find's own response (its
// index, value and RMS) reports what Find did, for a clear peak of either
// polarity and for no clear peak.
func TestDelayRefine(t *testing.T) {
	const n = 4096
	check := func(name string, x, y []float64, phat bool) {
		want, f := findDelay(t, x, y, n, phat)
		ir := f.IR() // lag order: index j is lag j − N/2
		at, ss := 0, 0.0
		for j, v := range ir {
			ss += v * v
			if math.Abs(v) > math.Abs(ir[at]) {
				at = j
			}
		}
		a, err := NewCrossAverager(n/2+1, MaxTransferFrames, 0)
		if err != nil {
			t.Fatal(err)
		}
		spectraOf(t, a, x, y, n, n/2)
		got := f.Refine(a.Spectra().Gxy, phat, (at+n/2)%n, ir[at], math.Sqrt(ss/n))
		if got.Found != want.Found || got.Samples != want.Samples || got.Polarity != want.Polarity ||
			math.Abs(got.PeakRatio-want.PeakRatio) > 1e-9*want.PeakRatio {
			t.Errorf("%s phat %v: Refine %+v, Find %+v", name, phat, got, want)
		}
	}
	for i, d := range []float64{-1000.25, 0, 37.6} {
		for _, phat := range []bool{true, false} {
			x, y := delayPair(n, 4, d, float64(1-2*(i%2)), uint64(30+i))
			check(fmt.Sprintf("delay %v", d), x, y, phat)
		}
	}
	check("uncorrelated", apptest.WhiteNoise(n/2*9, 7, 1), apptest.WhiteNoise(n/2*9, 8, 1), true)
}
