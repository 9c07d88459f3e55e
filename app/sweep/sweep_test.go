package sweep

import (
	"context"
	"math"
	"math/cmplx"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// The float64 references of these tests: the sweep from its definition,
// written out again here; convolutions and spectra by gonum's float64 FFT
// (not gpufft); systems from apptest (RBJ biquads, delays); harmonic
// levels from the power-reduction formulas.

// sweep64 is Farina's sweep of s from the formula: A·fade·sin(2π·f0·L·(e^{t/L}−1)),
// L = T/ln(f1/f0), with the silences.
func sweep64(s Spec) []float64 {
	L := s.Seconds / math.Log(s.To/s.From)
	n := int(math.Round(s.Seconds * float64(s.Rate)))
	lead := int(math.Round(s.LeadSec * float64(s.Rate)))
	tail := int(math.Round(s.TailSec * float64(s.Rate)))
	fade := int(math.Round(s.FadeSec * float64(s.Rate)))
	a := math.Pow(10, s.LevelDB/20)
	x := make([]float64, lead+n+tail)
	for i := range n {
		t := float64(i) / float64(s.Rate)
		g := 1.0
		if d := min(i, n-1-i); d < fade {
			g = math.Pow(math.Sin(math.Pi/2*float64(d)/float64(fade)), 2)
		}
		x[lead+i] = a * g * math.Sin(2*math.Pi*s.From*L*(math.Exp(t/L)-1))
	}
	return x
}

// conv64 is the full linear convolution of a and b by gonum's FFT.
func conv64(a, b []float64) []float64 {
	n := 1
	for n < len(a)+len(b)-1 {
		n <<= 1
	}
	f := fourier.NewFFT(n)
	pa, pb := make([]float64, n), make([]float64, n)
	copy(pa, a)
	copy(pb, b)
	A, B := f.Coefficients(nil, pa), f.Coefficients(nil, pb)
	for i := range A {
		A[i] *= B[i]
	}
	y := f.Sequence(nil, A)
	for i := range y {
		y[i] /= float64(n)
	}
	return y[:len(a)+len(b)-1]
}

// spectrum64 is the DFT of x zero-padded to n points, bins 0…n/2.
func spectrum64(x []float64, n int) []complex128 {
	p := make([]float64, n)
	copy(p, x)
	return fourier.NewFFT(n).Coefficients(nil, p)
}

func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func f64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// pairs are the engines to test on (the CPU; OpenCL where it works).
func pairs(t *testing.T) []engine.Pair {
	return apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} })
}

func analyzeOn(t *testing.T, e engine.Pair, s Spec, rec, ref []float64, o Options) Result {
	t.Helper()
	var r32 []float32
	if ref != nil {
		r32 = f32(ref)
	}
	res, notice, err := Analyze(context.Background(), e, s, f32(rec), r32, o)
	if err != nil {
		t.Fatal(err)
	}
	if notice != "" {
		t.Fatalf("fell back: %s", notice)
	}
	return res
}

// TestSignalIsTheDefinition: the sweep's samples are the formula's, and
// the sweep convolved with its inverse filter is a unit impulse in the
// band (its peak 2·(To−From)/Rate, lag SweepSamples−1).
func TestSignalIsTheDefinition(t *testing.T) {
	s := NewSpec(20, 20000, 2, 48000)
	want := sweep64(s)
	got := s.Signal()
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i])-want[i]) > 1e-6 {
			t.Fatalf("sample %d: %g, want %g", i, got[i], want[i])
		}
	}
	s.FadeSec = 0 // fades narrow the band
	d := conv64(s.sweep(), s.Inverse())
	at, best := 0, 0.0
	for i, v := range d {
		if math.Abs(v) > best {
			at, best = i, math.Abs(v)
		}
	}
	if peak := 2 * (s.To - s.From) / float64(s.Rate); at != s.SweepSamples()-1 || math.Abs(best-peak) > 0.01*peak {
		t.Fatalf("sweep ⊛ inverse: peak %g at %d, want %g at %d", best, at, peak, s.SweepSamples()-1)
	}
}

// linearSpec is a sweep wide enough that its band edges (and the
// deconvolution's ripple there) stay away from 30 Hz…18 kHz.
func linearSpec() Spec {
	return Spec{From: 10, To: 24000, Seconds: 6, Rate: 48000, LevelDB: -3, FadeSec: 0.2, LeadSec: 0.2, TailSec: 1}
}

// TestLinearSystem: a delay, a peaking EQ and a high-pass applied to the
// sweep come back as their impulse response: within −60 dB of error
// energy, ±0.1 dB and ±1° from 30 Hz to 18 kHz, the latency the delay.
func TestLinearSystem(t *testing.T) {
	s := linearSpec()
	const delay = 37
	eq, hp := apptest.PeakingEQ(1000, 6, 2, 48000), apptest.HighPass(50, 0.707, 48000)
	rec := hp.Filter(eq.Filter(apptest.Delayed(sweep64(s), delay)))
	for _, e := range pairs(t) {
		t.Run(e.Preferred.Name(), func(t *testing.T) {
			res := analyzeOn(t, e, s, rec, nil, Options{})
			if math.Abs(res.LatencySamples-delay) > 1 || res.Polarity != 1 {
				t.Errorf("latency %g samples, polarity %d; want %d, +1", res.LatencySamples, res.Polarity, delay)
			}
			const n = 1 << 16
			ir := append([]float64(nil), res.IR[:res.Zero+n/2]...)
			tukeyRef(ir, res.Zero, n/8)
			H := spectrum64(ir, n)
			var errE, sigE, worstDB, worstDeg float64
			for k := range H {
				f := float64(k) * 48000 / n
				if f < 30 || f > 18000 {
					continue
				}
				// the IR starts Zero samples before lag 0
				got := H[k] * cmplx.Exp(complex(0, 2*math.Pi*f/48000*float64(res.Zero)))
				want := eq.Response(f, 48000) * hp.Response(f, 48000) * cmplx.Exp(complex(0, -2*math.Pi*f/48000*delay))
				errE += sq(cmplx.Abs(got - want))
				sigE += sq(cmplx.Abs(want))
				worstDB = max(worstDB, math.Abs(20*math.Log10(cmplx.Abs(got)/cmplx.Abs(want))))
				worstDeg = max(worstDeg, math.Abs(cmplx.Phase(got/want))*180/math.Pi)
			}
			if db := 10 * math.Log10(errE/sigE); db > -60 || worstDB > 0.1 || worstDeg > 1 {
				t.Errorf("error energy %.1f dB (want ≤ −60), worst %.4f dB (±0.1), %.4f° (±1)", db, worstDB, worstDeg)
			} else {
				t.Logf("error energy %.1f dB, worst %.4f dB, %.4f°", db, worstDB, worstDeg)
			}
		})
	}
}

func sq(x float64) float64 { return x * x }

// tukeyRef tapers x: a raised-cosine rise over rise samples, a fall over
// the last fall.
func tukeyRef(x []float64, rise, fall int) {
	for i := range rise {
		x[i] *= 0.5 * (1 - math.Cos(math.Pi*float64(i)/float64(rise)))
	}
	for i := range fall {
		x[len(x)-1-i] *= 0.5 * (1 - math.Cos(math.Pi*float64(i)/float64(fall)))
	}
}
