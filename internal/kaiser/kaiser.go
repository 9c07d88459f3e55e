// Package kaiser is the Kaiser window and the Bessel function it is made
// of, the one copy of both: gpufft's analysis window, the FIR designs and
// the true-peak interpolator of app/dsp use it. It imports only the
// standard library; its functions are pure.
package kaiser

import "math"

// I0 is the modified Bessel function of the first kind, order 0, by its
// power series Σ ((x/2)^k / k!)², which converges for every x a Kaiser
// window uses (terms shrink once k > x/2; β ≤ 100 needs < 200 terms).
func I0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 500; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

// Window writes the periodic (DFT-even) Kaiser window of shape beta into
// v: the symmetric window of len(v)+1 points without its last point, as
// scipy.signal.get_window(("kaiser", beta), len(v), fftbins=True).
func Window(v []float64, beta float64) {
	alpha := float64(len(v)) / 2 // (M−1)/2 for the symmetric window of M = n+1
	den := I0(beta)
	for i := range v {
		r := (float64(i) - alpha) / alpha
		v[i] = I0(beta*math.Sqrt(max(0, 1-r*r))) / den
	}
}
