package dual

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// Smoothing against the definition written out: bin k's value is the
// mean of the bins j with f_k·2^(−1/2b) ≤ f_j ≤ f_k·2^(1/2b), computed
// in frequencies (Hz) per bin pair, O(n²), for every fraction's ends and
// a middle one; power and complex alike; no allocation.
func TestSmoothOctave(t *testing.T) {
	const bins, binHz = 600, 11.71875
	r := rand.New(rand.NewPCG(2, 2))
	p := make([]float64, bins)
	c := make([]complex128, bins)
	for k := range p {
		p[k] = r.ExpFloat64()
		c[k] = complex(r.NormFloat64(), r.NormFloat64())
	}
	for _, frac := range []int{3, 6, 12, 24, 48} {
		s, err := NewSmoother(bins, frac)
		if err != nil {
			t.Fatal(err)
		}
		gp, gc := make([]float64, bins), make([]complex128, bins)
		s.Power(gp, p)
		s.Complex(gc, c)
		edge := math.Pow(2, 1/(2*float64(frac)))
		for k := range bins {
			fk := float64(k) * binHz
			sum, csum, cnt := 0.0, complex128(0), 0
			for j := range bins {
				fj := float64(j) * binHz
				if j == k || (k > 0 && j > 0 && fj >= fk/edge*(1-1e-12) && fj <= fk*edge*(1+1e-12)) {
					sum += p[j]
					csum += c[j]
					cnt++
				}
			}
			if want := sum / float64(cnt); math.Abs(gp[k]-want) > 1e-12*want {
				t.Fatalf("1/%d bin %d: power %v, want %v (%d bins)", frac, k, gp[k], want, cnt)
			}
			if want := csum / complex(float64(cnt), 0); cmplx.Abs(gc[k]-want) > 1e-12 {
				t.Fatalf("1/%d bin %d: complex %v, want %v", frac, k, gc[k], want)
			}
		}
		if a := testing.AllocsPerRun(10, func() { s.Power(gp, p); s.Complex(gc, c) }); a != 0 {
			t.Errorf("1/%d: %v allocs per call", frac, a)
		}
	}
	for _, frac := range []int{0, -1, 49} {
		if _, err := NewSmoother(bins, frac); err == nil {
			t.Errorf("fraction %d: no error", frac)
		}
	}
}

func TestParseSmoothing(t *testing.T) {
	for s, want := range map[string]int{"1/3": 3, "1/48": 48, "24": 24, "off": 0, "": 0} {
		if got, err := ParseSmoothing(s); err != nil || got != want {
			t.Errorf("%q: %v, %v (want %d)", s, got, err, want)
		}
	}
	for _, s := range []string{"1/2", "1/49", "third", "1/0"} {
		if _, err := ParseSmoothing(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}
