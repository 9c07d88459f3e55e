package gpufft

import (
	"math"
	"unsafe"
)

// cfft is a forward complex FFT of n points (a power of two ≥ 4) as Stockham
// auto-sort stages: a radix-2 stage first when log2(n) is odd, then radix-4
// stages. Each stage reads one buffer and writes the other in natural order,
// with every read and write running through memory in unit stride, so no
// bit-reversal pass is needed. Twiddles come from per-stage tables rounded
// once from float64. A cfft is immutable and shared by the plan's workers.
type cfft struct {
	n      int
	radix2 bool        // first stage is radix 2
	stages []cfftStage // radix-4 stages after it
}

type cfftStage struct {
	ns         int         // length of the sub-transforms the stage combines
	w1, w2, w3 []complex64 // W_{4ns}^{k}, ^{2k}, ^{3k} for k < ns
}

func newCFFT(n int) *cfft {
	f := &cfft{n: n}
	ns := 1
	if bitsLen(n)%2 == 0 { // log2(n) odd: n = 2·4^p
		f.radix2 = true
		ns = 2
	}
	for ; ns < n; ns *= 4 {
		st := cfftStage{ns: ns}
		if ns > 1 {
			st.w1, st.w2, st.w3 = make([]complex64, ns), make([]complex64, ns), make([]complex64, ns)
			for k := range ns {
				for r, w := range [][]complex64{st.w1, st.w2, st.w3} {
					s, c := sincos2pi((r+1)*k, 4*ns)
					w[k] = complex(float32(c), float32(-s))
				}
			}
		}
		f.stages = append(f.stages, st)
	}
	return f
}

// bitsLen returns the number of bits of n (log2(n)+1 for a power of two).
func bitsLen(n int) int {
	l := 0
	for ; n > 0; n >>= 1 {
		l++
	}
	return l
}

// transform computes the forward DFT of src (n values, not modified unless
// it is b) using a and b as ping-pong buffers; it returns whichever of a, b
// holds the result. src may be b but must not overlap a.
func (f *cfft) transform(src, a, b []complex64) []complex64 {
	n := f.n
	in, out := src, a
	if f.radix2 {
		h := n / 2
		x0, x1, o := in[:h], in[h:n], out[:n]
		for j := range h {
			u, v := x0[j], x1[j]
			o[2*j] = u + v
			o[2*j+1] = u - v
		}
		in, out = out, b
	}
	for i := range f.stages {
		f.stages[i].run(out[:n], in[:n])
		if i == 0 && !f.radix2 {
			in, out = out, b
		} else {
			in, out = out, in
		}
	}
	return in
}

// run does one radix-4 stage: for j = b·ns + k, the inputs x[j + r·n/4]
// times W_{4ns}^{rk} go through a 4-point DFT to y[b·4ns + r·ns + k].
func (st *cfftStage) run(y, x []complex64) {
	n := len(x)
	m := n / 4
	ns := st.ns
	x0, x1, x2, x3 := x[:m], x[m:2*m], x[2*m:3*m], x[3*m:n]
	if ns == 1 {
		y = y[:4*m]
		for j := range m {
			a0, a1, a2, a3 := x0[j], x1[j], x2[j], x3[j]
			t0, t1 := a0+a2, a0-a2
			t2, t3 := a1+a3, mulMinusI(a1-a3)
			o := y[4*j : 4*j+4]
			o[0], o[1], o[2], o[3] = t0+t2, t1+t3, t0-t2, t1-t3
		}
		return
	}
	w1, w2, w3 := st.w1[:ns], st.w2[:ns], st.w3[:ns]
	for base := 0; base < m; base += ns {
		i0, i1, i2, i3 := x0[base:base+ns], x1[base:base+ns], x2[base:base+ns], x3[base:base+ns]
		o := y[4*base : 4*base+4*ns]
		o0, o1, o2, o3 := o[:ns], o[ns:2*ns], o[2*ns:3*ns], o[3*ns:4*ns]
		for k := range ns {
			a0 := i0[k]
			a1 := i1[k] * w1[k]
			a2 := i2[k] * w2[k]
			a3 := i3[k] * w3[k]
			t0, t1 := a0+a2, a0-a2
			t2, t3 := a1+a3, mulMinusI(a1-a3)
			o0[k] = t0 + t2
			o1[k] = t1 + t3
			o2[k] = t0 - t2
			o3[k] = t1 - t3
		}
	}
}

func mulMinusI(z complex64) complex64 { return complex(imag(z), -real(z)) }

// rfft is a forward real FFT of n points via an n/2-point complex FFT of
// z[m] = x[2m] + i·x[2m+1] and the split X[k] = E_k + W_n^k·O_k
// (see fft_common.cl's r2c_bin; the CPU and GPU use the same formulas).
type rfft struct {
	n  int
	c  *cfft
	wn []complex64 // W_n^k, k = 0…n/2
}

func newRFFT(n int) *rfft {
	return &rfft{n: n, c: newCFFT(n / 2), wn: twiddles(n)[:n/2+1]}
}

// asComplex reinterprets 2m float32 values as m complex64 values (same
// memory: complex64 is two float32s).
func asComplex(x []float32) []complex64 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*complex64)(unsafe.Pointer(&x[0])), len(x)/2)
}

// asFloats is the inverse of asComplex.
func asFloats(z []complex64) []float32 {
	if len(z) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&z[0])), 2*len(z))
}

// split writes X[0…m] from Z[0…m) (m = n/2) using fn(k, X) per bin.
func (r *rfft) split(z []complex64, dst []complex64) {
	m := r.n / 2
	z = z[:m]
	dst = dst[:m+1]
	wn := r.wn[:m+1]
	for k := 0; k <= m; k++ {
		zk := z[k&(m-1)]
		zm := z[(m-k)&(m-1)]
		c := complex(real(zm), -imag(zm))
		e := (zk + c) * 0.5
		o := mulMinusI(zk-c) * 0.5
		dst[k] = e + wn[k]*o
	}
}

// unsplit is the inverse of split: from X[0…m] it writes conj(Z[k]) for
// k < m, ready for a forward transform (the conjugation trick gives the
// inverse).
func (r *rfft) unsplit(x []complex64, dst []complex64) {
	m := r.n / 2
	x = x[:m+1]
	dst = dst[:m]
	wn := r.wn[:m+1]
	for k := range m {
		xk := x[k]
		xm := complex(real(x[m-k]), -imag(x[m-k]))
		e := (xk + xm) * 0.5
		w := wn[k]
		o := complex(real(w), -imag(w)) * ((xk - xm) * 0.5)
		z := e + complex(-imag(o), real(o))
		dst[k] = complex(real(z), -imag(z))
	}
}

// log10f is log10 for positive normal float32 values, accurate to a few
// ulp: exponent from the bits, mantissa in [√½, √2), and the atanh series
// ln m = 2(s + s³/3 + … + s⁹/9), s = (m−1)/(m+1), |s| ≤ 0.172 (next term
// < 4e-10). About 6× faster than math.Log10 here, which matters because the
// dB conversion touches every bin.
func log10f(x float32) float32 {
	b := math.Float32bits(x)
	e := int32(b>>23) - 127
	m := float64(math.Float32frombits(b&0x007fffff | 0x3f800000))
	if m > math.Sqrt2 {
		m *= 0.5
		e++
	}
	s := (m - 1) / (m + 1)
	s2 := s * s
	ln := 2 * s * (1 + s2*(1.0/3+s2*(1.0/5+s2*(1.0/7+s2*(1.0/9)))))
	return float32((float64(e)*math.Ln2 + ln) * math.Log10E)
}

// binDB converts |X|² to dBFS with gain g = c_k/Σw, as store_bin does.
func binDB(p, g float32) float32 {
	p *= g * g
	if p > 1e-20 {
		return 10 * log10f(p)
	}
	return FloorDB
}
