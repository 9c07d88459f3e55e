package sweep

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
)

// spectra is a batch of half spectra (bins 0…size/2 each) transformed on
// an engine.
type spectra struct {
	dst   []complex64
	bins  int
	binHz float64
}

// transform makes n rows of size samples — fill writes row i into its
// zeroed slice — and transforms them in one batch on e (rate Hz).
func transform(e gpufft.Engine, n, size int, rate float64, fill func(i int, row []float32)) (*spectra, error) {
	p, err := e.NewReal(size, n)
	if err != nil {
		return nil, &engine.Error{Err: fmt.Errorf("sweep: FFT plan of %d points: %w", size, err)}
	}
	defer p.Close()
	src := make([]float32, n*size)
	for i := range n {
		fill(i, src[i*size:(i+1)*size])
	}
	s := &spectra{dst: make([]complex64, n*(size/2+1)), bins: size/2 + 1, binHz: rate / float64(size)}
	if err := p.Forward(s.dst, src); err != nil {
		return nil, &engine.Error{Err: fmt.Errorf("sweep: forward FFT: %w", err)}
	}
	return s, nil
}

// at is row i's magnitude at f Hz, interpolated linearly between bins.
func (s *spectra) at(i int, f float64) float64 {
	row := s.dst[i*s.bins : (i+1)*s.bins]
	x := f / s.binHz
	k := int(x)
	if k >= len(row)-1 {
		return cmplx.Abs(complex128(row[len(row)-1]))
	}
	fr := x - float64(k)
	return cmplx.Abs(complex128(row[k]))*(1-fr) + cmplx.Abs(complex128(row[k+1]))*fr
}

// tukey tapers x in place: a raised-cosine rise over its first rise samples
// and fall over its last fall samples.
func tukey(x []float32, rise, fall int) {
	for i := range min(rise, len(x)) {
		x[i] *= float32(0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(rise)))
	}
	for i := range min(fall, len(x)) {
		x[len(x)-1-i] *= float32(0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(fall)))
	}
}

// logGrid is the frequencies from lo to hi Hz, perOctave to an octave
// (both ends included when they fall on the grid), anchored at 1 kHz.
func logGrid(lo, hi float64, perOctave int) []float64 {
	var out []float64
	n0 := int(math.Ceil(float64(perOctave) * math.Log2(lo/1000)))
	for n := n0; ; n++ {
		f := 1000 * math.Pow(2, float64(n)/float64(perOctave))
		if f > hi*(1+1e-12) {
			break
		}
		out = append(out, f)
	}
	return out
}
