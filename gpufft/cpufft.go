package gpufft

import (
	"math"
	"unsafe"
)

// cfft is a forward complex FFT of n points (a power of two ≥ 4) as Stockham
// auto-sort stages: a twiddle-free radix-4 stage, radix-4 stages, and a
// final radix-2 stage when log2(n) is odd. Each stage reads one buffer and
// writes the other in natural order, every read and write running through
// memory in unit stride, so no bit-reversal pass is needed. Twiddles come
// from per-stage tables rounded once from float64, laid out k-fastest so the
// inner loop reads them in order. A cfft is immutable and shared by the
// plan's workers.
//
// Radix 4 beat radix 8 here: Go keeps 8 complex inputs, 7 twiddle streams
// and 8 outputs poorly in 16 registers (R2C 4096, batch 32, 2 cores: 0.49 ms
// with radix-4 stages, 0.57 ms with radix-8). Fusing two AVX2 radix-4
// stages into one pass through a 16-value scratch was slower too (C2C
// 4096: 9.1 µs against 8.6; 32768: 165 against 98, 2-core EPYC): its 16
// input streams, a power of two apart, collide in the L1 cache.
type cfft struct {
	n      int
	stages []cfftStage // after the first radix-4 stage
}

type cfftStage struct {
	ns         int         // length of the sub-transforms the stage combines
	radix      int         // 4, or 2 for the last stage of an odd power
	w1, w2, w3 []complex64 // W_{radix·ns}^{r·k} for r = 1…radix−1, k < ns
	// wd is the AVX2 kernels' copy of the twiddles: for each group of 4
	// k, per r, the real parts duplicated (wr, wr) then the imaginary
	// (wi, wi), 4 complex64 each, so a complex multiply needs no shuffle
	// of the twiddles (only when ns is a multiple of 4)
	wd []complex64
}

func newCFFT(n int) *cfft {
	f := &cfft{n: n}
	for ns := 4; ns < n; ns *= 4 {
		st := cfftStage{ns: ns, radix: 4}
		if 4*ns > n {
			st.radix = 2
		}
		tw := func(r int) []complex64 {
			w := make([]complex64, ns)
			for k := range ns {
				s, c := sincos2pi(r*k, st.radix*ns)
				w[k] = complex(float32(c), float32(-s))
			}
			return w
		}
		st.w1 = tw(1)
		if st.radix == 4 {
			st.w2, st.w3 = tw(2), tw(3)
		}
		if ns%4 == 0 {
			st.wd = dupTwiddles(st.w1, st.w2, st.w3)
		}
		f.stages = append(f.stages, st)
	}
	return f
}

// dupTwiddles lays out the tables ws (of equal length, a multiple of 4)
// for the AVX2 stages: per group of 4 k, per table, 4 (wr, wr) then 4
// (wi, wi). Empty tables (a radix-2 stage's w2, w3) are left out.
func dupTwiddles(ws ...[]complex64) []complex64 {
	var out []complex64
	for g := 0; g < len(ws[0]); g += 4 {
		for _, w := range ws {
			if w == nil {
				continue
			}
			for _, v := range w[g : g+4] {
				out = append(out, complex(real(v), real(v)))
			}
			for _, v := range w[g : g+4] {
				out = append(out, complex(imag(v), imag(v)))
			}
		}
	}
	return out
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
	first4(a[:n], src[:n])
	return f.stagesFrom(a[:n], b[:n])
}

// stagesFrom runs the stages after the first on in (using out), returning
// whichever buffer holds the result.
func (f *cfft) stagesFrom(in, out []complex64) []complex64 {
	for i := range f.stages {
		f.stages[i].run(out, in)
		in, out = out, in
	}
	return in
}

// transformWindowed is transform of src·win (element-wise on the real and
// imaginary parts, as the spectrogram's packed real frames need), with the
// window applied inside the first stage rather than in a pass of its own.
func (f *cfft) transformWindowed(src, win, a, b []complex64) []complex64 {
	n := f.n
	first4w(a[:n], src[:n], win[:n])
	return f.stagesFrom(a[:n], b[:n])
}

// transformWindowedInt16 is transformWindowed of 16-bit samples (two per
// complex value) and a window that carries their 2^−15 scale (int16Window):
// the same bits as transformWindowed of the samples converted as audio
// decodes them (v/2^15) and the unscaled window, both products being the
// one real number v·w·2^−15 rounded once.
func (f *cfft) transformWindowedInt16(src []int16, win, a, b []complex64) []complex64 {
	n := f.n
	first4wInt16(a[:n], src[:2*n], win[:n])
	return f.stagesFrom(a[:n], b[:n])
}

// int16Window is the window scaled by 2^−15 (exactly: a power of two), for
// transformWindowedInt16.
func int16Window(win []float32) []float32 {
	out := make([]float32, len(win))
	for i, v := range win {
		out[i] = v * (1.0 / (1 << 15))
	}
	return out
}

func first4wInt16(y []complex64, x []int16, w []complex64) {
	m := len(w) / 4
	if haveAVX2 && m%4 == 0 && m > 0 {
		_, _, _ = y[4*m-1], x[8*m-1], w[4*m-1] // what the kernel touches
		first4wInt16AVX2(&y[0], &x[0], &w[0], m)
		return
	}
	at := func(j int) complex64 { return complex(float32(x[2*j]), float32(x[2*j+1])) }
	w0, w1, w2, w3 := w[:m], w[m:2*m], w[2*m:3*m], w[3*m:4*m]
	for j := range w0 {
		o := (*[4]complex64)(y[4*j : 4*j+4])
		o[0], o[1], o[2], o[3] = dft4(wmul(at(j), w0[j]), wmul(at(j+m), w1[j]), wmul(at(j+2*m), w2[j]), wmul(at(j+3*m), w3[j]))
	}
}

func wmul(x, w complex64) complex64 { return complex(real(x)*real(w), imag(x)*imag(w)) }

func first4w(y, x, w []complex64) {
	m := len(x) / 4
	if haveAVX2 && m%4 == 0 && m > 0 {
		_, _ = y[4*m-1], w[4*m-1] // the kernel reads and writes 4m values
		first4wAVX2(&y[0], &x[0], &w[0], m)
		return
	}
	x0, x1, x2, x3 := x[:m], x[m:2*m], x[2*m:3*m], x[3*m:4*m]
	w0, w1, w2, w3 := w[:m], w[m:2*m], w[2*m:3*m], w[3*m:4*m]
	for j := range x0 {
		o := (*[4]complex64)(y[4*j : 4*j+4])
		o[0], o[1], o[2], o[3] = dft4(wmul(x0[j], w0[j]), wmul(x1[j], w1[j]), wmul(x2[j], w2[j]), wmul(x3[j], w3[j]))
	}
}

// first4 is the twiddle-free first stage (ns = 1):
// y[4j + r] = Σ_q x[j + q·n/4]·W_4^{qr}.
func first4(y, x []complex64) {
	m := len(x) / 4
	if haveAVX2 && m%4 == 0 && m > 0 {
		_ = y[4*m-1]
		first4AVX2(&y[0], &x[0], m)
		return
	}
	x0, x1, x2, x3 := x[:m], x[m:2*m], x[2*m:3*m], x[3*m:4*m]
	for j := range x0 {
		o := (*[4]complex64)(y[4*j : 4*j+4])
		o[0], o[1], o[2], o[3] = dft4(x0[j], x1[j], x2[j], x3[j])
	}
}

// run does one stage: for j = b·ns + k, the inputs x[j + r·n/R] times
// W_{R·ns}^{rk} go through an R-point DFT to y[b·R·ns + r·ns + k].
func (st *cfftStage) run(y, x []complex64) {
	n, ns := len(x), st.ns
	if haveAVX2 && ns%4 == 0 {
		st.runAVX2(y, x)
		return
	}
	if st.radix == 2 { // last stage: ns = n/2, one block
		x0, x1, w := x[:ns], x[ns:n], st.w1[:ns]
		y0, y1 := y[:ns], y[ns:n]
		for k := range x0 {
			u, v := x0[k], cmul(x1[k], w[k])
			y0[k], y1[k] = u+v, u-v
		}
		return
	}
	m := n / 4
	x0, x1, x2, x3 := x[:m], x[m:2*m], x[2*m:3*m], x[3*m:n]
	w1, w2, w3 := st.w1[:ns], st.w2[:ns], st.w3[:ns]
	if ns < 16 {
		// short blocks: k outer, so each twiddle is loaded once and the
		// inner loop is long
		for k := range ns {
			a, b, c := w1[k], w2[k], w3[k]
			for j := k; j < m; j += ns {
				o := y[4*j-3*k:]
				o[0], o[ns], o[2*ns], o[3*ns] = dft4(x0[j], cmul(x1[j], a), cmul(x2[j], b), cmul(x3[j], c))
			}
		}
		return
	}
	for base := 0; base < m; base += ns {
		i0, i1, i2, i3 := x0[base:base+ns], x1[base:base+ns], x2[base:base+ns], x3[base:base+ns]
		o := y[4*base : 4*base+4*ns]
		o0, o1, o2, o3 := o[:ns], o[ns:2*ns], o[2*ns:3*ns], o[3*ns:4*ns]
		for k := range i0 {
			o0[k], o1[k], o2[k], o3[k] = dft4(i0[k], cmul(i1[k], w1[k]), cmul(i2[k], w2[k]), cmul(i3[k], w3[k]))
		}
	}
}

// runAVX2 is run with the AVX2 kernels: each block's k loop in one call.
func (st *cfftStage) runAVX2(y, x []complex64) {
	n, ns := len(x), st.ns
	if st.radix == 2 {
		_, _ = y[2*ns-1], st.wd[2*ns-1] // what the kernel touches
		radix2AVX2(&y[0], &y[ns], &x[0], &x[ns], &st.wd[0], ns)
		return
	}
	m := n / 4
	_, _ = y[n-1], st.wd[6*ns-1] // what the kernel touches
	radix4StageAVX2(&y[0], &x[0], &st.wd[0], m, ns, m/ns)
}

// dft4 is a forward 4-point DFT, natural order in and out.
func dft4(a0, a1, a2, a3 complex64) (complex64, complex64, complex64, complex64) {
	t0, t1 := a0+a2, a0-a2
	t2, t3 := a1+a3, mulMinusI(a1-a3)
	return t0 + t2, t1 + t3, t0 - t2, t1 - t3
}

func mulMinusI(z complex64) complex64 { return complex(imag(z), -real(z)) }

// cmul multiplies in float32. Go's own complex64 multiply widens each
// operand to float64 and back (six conversions per product), which more than
// doubled the CPU engine's stage time.
func cmul(a, b complex64) complex64 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(ar*br-ai*bi, ar*bi+ai*br)
}

// rfft is a forward real FFT of n points via an n/2-point complex FFT of
// z[m] = x[2m] + i·x[2m+1] and the split X[k] = E_k + W_n^k·O_k
// (see fft_common.cl's r2c_bin; the CPU and GPU use the same formulas).
type rfft struct {
	n  int
	c  *cfft
	wn []complex64 // W_n^k, k = 0…n/2
	ws []float32   // wn[1…] as splitTwiddles lays it out for the AVX2 split
}

func newRFFT(n int) *rfft {
	wn := twiddles(n)[:n/2+1]
	return &rfft{n: n, c: newCFFT(n / 2), wn: wn, ws: splitTwiddles(wn)}
}

// splitBlock is the order of a block of eight bins in the AVX2 split once
// its complex values are deinterleaved into real and imaginary vectors.
var splitBlock = [8]int{0, 1, 4, 5, 2, 3, 6, 7}

// splitTwiddles lays out W^k for the AVX2 split's blocks of eight bins
// from k = 1: per block, the real parts in splitBlock's order, then the
// imaginary parts.
func splitTwiddles(wn []complex64) []float32 {
	var ws []float32
	for k := 1; k+8 <= len(wn); k += 8 {
		for _, i := range splitBlock {
			ws = append(ws, real(wn[k+i]))
		}
		for _, i := range splitBlock {
			ws = append(ws, imag(wn[k+i]))
		}
	}
	return ws
}

// asComplex reinterprets 2m float32 values as m complex64 values (same
// memory: complex64 is two float32s).
func asComplex(x []float32) []complex64 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*complex64)(unsafe.Pointer(&x[0])), len(x)/2)
}

// split writes X[0…m] from Z[0…m) (m = n/2). Bins k and m−k come from
// the same pair Z[k], Z[m−k] with one complex multiply: with
// E = (Z[k] + conj Z[m−k])/2 and O = −i(Z[k] − conj Z[m−k])/2,
// X[k] = E + W^k·O and X[m−k] = conj(E − W^k·O) (W^(m−k) = −conj W^k).
func (r *rfft) split(z []complex64, dst []complex64) {
	m := r.n / 2
	z = z[:m]
	dst = dst[:m+1]
	wn := r.wn[:m/2+1]
	z0 := z[0]
	dst[0] = complex(real(z0)+imag(z0), 0)
	dst[m] = complex(real(z0)-imag(z0), 0)
	for k := 1; k < len(wn); k++ {
		dst[k], dst[m-k] = splitPair(z[k], z[m-k], wn[k])
	}
}

// splitPair returns X[k] and X[m−k] from Z[k], Z[m−k] and W_n^k.
func splitPair(zk, zj, w complex64) (x, y complex64) {
	er, ei := (real(zk)+real(zj))*0.5, (imag(zk)-imag(zj))*0.5
	or, oi := (imag(zk)+imag(zj))*0.5, (real(zj)-real(zk))*0.5
	tr := real(w)*or - imag(w)*oi
	ti := real(w)*oi + imag(w)*or
	return complex(er+tr, ei+ti), complex(er-tr, ti-ei)
}

// combine is how splitPower (and a spectrogram's sequence) puts a frame's
// powers into dst.
type combine uint8

const (
	overwrite  combine = iota // dst[k] = p_k
	keepMax                   // dst[k] = max(dst[k], p_k): an image column's maximum over its frames
	accumulate                // dst[k] += p_k: a Welch sum's frames, in float32 (powersum.go)
)

// splitPower is split followed by |X_k|²·g² (gEnd² at k = 0 and k = m),
// without storing X: the spectrogram's power paths, put into dst as how
// says (without storing each frame's powers where it keeps a maximum or
// a sum).
func (r *rfft) splitPower(z []complex64, dst []float32, g, gEnd float32, how combine) {
	m := r.n / 2
	z = z[:m]
	dst = dst[:m+1]
	wn := r.wn[:m/2+1]
	g2 := g * g
	z0 := z[0]
	a, b := real(z0)+imag(z0), real(z0)-imag(z0)
	p0, pm := a*a*gEnd*gEnd, b*b*gEnd*gEnd
	dst[0], dst[m] = how.apply(dst[0], p0), how.apply(dst[m], pm)
	k := 1
	if nb := (m/2 - 1) / 8; haveAVX2 && nb > 0 { // blocks of 8 below the middle, the rest here
		_ = r.ws[16*nb-1]
		splitPowerAVX2(&z[1], &z[m-4], &r.ws[0], &dst[1], &dst[m-8], g2, nb, int(how))
		k += 8 * nb
	}
	for ; k < len(wn); k++ {
		x, y := splitPair(z[k], z[m-k], wn[k])
		pk := (real(x)*real(x) + imag(x)*imag(x)) * g2
		pj := (real(y)*real(y) + imag(y)*imag(y)) * g2
		dst[k], dst[m-k] = how.apply(dst[k], pk), how.apply(dst[m-k], pj)
	}
}

// apply is the value dst becomes with a frame's power p.
func (how combine) apply(dst, p float32) float32 {
	switch how {
	case keepMax:
		return max(dst, p)
	case accumulate:
		return dst + p
	}
	return p
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
		if k == 0 { // bins 0 and m are real by the contract
			xk, xm = complex(real(xk), 0), complex(real(xm), 0)
		}
		e := scale(xk+xm, 0.5)
		w := wn[k]
		o := cmul(complex(real(w), -imag(w)), scale(xk-xm, 0.5))
		z := e + complex(-imag(o), real(o))
		dst[k] = complex(real(z), -imag(z))
	}
}

func scale(z complex64, s float32) complex64 { return complex(real(z)*s, imag(z)*s) }

// log10f is log10 for positive normal float32 values, to float32
// precision: the exponent from the bits, the top 8 mantissa bits pick a
// table entry c (a bin's midpoint), and ln(m/c) = ln(1+r), |r| ≤ 1/512, is
// r − r²/2 + r³/3 (next term < 4e-12). Multiplications only, about 8× faster
// than math.Log10 here; the dB conversion touches every bin.
func log10f(x float32) float32 {
	b := math.Float32bits(x)
	i := (b >> 15) & 0xff
	m := float64(math.Float32frombits(b&0x007fffff | 0x3f800000))
	r := m*logInv[i] - 1
	l := r * (1 - r*(0.5-r*(1.0/3)))
	return float32((float64(int32(b>>23)-127)+logTab[i])*(math.Ln2*math.Log10E) + l*math.Log10E)
}

// logTab[i] = log2(c_i) and logInv[i] = 1/c_i for c_i = 1 + (i+½)/256.
var logTab, logInv = func() (t, inv [256]float64) {
	for i := range t {
		c := 1 + (float64(i)+0.5)/256
		t[i], inv[i] = math.Log2(c), 1/c
	}
	return
}()

// splitDB is split followed by dBFS with gain g (g/2 at k = 0 and k = m),
// as store_bin converts: the powers come from splitPower (AVX2 where the
// CPU has it), then PowerDB's rule in place; the end bins from binDB, as
// their own rule has it.
func (r *rfft) splitDB(z []complex64, dst []float32, g float32) {
	m := r.n / 2
	r.splitPower(z, dst, g, g, overwrite)
	powerToDBRange(dst[1:m])
	a, b := real(z[0])+imag(z[0]), real(z[0])-imag(z[0])
	dst[0], dst[m] = binDB(a*a, g/2), binDB(b*b, g/2)
}

// binDB converts |X|² to dBFS with gain g = c_k/Σw, as store_bin does.
func binDB(p, g float32) float32 {
	p *= g * g
	if p > 1e-20 && p <= math.MaxFloat32 { // PowerDB, inlined
		return min(10*log10f(p), CeilDB)
	}
	return edgeDB(p)
}
