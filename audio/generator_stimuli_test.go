package audio

import (
	"math"
	"math/cmplx"
	"testing"
)

// TestPinkPeriodic: the generator's pinkperiodic output repeats exactly
// every N samples, and one period's N-point spectrum, by a plain float64
// DFT here, holds the same power in every octave of bins [2^j, 2^(j+1))
// within 0.1 dB, none at DC and Nyquist; the level is the RMS of the spec.
func TestPinkPeriodic(t *testing.T) {
	const n = 2048
	gs, err := ParseGenerator("pinkperiodic:2048:-20")
	if err != nil || gs.String() != "pinkperiodic:2048:-20" {
		t.Fatalf("ParseGenerator: %v, %v", gs, err)
	}
	g, err := NewGenerator(gs, 48000, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 2*3*n)
	g.Generate(x)
	for i := range 2 * n {
		if a, b, c := x[2*i], x[2*i+1], x[2*(i+n)]; a != b || a != c {
			t.Fatalf("sample %d: %v (channel 1 %v, a period later %v): not the same", i, a, b, c)
		}
	}
	period := make([]float64, n)
	var p float64
	for i := range period {
		period[i] = float64(x[2*i])
		p += period[i] * period[i]
	}
	if rms, want := math.Sqrt(p/n), 0.1/math.Sqrt2; math.Abs(rms/want-1) > 1e-4 {
		t.Errorf("RMS %.6f, want %.6f", rms, want)
	}
	power := func(k int) float64 {
		var s complex128
		for i, v := range period {
			s += complex(v, 0) * cmplx.Rect(1, -2*math.Pi*float64(k*i%n)/n)
		}
		return real(s)*real(s) + imag(s)*imag(s)
	}
	if dc, ny := power(0), power(n/2); dc > 1e-9 || ny > 1e-9 {
		t.Errorf("power at DC %g, at Nyquist %g: want 0", dc, ny)
	}
	var first float64
	for lo := 1; lo < n/2; lo *= 2 {
		var band float64
		for k := lo; k < 2*lo; k++ {
			band += power(k)
		}
		if lo == 1 {
			first = band
		}
		if d := 10 * math.Log10(band/first); math.Abs(d) > 0.1 {
			t.Errorf("octave of bins %d…%d: %.3f dB from the first", lo, 2*lo-1, d)
		}
	}
}

// TestMLS: every order's sequence has the full period 2^k − 1 (the shift
// register returns to its start only there: the taps are maximal), and
// for the orders the test can afford in O(n²) its periodic
// autocorrelation, summed directly, is 2^k − 1 at lag 0 and −1 at every
// other lag. The generator loops it at the spec's RMS level.
func TestMLS(t *testing.T) {
	for k := MinMLSOrder; k <= MaxMLSOrder; k++ {
		s := MLS(k)
		n := 1<<k - 1
		if len(s) != n {
			t.Fatalf("order %d: %d values", k, len(s))
		}
		ones := 0
		for _, v := range s {
			if v < 0 {
				ones++
			}
		}
		// an m-sequence holds 2^(k−1) ones and 2^(k−1) − 1 zeros
		if ones != 1<<(k-1) {
			t.Errorf("order %d: %d ones, want %d", k, ones, 1<<(k-1))
		}
		if k > 11 || (testing.Short() && k > 9) {
			continue
		}
		for lag := range n {
			sum := 0
			for i := range n {
				sum += int(s[i]) * int(s[(i+lag)%n])
			}
			want := -1
			if lag == 0 {
				want = n
			}
			if sum != want {
				t.Fatalf("order %d: autocorrelation %d at lag %d, want %d", k, sum, lag, want)
			}
		}
	}
	gs, err := ParseGenerator("mls:10:-6")
	if err != nil || gs.String() != "mls:10:-6" {
		t.Fatalf("ParseGenerator: %v, %v", gs, err)
	}
	g, err := NewGenerator(gs, 48000, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 2*1023)
	g.Generate(x)
	amp := float32(math.Pow(10, -6.0/20) / math.Sqrt2)
	ref := MLS(10)
	for i, v := range x {
		if v != amp*ref[i%1023] {
			t.Fatalf("sample %d: %v, want %v", i, v, amp*ref[i%1023])
		}
	}
	for _, bad := range []string{"mls:1", "mls:21", "mls:2.5", "pinkperiodic:1000", "pinkperiodic:8", "pinkperiodic:x"} {
		if _, err := ParseGenerator(bad); err == nil {
			t.Errorf("ParseGenerator(%q): no error", bad)
		}
	}
}
