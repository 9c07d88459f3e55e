package playback

import (
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/gpufft"
)

// blockFilter is overlap-save convolution of interleaved blocks of step
// frames, as the live output's: per channel it keeps taps−1 samples of
// history before the block. Only the output goroutine uses it.
type blockFilter struct {
	conv       gpufft.ConvolvePlan
	size, step int
	ch         int
	hist       [][]float32 // per channel: taps−1 of history, then the block
	src, dst   []float32
	out        []float32 // interleaved
}

func newBlockFilter(conv gpufft.ConvolvePlan, taps, size, ch int) *blockFilter {
	step := size - taps + 1
	f := &blockFilter{conv: conv, size: size, step: step, ch: ch,
		src: make([]float32, ch*size), dst: make([]float32, ch*step), out: make([]float32, step*ch)}
	f.hist = make([][]float32, ch)
	for c := range f.hist {
		f.hist[c] = make([]float32, taps-1+step)
	}
	return f
}

// filter returns the filtered block for the interleaved block in (step
// frames), valid until the next call. It does not allocate.
func (f *blockFilter) filter(in []float32) ([]float32, error) {
	h0 := len(f.hist[0]) - f.step
	for i := range f.step {
		for c := range f.ch {
			f.hist[c][h0+i] = in[i*f.ch+c]
		}
	}
	for c := range f.ch {
		copy(f.src[c*f.size:(c+1)*f.size], dsp.PadFront(f.hist[c], f.size))
	}
	if err := f.conv.Execute(f.dst, f.src); err != nil {
		return nil, err
	}
	for i := range f.step {
		for c := range f.ch {
			f.out[i*f.ch+c] = f.dst[c*f.step+i]
		}
	}
	for c := range f.ch {
		copy(f.hist[c], f.hist[c][f.step:])
	}
	return f.out, nil
}
