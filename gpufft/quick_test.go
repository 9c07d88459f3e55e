package gpufft

import (
	"math/rand/v2"
	"testing"
)

func TestQuickGPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	t.Log(e.Device())
	for _, n := range []int{32, 64, 256, 4096, 8192, 16384, 65536} {
		p, err := e.NewComplex(n, 3)
		if err != nil {
			t.Fatal(err)
		}
		x := randComplex(rng, 3*n)
		y := make([]complex64, 3*n)
		if err := p.Forward(y, x); err != nil {
			t.Fatal(err)
		}
		z := make([]complex64, 3*n)
		p.Inverse(z, y)
		t.Logf("c2c n=%d err=%.3g rt=%.3g", n, relErr(y[2*n:3*n], ref64(to128(x[2*n:3*n]))), relErr(z, to128(x)))
		r, err := e.NewReal(n, 3)
		if err != nil {
			t.Fatal(err)
		}
		xr := randReal(rng, 3*n)
		yr := make([]complex64, 3*(n/2+1))
		if err := r.Forward(yr, xr); err != nil {
			t.Fatal(err)
		}
		xc := make([]complex128, n)
		for i := range n {
			xc[i] = complex(float64(xr[2*n+i]), 0)
		}
		ref := ref64(xc)[:n/2+1]
		back := make([]float32, 3*n)
		r.Inverse(back, yr)
		bc := make([]complex64, 3*n)
		xrc := make([]complex128, 3*n)
		for i := range back {
			bc[i] = complex(back[i], 0)
			xrc[i] = complex(float64(xr[i]), 0)
		}
		t.Logf("r2c n=%d err=%.3g rt=%.3g", n, relErr(yr[2*(n/2+1):], ref), relErr(bc, xrc))
	}
}
