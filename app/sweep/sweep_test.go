package sweep

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"strings"
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
	d := conv64(s.sweep(), f64(s.Inverse()))
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

// harmonics64 is the amplitude of each harmonic k (index k) of
// y = Σ a[n]·x^n for x = A·cos θ, by the power-reduction formula
// cos^n θ = 2^{1−n} Σ_{k≡n (mod 2), 0<k≤n} C(n, (n−k)/2)·cos kθ (+ a
// constant): a sine input gives the same amplitudes, each harmonic's phase
// shifted alike.
func harmonics64(a []float64, amp float64) []float64 {
	c := make([]float64, len(a))
	for n := 1; n < len(a); n++ {
		for k := n; k > 0; k -= 2 {
			c[k] += a[n] * math.Pow(amp, float64(n)) * math.Pow(2, float64(1-n)) * binomial(n, (n-k)/2)
		}
	}
	return c
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// TestHarmonicDistortion: a memoryless polynomial (then a peaking EQ, so
// each harmonic is also filtered at its own frequency) distorts the sweep;
// each harmonic's level versus the fundamental's frequency is within
// ±0.5 dB of c_k·|G(k·f)| / (c_1·|G(f)|), c_k from the power-reduction
// formulas, and THD is their sum.
func TestHarmonicDistortion(t *testing.T) {
	s := Spec{From: 20, To: 10000, Seconds: 4, Rate: 192000, LevelDB: 0, FadeSec: 0.05, LeadSec: 0.2, TailSec: 1}
	a := []float64{0, 1, 0.3, 0.2, 0.15, 0.12, 0.1, 0.1, 0.1, 0.1} // a[n]·x^n
	c := harmonics64(a, 1)
	eq := apptest.PeakingEQ(3000, 4, 1, 192000)
	x := sweep64(s)
	y := make([]float64, len(x))
	for i, v := range x {
		p := 1.0
		for n := 1; n < len(a); n++ {
			p *= v
			y[i] += a[n] * p
		}
	}
	y = eq.Filter(apptest.Delayed(y, 20))
	for _, e := range pairs(t) {
		if testing.Short() && e.HasGPU() {
			continue
		}
		t.Run(e.Preferred.Name(), func(t *testing.T) {
			res := analyzeOn(t, e, s, y, nil, Options{Distortion: true})
			d := res.Distortion
			checked := 0
			for i, f := range d.FreqHz {
				if f < 40 {
					continue
				}
				g1 := cmplx.Abs(eq.Response(f, 192000))
				var thd float64
				for k := 2; k <= MaxHarmonic; k++ {
					got := d.HarmonicDB[k-2][i]
					if float64(k)*f > 9000 {
						continue // in the sweep's fade-out, or above it (NaN)
					}
					want := math.Abs(c[k]) * cmplx.Abs(eq.Response(float64(k)*f, 192000)) / (math.Abs(c[1]) * g1)
					thd += want * want
					if math.Abs(got-20*math.Log10(want)) > 0.5 {
						t.Errorf("%.1f Hz: h%d %.2f dB, want %.2f", f, k, got, 20*math.Log10(want))
					}
					checked++
				}
				if float64(MaxHarmonic)*f <= 9000 {
					if want := 100 * math.Sqrt(thd); math.Abs(d.THDPercent[i]-want) > 0.06*want {
						t.Errorf("%.1f Hz: THD %.4f %%, want %.4f", f, d.THDPercent[i], want)
					}
				}
			}
			if checked < 400 {
				t.Fatalf("only %d harmonic levels checked", checked)
			}
		})
	}
}

// TestReferenceLatency: with a loopback reference recorded beside the
// measurement, the interface's latency (the reference's) is taken out and
// the system's own delay is reported, exact to one sample; without it the
// whole latency is.
func TestReferenceLatency(t *testing.T) {
	s := NewSpec(20, 20000, 3, 48000)
	x := sweep64(s)
	const iface, system = 1234, 57.3
	ref := apptest.Delayed(x, iface)
	eq := apptest.PeakingEQ(2000, -6, 1.5, 48000)
	meas := eq.Filter(apptest.Delayed(x, iface+system))
	for i := range meas {
		meas[i] = -0.5 * meas[i] // an inverted, quieter path
	}
	e := pairs(t)[0]
	res := analyzeOn(t, e, s, meas, ref, Options{})
	if math.Abs(res.LatencySamples-system) > 1 || math.Abs(res.RefLatencySamples-iface) > 1 || res.Polarity != -1 {
		t.Errorf("latency %g samples (reference %g), polarity %d; want %g (%d), −1", res.LatencySamples, res.RefLatencySamples, res.Polarity, system, iface)
	}
	if ms := res.LatencyMs(); math.Abs(ms-system/48) > 1.0/48 {
		t.Errorf("latency %g ms, want %g", ms, system/48)
	}
	alone := analyzeOn(t, e, s, meas, nil, Options{})
	if math.Abs(alone.LatencySamples-(iface+system)) > 1 {
		t.Errorf("without the reference: latency %g samples, want %g", alone.LatencySamples, iface+system)
	}
	if math.Abs(alone.PeakDBFS-res.PeakDBFS) > 0.01 || alone.SNRDB < 60 {
		t.Errorf("peak %.2f dBFS (with the reference %.2f), SNR %.1f dB", alone.PeakDBFS, res.PeakDBFS, alone.SNRDB)
	}
}

// TestDeconvolutionIsFloat64 checks the engine's deconvolution (float32,
// partitioned above 2^20 points) against the full linear convolution
// with the inverse filter in float64: within 1e-5 relative (RMS over the
// linear response and the harmonics' together).
func TestDeconvolutionIsFloat64(t *testing.T) {
	s := NewSpec(20, 20000, 12, 48000) // 1.2 M points: partitioned
	x := sweep64(s)
	y := apptest.HighPass(80, 0.6, 48000).Filter(apptest.Delayed(x, 480))
	noise := apptest.WhiteNoise(len(y), 3, 1e-3)
	for i, v := range y {
		y[i] = v + 0.05*v*v + 0.03*v*v*v + noise[i]
	}
	rec := f64(f32(y)) // what the engine sees
	full := conv64(rec, f64(s.Inverse()))
	zero := s.SweepSamples() - 1 + s.LeadSamples()
	for _, e := range pairs(t) {
		if testing.Short() && e.HasGPU() {
			continue
		}
		t.Run(e.Preferred.Name(), func(t *testing.T) {
			res := analyzeOn(t, e, s, rec, nil, Options{})
			var d, n float64
			check := func(got []float64, at int) {
				for i, v := range got {
					w := 0.0
					if j := at + i; j >= 0 && j < len(full) {
						w = full[j]
					}
					d += sq(v - w)
					n += sq(w)
				}
			}
			check(res.IR, zero-res.Zero)
			lag := int(math.Round(res.LatencySamples))
			for k := 2; k <= MaxHarmonic; k++ {
				check(res.Harmonics[k-2], zero+lag-int(math.Round(s.HarmonicLead(k)*48000))-res.Pre[k])
			}
			if r := math.Sqrt(d / n); r > 1e-5 {
				t.Errorf("relative error %.3g, want ≤ 1e-5", r)
			} else {
				t.Logf("relative error %.3g", r)
			}
		})
	}
}

// TestCSD: the decay of a pure delay starts flat at 0 dB (the first
// slice starts before the peak); that of a resonance (a peaking EQ of
// +20 dB, Q 20 at 1 kHz) starts at its gain and falls, at 1 kHz, at its
// poles' rate, 20·log10(r)·Rate dB/s (r = √a2).
func TestCSD(t *testing.T) {
	s := NewSpec(20, 20000, 2, 48000)
	x := sweep64(s)
	res := analyzeOn(t, pairs(t)[0], s, apptest.Delayed(x, 100), nil, Options{CSD: true})
	c := res.CSD
	if len(c.LevelDB) != CSDSlices || math.Abs(c.StartSec[0]+CSDPreSec) > 1.0/48000 || math.Abs(c.StartSec[1]-c.StartSec[0]-CSDStepSec) > 1.0/48000 {
		t.Fatalf("%d slices starting %v", len(c.LevelDB), c.StartSec[:2])
	}
	for i, f := range c.FreqHz {
		if v := c.LevelDB[0][i]; f >= 1000 && f <= 10000 && math.Abs(v) > 0.1 {
			t.Errorf("delay: slice 0 at %.0f Hz: %.3f dB, want 0", f, v)
		}
	}
	eq := apptest.PeakingEQ(1000, 20, 20, 48000)
	res = analyzeOn(t, pairs(t)[0], s, eq.Filter(x), nil, Options{CSD: true})
	c = res.CSD
	k := 0
	for c.FreqHz[k] < 1000-1e-9 {
		k++
	}
	if v := c.LevelDB[0][k]; math.Abs(v-20) > 0.5 {
		t.Errorf("resonance: slice 0 at 1 kHz: %.2f dB, want 20", v)
	}
	want := 20 * math.Log10(math.Sqrt(eq.A2)) * 48000 // dB/s
	got := (c.LevelDB[8][k] - c.LevelDB[1][k]) / (c.StartSec[8] - c.StartSec[1])
	if math.Abs(got-want) > 0.05*math.Abs(want) {
		t.Errorf("resonance: decays at %.1f dB/s, want %.1f", got, want)
	}
}

// failingEngine is an engine whose real plans fail, as a GPU might.
type failingEngine struct{ gpufft.Engine }

func (failingEngine) Name() string { return "opencl" }
func (failingEngine) NewReal(int, int) (gpufft.RealPlan, error) {
	return nil, errors.New("device lost")
}

// TestFallback: a failing GPU engine falls back to the CPU one, said in
// the notice, with the same result; with the GPU required (Strict) the
// failure is the error.
func TestFallback(t *testing.T) {
	s := NewSpec(20, 20000, 1, 48000)
	rec := apptest.Delayed(sweep64(s), 10)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	want := analyzeOn(t, engine.Pair{Preferred: cpu, CPU: cpu}, s, rec, nil, Options{})
	res, notice, err := Analyze(context.Background(), engine.Pair{Preferred: failingEngine{cpu}, CPU: cpu}, s, f32(rec), nil, Options{})
	if err != nil || !strings.Contains(notice, "device lost") || res.LatencySamples != want.LatencySamples || res.PeakDBFS != want.PeakDBFS {
		t.Fatalf("fallback: %v, notice %q, latency %g (want %g)", err, notice, res.LatencySamples, want.LatencySamples)
	}
	_, _, err = Analyze(context.Background(), engine.Pair{Preferred: failingEngine{cpu}, CPU: cpu, Strict: true}, s, f32(rec), nil, Options{})
	if !errors.As(err, new(*engine.Error)) {
		t.Fatalf("strict: %v, want the engine's error", err)
	}
}
