package gpufft

import (
	"math"
	"math/rand/v2"
)

// Independent float64 references. dft64 is the plain O(n²) definition;
// fft64 is a textbook recursive radix-2 FFT in float64, itself checked
// against dft64 (TestReferenceFFT), used where n² is too slow.

func dft64(x []complex128) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range n {
		var s complex128
		for j, v := range x {
			sn, cs := math.Sincos(-2 * math.Pi * float64((j*k)%n) / float64(n))
			s += v * complex(cs, sn)
		}
		out[k] = s
	}
	return out
}

func fft64(x []complex128) []complex128 {
	n := len(x)
	if n == 1 {
		return []complex128{x[0]}
	}
	even := make([]complex128, n/2)
	odd := make([]complex128, n/2)
	for i := range n / 2 {
		even[i], odd[i] = x[2*i], x[2*i+1]
	}
	e, o := fft64(even), fft64(odd)
	out := make([]complex128, n)
	for k := range n / 2 {
		sn, cs := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		t := complex(cs, sn) * o[k]
		out[k], out[k+n/2] = e[k]+t, e[k]-t
	}
	return out
}

// ref64 picks the plain DFT up to 1024 points and fft64 above.
func ref64(x []complex128) []complex128 {
	if len(x) <= 1024 {
		return dft64(x)
	}
	return fft64(x)
}

func randComplex(rng *rand.Rand, n int) []complex64 {
	x := make([]complex64, n)
	for i := range x {
		x[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
	}
	return x
}

func to128(x []complex64) []complex128 {
	y := make([]complex128, len(x))
	for i, v := range x {
		y[i] = complex128(v)
	}
	return y
}

// relErr is ||got − want||₂ / ||want||₂.
func relErr(got []complex64, want []complex128) float64 {
	var num, den float64
	for i, w := range want {
		d := complex128(got[i]) - w
		num += real(d)*real(d) + imag(d)*imag(d)
		den += real(w)*real(w) + imag(w)*imag(w)
	}
	return math.Sqrt(num / den)
}
