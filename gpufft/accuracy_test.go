package gpufft

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// TestReferenceFFT checks the float64 FFT used as the large-N reference
// against the plain DFT.
func TestReferenceFFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for n := 2; n <= 2048; n *= 2 {
		x := to128(randComplex(rng, n))
		got, want := fft64(x), dft64(x)
		var num, den float64
		for i := range want {
			d := got[i] - want[i]
			num += real(d)*real(d) + imag(d)*imag(d)
			den += real(want[i])*real(want[i]) + imag(want[i])*imag(want[i])
		}
		if e := num / den; e > 1e-26 { // (1e-13)²: float64 round-off
			t.Errorf("n=%d: fft64 vs dft64 squared relative error %.3g", n, e)
		}
	}
}

// batches are the batch counts tried: one, odd ones, and one larger than a
// CPU worker split or a GPU work-group of sequences.
var batches = []int{1, 3, 7}

// checkBatch compares each transform's result to its reference and enforces
// the mean and worst-case bounds.
func checkBatch(t *testing.T, n int, errs []float64) {
	t.Helper()
	mean, worst := 0.0, 0.0
	for _, e := range errs {
		mean += e
		worst = max(worst, e)
	}
	mean /= float64(len(errs))
	if mean > errBound(n) || worst > worstBound {
		t.Errorf("relative L2 error mean %.3g (bound %.3g), worst %.3g (bound %.3g)", mean, errBound(n), worst, worstBound)
	}
}

func TestComplexForwardInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	for _, e := range engines(t) {
		for _, n := range sizes() {
			for _, batch := range batches {
				t.Run(name(e, n, batch), func(t *testing.T) { checkComplexPlan(t, e, n, batch, rng) })
			}
		}
	}
}

// checkComplexPlan checks e's complex plan of n points on batch random
// transforms: forward against the float64 reference, the round trip, and
// the inverse alone against the reference inverse of a spectrum.
func checkComplexPlan(t *testing.T, e Engine, n, batch int, rng *rand.Rand) {
	t.Helper()
	p, err := e.NewComplex(n, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x := randComplex(rng, n*batch)
	y := make([]complex64, len(x))
	if err := p.Forward(y, x); err != nil {
		t.Fatal(err)
	}
	fwd, back := make([]float64, batch), make([]float64, batch)
	for b := range batch {
		fwd[b] = relErr(y[b*n:(b+1)*n], ref64(to128(x[b*n:(b+1)*n])))
	}
	checkBatch(t, n, fwd)
	z := make([]complex64, len(x))
	if err := p.Inverse(z, y); err != nil {
		t.Fatal(err)
	}
	for b := range batch {
		back[b] = relErr(z[b*n:(b+1)*n], to128(x[b*n:(b+1)*n]))
	}
	// a round trip is two transforms: twice the error budget
	checkBatch(t, n, halve(back))
	// the inverse alone, against the reference inverse of a spectrum
	spec := to128(randComplex(rng, n))
	want := ref64(conj128(spec))
	for i := range want {
		want[i] = complex(real(want[i])/float64(n), -imag(want[i])/float64(n))
	}
	got := make([]complex64, n)
	if err := p.Inverse(got, toC64(spec)); err != nil {
		t.Fatal(err)
	}
	checkBatch(t, n, []float64{relErr(got, want)})
}

func TestRealForwardInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for _, e := range engines(t) {
		for _, n := range sizes() {
			for _, batch := range batches {
				t.Run(name(e, n, batch), func(t *testing.T) { checkRealPlan(t, e, n, batch, rng) })
			}
		}
	}
}

// checkRealPlan checks e's real plan of n points on batch random frames:
// forward against the float64 reference and the round trip.
func checkRealPlan(t *testing.T, e Engine, n, batch int, rng *rand.Rand) {
	t.Helper()
	p, err := e.NewReal(n, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	bins := n/2 + 1
	x := randReal(rng, n*batch)
	y := make([]complex64, bins*batch)
	if err := p.Forward(y, x); err != nil {
		t.Fatal(err)
	}
	fwd, back := make([]float64, batch), make([]float64, batch)
	for b := range batch {
		xc := make([]complex128, n)
		for i := range n {
			xc[i] = complex(float64(x[b*n+i]), 0)
		}
		fwd[b] = relErr(y[b*bins:(b+1)*bins], ref64(xc)[:bins])
	}
	checkBatch(t, n, fwd)
	z := make([]float32, len(x))
	if err := p.Inverse(z, y); err != nil {
		t.Fatal(err)
	}
	for b := range batch {
		got, want := make([]complex64, n), make([]complex128, n)
		for i := range n {
			got[i] = complex(z[b*n+i], 0)
			want[i] = complex(float64(x[b*n+i]), 0)
		}
		back[b] = relErr(got, want)
	}
	checkBatch(t, n, halve(back))
}

// TestGPUMatchesCPU checks the two engines against each other on the same
// input, more tightly than each against the reference would imply.
func TestGPUMatchesCPU(t *testing.T) {
	g := requireGPU(t)
	rng := rand.New(rand.NewPCG(4, 1))
	for _, n := range sizes() {
		pc, err := testCPU.NewReal(n, 2)
		if err != nil {
			t.Fatal(err)
		}
		pg, err := g.NewReal(n, 2)
		if err != nil {
			t.Fatal(err)
		}
		x := randReal(rng, 2*n)
		yc, yg := make([]complex64, 2*(n/2+1)), make([]complex64, 2*(n/2+1))
		if err := pc.Forward(yc, x); err != nil {
			t.Fatal(err)
		}
		if err := pg.Forward(yg, x); err != nil {
			t.Fatal(err)
		}
		if e := relErr(yg, to128(yc)); e > 2*errBound(n) {
			t.Errorf("n=%d: GPU vs CPU relative error %.3g > %.3g", n, e, 2*errBound(n))
		}
		pc.Close()
		pg.Close()
	}
}

func halve(x []float64) []float64 {
	for i := range x {
		x[i] /= 2
	}
	return x
}

func conj128(x []complex128) []complex128 {
	y := make([]complex128, len(x))
	for i, v := range x {
		y[i] = complex(real(v), -imag(v))
	}
	return y
}

func toC64(x []complex128) []complex64 {
	y := make([]complex64, len(x))
	for i, v := range x {
		y[i] = complex64(v)
	}
	return y
}

// TestLargeSizes covers the top of the contract (four-step passes of up to
// 1024 points on the GPU) with one transform each.
func TestLargeSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	rng := rand.New(rand.NewPCG(9, 1))
	for _, e := range engines(t) {
		for _, n := range []int{1 << 17, MaxSize} {
			p, err := e.NewComplex(n, 1)
			if err != nil {
				t.Fatal(err)
			}
			x := randComplex(rng, n)
			y := make([]complex64, n)
			if err := p.Forward(y, x); err != nil {
				t.Fatal(err)
			}
			if err := relErr(y, fft64(to128(x))); err > errBound(n) {
				t.Errorf("%s n=%d: relative error %.3g > %.3g", e.Name(), n, err, errBound(n))
			}
			p.Close()
		}
	}
}

// TestLargeReal covers the real transforms and the spectrogram at the top
// of the contract (on the GPU: pass 1 reading real input or windowed
// frames, pass 2 doing the split): R2C against the float64 reference and
// back, and the spectrogram against the CPU engine within 0.01 dB above
// −120 dBFS.
func TestLargeReal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	rng := rand.New(rand.NewPCG(23, 1))
	for _, e := range engines(t) {
		for _, n := range []int{1 << 18, MaxSize} {
			p, err := e.NewReal(n, 1)
			if err != nil {
				t.Fatal(err)
			}
			x := randReal(rng, n)
			y := make([]complex64, n/2+1)
			if err := p.Forward(y, x); err != nil {
				t.Fatal(err)
			}
			xc := make([]complex128, n)
			for i, v := range x {
				xc[i] = complex(float64(v), 0)
			}
			if err := relErr(y, fft64(xc)[:n/2+1]); err > errBound(n) {
				t.Errorf("%s R2C n=%d: relative error %.3g > %.3g", e.Name(), n, err, errBound(n))
			}
			z := make([]float32, n)
			if err := p.Inverse(z, y); err != nil {
				t.Fatal(err)
			}
			got := make([]complex64, n)
			for i, v := range z {
				got[i] = complex(v, 0)
			}
			if err := relErr(got, xc); err > 2*errBound(n) {
				t.Errorf("%s C2R n=%d: round trip relative error %.3g > %.3g", e.Name(), n, err, 2*errBound(n))
			}
			p.Close()
		}
	}
	g := requireGPU(t)
	const n = MaxSize
	length := n + n/2 + 3 // three frames at hop n/4 + 1, the later ones starting on odd samples
	x := make([]float32, 2*length)
	for i := range x {
		x[i] = float32(0.3 * rng.NormFloat64())
	}
	for _, mix := range []bool{true, false} {
		cfg := SpectrogramConfig{Size: n, Hop: n/4 + 1, Window: window.Func{Kind: window.Hann}, Channels: 2, Mix: mix, MaxSamples: length}
		a, b := spectrogram(t, testCPU, cfg, x), spectrogram(t, g, cfg, x)
		for i := range a {
			if (a[i] > -120 || b[i] > -120) && math.Abs(float64(a[i]-b[i])) > 0.01 {
				t.Fatalf("spectrogram n=%d mix=%v: value %d: CPU %.4f dB, GPU %.4f dB", n, mix, i, a[i], b[i])
			}
		}
	}
}
