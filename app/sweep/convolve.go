package sweep

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
)

// maxBatch bounds the transforms of one engine call (memory: 4 of the
// largest size are 16 MiB of samples and twice that of spectra).
const maxBatch = 4

// convolver convolves signals with one filter h by FFT on an engine:
// in one transform when the whole convolution fits gpufft.MaxSize points,
// else partitioned (uniformly partitioned overlap-add: h and the signal in
// blocks of half the largest size, each pair of blocks' spectra multiplied
// and summed per output block, so any length is one engine's plans of
// MaxSize points — a 30-s sweep at 192 kHz needs 2^24).
type convolver struct {
	e     gpufft.Engine
	plan  gpufft.RealPlan
	size  int           // FFT size N
	block int           // samples per block of the signal and of h
	hLen  int           // len(h)
	xLen  int           // the longest signal planned for
	hSpec [][]complex64 // N/2+1 bins per block of h
}

// newConvolver prepares convolving signals of up to xLen samples with h.
func newConvolver(e gpufft.Engine, h []float32, xLen int) (*convolver, error) {
	return newConvolverMax(e, h, xLen, gpufft.MaxSize)
}

// newConvolverMax is newConvolver with FFTs of at most maxSize points (a
// power of two; tests partition small signals with a small one).
func newConvolverMax(e gpufft.Engine, h []float32, xLen, maxSize int) (*convolver, error) {
	full := xLen + len(h) - 1
	c := &convolver{e: e, hLen: len(h), xLen: xLen}
	if full <= maxSize {
		c.size = max(gpufft.MinSize, nextPow2(full))
		c.block = c.size // one block each: no wrap-around since full ≤ size
	} else {
		c.size = maxSize
		c.block = c.size / 2
	}
	blocks := (len(h) + c.block - 1) / c.block
	batch := min(maxBatch, max(blocks, (xLen+c.block-1)/c.block+blocks-1))
	p, err := e.NewReal(c.size, batch)
	if err != nil {
		return nil, &engine.Error{Err: fmt.Errorf("sweep: FFT plan of %d points: %w", c.size, err)}
	}
	c.plan = p
	if c.hSpec, err = c.spectra(h); err != nil {
		p.Close()
		return nil, err
	}
	return c, nil
}

func (c *convolver) Close() error { return c.plan.Close() }

// spectra returns the spectra of x's blocks (each zero-padded to N).
func (c *convolver) spectra(x []float32) ([][]complex64, error) {
	n := (len(x) + c.block - 1) / c.block
	bins := c.size/2 + 1
	out := make([][]complex64, n)
	src := make([]float32, c.plan.Batch()*c.size)
	dst := make([]complex64, c.plan.Batch()*bins)
	for b0 := 0; b0 < n; b0 += c.plan.Batch() {
		m := min(c.plan.Batch(), n-b0)
		clear(src[:m*c.size])
		for j := range m {
			lo := (b0 + j) * c.block
			copy(src[j*c.size:j*c.size+c.block], x[lo:min(len(x), lo+c.block)])
		}
		if err := c.plan.Forward(dst[:m*bins], src[:m*c.size]); err != nil {
			return nil, &engine.Error{Err: fmt.Errorf("sweep: forward FFT: %w", err)}
		}
		for j := range m {
			out[b0+j] = append([]complex64(nil), dst[j*bins:(j+1)*bins]...)
		}
	}
	return out, nil
}

// convolve returns the samples [from, to) of x ⊛ h (full length
// len(x)+len(h)−1; indices outside it read 0).
func (c *convolver) convolve(x []float32, from, to int) ([]float32, error) {
	if len(x) > c.xLen {
		panic(fmt.Sprintf("sweep: convolve: %d samples, planned for %d", len(x), c.xLen))
	}
	out := make([]float32, to-from)
	xSpec, err := c.spectra(x)
	if err != nil {
		return nil, err
	}
	bins := c.size/2 + 1
	batch := c.plan.Batch()
	spec := make([]complex64, batch*bins)
	res := make([]float32, batch*c.size)
	// output block m covers samples [m·block, m·block+N) and sums the
	// products of x's block q and h's block m−q
	first := max(0, from/c.block-1)
	last := min(len(xSpec)+len(c.hSpec)-2, (to-1)/c.block)
	for m0 := first; m0 <= last; m0 += batch {
		n := min(batch, last-m0+1)
		clear(spec[:n*bins])
		c.accumulate(spec[:n*bins], xSpec, m0, n)
		if err := c.plan.Inverse(res[:n*c.size], spec[:n*bins]); err != nil {
			return nil, &engine.Error{Err: fmt.Errorf("sweep: inverse FFT: %w", err)}
		}
		for j := range n {
			at := (m0 + j) * c.block
			for i, v := range res[j*c.size : (j+1)*c.size] {
				if k := at + i - from; k >= 0 && k < len(out) {
					out[k] += v
				}
			}
		}
	}
	return out, nil
}

// accumulate adds Σ_q X_q·H_{m−q} for the n output blocks from m0 into
// spec, the bins split among the processors.
func (c *convolver) accumulate(spec []complex64, xSpec [][]complex64, m0, n int) {
	bins := c.size/2 + 1
	workers := max(1, min(runtime.GOMAXPROCS(0), bins/4096))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*bins/workers, (w+1)*bins/workers
		wg.Go(func() {
			for j := range n {
				m := m0 + j
				dst := spec[j*bins : (j+1)*bins]
				for q := max(0, m-len(c.hSpec)+1); q <= min(m, len(xSpec)-1); q++ {
					xs, hs := xSpec[q][lo:hi], c.hSpec[m-q][lo:hi]
					d := dst[lo:hi]
					for i := range d {
						d[i] += xs[i] * hs[i]
					}
				}
			}
		})
	}
	wg.Wait()
}

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}
