package gpufft

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLog10f checks the table log against math.Log10 over the whole range
// the dB conversion uses (1e-20 … 1e12) and at every mantissa table edge.
func TestLog10f(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	worst := 0.0
	check := func(x float32) {
		got, want := float64(log10f(x)), math.Log10(float64(x))
		// float32 output: half an ulp of the result, plus a little
		tol := math.Max(math.Abs(want), 1)*6e-8 + 1e-9
		if d := math.Abs(got - want); d > tol {
			t.Fatalf("log10f(%g) = %.9g, want %.9g", x, got, want)
		} else {
			worst = math.Max(worst, d)
		}
	}
	for range 200000 {
		check(float32(math.Pow(10, -20+32*rng.Float64())))
	}
	for i := range 256 {
		for _, d := range []float64{0, 1e-7, 0.5, 1 - 1e-7} {
			check(float32(1 + (float64(i)+d)/256))
		}
	}
	t.Logf("worst absolute error %.3g", worst)
}

// TestTwiddles checks the symmetric twiddle generator against plain Sincos.
func TestTwiddles(t *testing.T) {
	for _, n := range []int{2, 4, 8, 64, 4096, 1 << 20} {
		tw := twiddles(n)
		for i := 0; i < n; i += max(1, n/512) {
			s, c := math.Sincos(2 * math.Pi * float64(i) / float64(n))
			if math.Abs(float64(real(tw[i]))-c) > 6e-8 || math.Abs(float64(imag(tw[i]))+s) > 6e-8 {
				t.Fatalf("n=%d i=%d: %v, want (%g, %g)", n, i, tw[i], c, -s)
			}
		}
		if n >= 4 && (tw[n/4] != complex(0, -1) || tw[n/2] != -1) {
			t.Errorf("n=%d: quarter/half turn twiddles %v %v not exact", n, tw[n/4], tw[n/2])
		}
	}
}
