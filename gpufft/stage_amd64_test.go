//go:build amd64 && !noasm

package gpufft

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSplitPowerAVX2MatchesGo: the AVX2 split to powers gives the pure-Go
// loop's values bit for bit, storing, keeping the maximum and adding (a NaN
// already in dst or coming in stays NaN, as Go's max keeps it), for every
// transform size the engine uses, over random spectra of a wide range.
func TestSplitPowerAVX2MatchesGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 4; n <= 1<<16; n *= 2 {
		r := newRFFT(n)
		m := n / 2
		z := make([]complex64, m)
		for i := range z {
			s := float32(math.Pow(10, rng.Float64()*8-4))
			z[i] = complex(s*float32(rng.NormFloat64()), s*float32(rng.NormFloat64()))
		}
		z[min(3, m-1)] = complex(float32(math.NaN()), 0) // a NaN coming in
		for _, how := range []combine{overwrite, keepMax, accumulate} {
			old := make([]float32, m+1)
			for i := range old {
				old[i] = float32(rng.Float64() * 100)
			}
			old[min(2, m)] = float32(math.NaN()) // a NaN kept (in the AVX2 blocks from n = 64)
			old[m/2] = float32(math.NaN())
			want, got := append([]float32(nil), old...), append([]float32(nil), old...)
			haveAVX2 = false
			r.splitPower(z, want, 1.7, 0.9, how)
			haveAVX2 = true
			r.splitPower(z, got, 1.7, 0.9, how)
			for k := range want {
				if math.Float32bits(got[k]) != math.Float32bits(want[k]) && !(isNaN32(got[k]) && isNaN32(want[k])) {
					t.Fatalf("n %d combine %d: dst[%d] = %g (AVX2), %g (Go)", n, how, k, got[k], want[k])
				}
			}
		}
	}
}

func isNaN32(x float32) bool { return x != x }

// setAVX2 turns the AVX2 kernels on or off (tests that run both paths).
func setAVX2(on bool) { haveAVX2 = on }

// TestSplitDBMatchesSplit: the dB rows (splitDB: the AVX2 powers, then
// PowerDB's rule in place) equal split's X converted bin by bin as
// store_bin does (|X|²·g², g/2 at DC and Nyquist), bit for bit.
func TestSplitDBMatchesSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 8; n <= 1<<14; n *= 2 {
		r := newRFFT(n)
		m := n / 2
		z := make([]complex64, m)
		for i := range z {
			s := float32(math.Pow(10, rng.Float64()*14-12))
			z[i] = complex(s*float32(rng.NormFloat64()), s*float32(rng.NormFloat64()))
		}
		x := make([]complex64, m+1)
		r.split(z, x)
		const g = 0.0123
		got := make([]float32, m+1)
		r.splitDB(z, got, g)
		for k, v := range x {
			gk := float32(g)
			if k == 0 || k == m {
				gk = g / 2
			}
			if want := binDB(real(v)*real(v)+imag(v)*imag(v), gk); math.Float32bits(got[k]) != math.Float32bits(want) {
				t.Fatalf("n %d bin %d: %g dB, want %g", n, k, got[k], want)
			}
		}
	}
}

// TestFirst4AVX2MatchesGo: the AVX2 first stages (plain and windowed)
// give the pure-Go loops' values bit for bit at every size the engine
// uses them for.
func TestFirst4AVX2MatchesGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	defer func() { haveAVX2 = true }()
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 16; n <= 1<<16; n *= 2 {
		x, w := make([]complex64, n), make([]complex64, n)
		for i := range x {
			x[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
			w[i] = complex(float32(rng.Float64()), float32(rng.Float64()))
		}
		for _, windowed := range []bool{false, true} {
			want, got := make([]complex64, n), make([]complex64, n)
			haveAVX2 = false
			if windowed {
				first4w(want, x, w)
			} else {
				first4(want, x)
			}
			haveAVX2 = true
			if windowed {
				first4w(got, x, w)
			} else {
				first4(got, x)
			}
			if i, ok := sameBits64(got, want); !ok {
				t.Fatalf("n %d windowed %v: y[%d] = %v (AVX2), %v (Go)", n, windowed, i, got[i], want[i])
			}
		}
	}
}

// TestAddWidenAVX2MatchesGo: the AVX2 accumulation gives Go's float64
// sums bit for bit, tails included.
func TestAddWidenAVX2MatchesGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	defer func() { haveAVX2 = true }()
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 7, 8, 9, 33, 4097} {
		x := make([]float32, n)
		start := make([]float64, n)
		for i := range x {
			x[i] = float32(math.Pow(10, rng.Float64()*20-10))
			start[i] = rng.Float64() * 1e3
		}
		want, got := append([]float64(nil), start...), append([]float64(nil), start...)
		haveAVX2 = false
		addWiden(want, x)
		haveAVX2 = true
		addWiden(got, x)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n %d: acc[%d] = %g (AVX2), %g (Go)", n, i, got[i], want[i])
			}
		}
	}
}

// TestTransformAVX2MatchesGo: whole complex transforms (every stage, the
// block-looping radix-4 kernel included) give the pure-Go stages' values
// bit for bit at every size, plain and windowed.
func TestTransformAVX2MatchesGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	defer func() { haveAVX2 = true }()
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 4; n <= 1<<16; n *= 2 {
		f := newCFFT(n)
		x, w := make([]complex64, n), make([]complex64, n)
		for i := range x {
			x[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
			w[i] = complex(float32(rng.Float64()), float32(rng.Float64()))
		}
		for _, windowed := range []bool{false, true} {
			var res [2][]complex64
			for i, avx := range []bool{false, true} {
				haveAVX2 = avx
				a, b := make([]complex64, n), make([]complex64, n)
				if windowed {
					res[i] = f.transformWindowed(x, w, a, b)
				} else {
					res[i] = f.transform(x, a, b)
				}
			}
			if k, ok := sameBits64(res[1], res[0]); !ok {
				t.Fatalf("n %d windowed %v: X[%d] = %v (AVX2), %v (Go)", n, windowed, k, res[1][k], res[0][k])
			}
		}
	}
}

// sameBits64 reports whether a and b hold the same float32 bits throughout,
// or the first index where they differ.
func sameBits64(a, b []complex64) (int, bool) {
	for i := range a {
		if math.Float32bits(real(a[i])) != math.Float32bits(real(b[i])) || math.Float32bits(imag(a[i])) != math.Float32bits(imag(b[i])) {
			return i, false
		}
	}
	return 0, true
}

// TestFirst4wInt16AVX2MatchesGo: the AVX2 first stage of 16-bit samples
// gives the pure-Go loop's values bit for bit, over the whole int16 range.
func TestFirst4wInt16AVX2MatchesGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	defer func() { haveAVX2 = true }()
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 16; n <= 1<<16; n *= 2 {
		x, w := make([]int16, 2*n), make([]complex64, n)
		for i := range x {
			x[i] = int16(rng.Uint32())
		}
		x[0], x[1] = math.MinInt16, math.MaxInt16
		for i := range w {
			w[i] = complex(float32(rng.Float64()), float32(rng.Float64()))
		}
		want, got := make([]complex64, n), make([]complex64, n)
		haveAVX2 = false
		first4wInt16(want, x, w)
		haveAVX2 = true
		first4wInt16(got, x, w)
		if i, ok := sameBits64(got, want); !ok {
			t.Fatalf("n %d: y[%d] = %v (AVX2), %v (Go)", n, i, got[i], want[i])
		}
	}
}
