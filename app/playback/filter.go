package playback

import (
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/gpufft"
)

// BlockFilter is overlap-save convolution of interleaved blocks of
// Step() frames, as the file player's and the live output's band filter:
// per channel it keeps taps−1 samples of history before the block. One
// goroutine uses it.
type BlockFilter struct {
	// Conv is the convolver; its owner may replace it (say, with a CPU
	// one after the GPU failed) between calls to Filter.
	Conv       gpufft.ConvolvePlan
	size, step int
	ch         int
	hist       [][]float32 // per channel: taps−1 of history, then the block
	src, dst   []float32
	out        []float32 // interleaved
}

// NewBlockFilter returns the filter for conv, made for taps taps over
// transforms of size frames and ch channels: its blocks are size−taps+1
// frames.
func NewBlockFilter(conv gpufft.ConvolvePlan, taps, size, ch int) *BlockFilter {
	step := size - taps + 1
	f := &BlockFilter{Conv: conv, size: size, step: step, ch: ch,
		src: make([]float32, ch*size), dst: make([]float32, ch*step), out: make([]float32, step*ch)}
	f.hist = make([][]float32, ch)
	for c := range f.hist {
		f.hist[c] = make([]float32, taps-1+step)
	}
	return f
}

// Step is the frames of a block.
func (f *BlockFilter) Step() int { return f.step }

// Filter returns the filtered block for the interleaved block in (Step()
// frames), valid until the next call. On an error the history is left as
// it was. It does not allocate.
func (f *BlockFilter) Filter(in []float32) ([]float32, error) {
	h0 := len(f.hist[0]) - f.step
	for i := range f.step {
		for c := range f.ch {
			f.hist[c][h0+i] = in[i*f.ch+c]
		}
	}
	for c := range f.ch {
		copy(f.src[c*f.size:(c+1)*f.size], dsp.PadFront(f.hist[c], f.size))
	}
	if err := f.Conv.Execute(f.dst, f.src); err != nil {
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
