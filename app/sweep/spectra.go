package sweep

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
)

// magnitudes returns |X_k| (bins 0…size/2) of each of rows, zero-padded to
// size points, transformed in one batch on e.
func magnitudes(e gpufft.Engine, rows [][]float64, size int) ([][]float64, error) {
	p, err := e.NewReal(size, len(rows))
	if err != nil {
		return nil, &engine.Error{Err: fmt.Errorf("sweep: FFT plan of %d points: %w", size, err)}
	}
	defer p.Close()
	bins := size/2 + 1
	src := make([]float32, len(rows)*size)
	for i, r := range rows {
		for j, v := range r[:min(len(r), size)] {
			src[i*size+j] = float32(v)
		}
	}
	dst := make([]complex64, len(rows)*bins)
	if err := p.Forward(dst, src); err != nil {
		return nil, &engine.Error{Err: fmt.Errorf("sweep: forward FFT: %w", err)}
	}
	out := make([][]float64, len(rows))
	for i := range rows {
		m := make([]float64, bins)
		for k, z := range dst[i*bins : (i+1)*bins] {
			m[k] = cmplx.Abs(complex128(z))
		}
		out[i] = m
	}
	return out, nil
}

// at reads magnitudes m (bins binHz apart) at f Hz, interpolating linearly
// between bins.
func at(m []float64, binHz, f float64) float64 {
	x := f / binHz
	i := int(x)
	if i >= len(m)-1 {
		return m[len(m)-1]
	}
	fr := x - float64(i)
	return m[i]*(1-fr) + m[i+1]*fr
}

// tukey tapers x in place: a raised-cosine rise over its first rise samples
// and fall over its last fall samples.
func tukey(x []float64, rise, fall int) {
	for i := range min(rise, len(x)) {
		x[i] *= 0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(rise))
	}
	for i := range min(fall, len(x)) {
		x[len(x)-1-i] *= 0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(fall))
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
