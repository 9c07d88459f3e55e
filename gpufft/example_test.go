package gpufft_test

import (
	"fmt"
	"math"

	"github.com/prismaudio/prism/gpufft"
)

// The usual way in: the GPU engine where OpenCL works, the CPU engine
// otherwise, behind one contract.
func ExampleAuto() {
	e, why := gpufft.Auto("", 0)
	if why != nil {
		fmt.Println("no OpenCL:", why) // analysis goes on, on the CPU
	}
	defer e.Close()
	p, err := e.NewReal(1024, 1)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	x := make([]float32, 1024)
	for i := range x {
		x[i] = float32(math.Cos(2 * math.Pi * 10 * float64(i) / 1024))
	}
	X := make([]complex64, 513)
	if err := p.Forward(X, x); err != nil {
		panic(err)
	}
	fmt.Printf("|X[10]| = %.1f, |X[11]| < 1e-3: %v\n", math.Hypot(float64(real(X[10])), float64(imag(X[10]))),
		math.Hypot(float64(real(X[11])), float64(imag(X[11]))) < 1e-3)
}
