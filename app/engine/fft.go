package engine

import (
	"fmt"
	"math/bits"

	"github.com/prismaudio/prism/gpufft"
)

// FFT sizes the analyses accept: powers of two in MinFFT…MaxFFT, MaxFFT
// being the engines' largest (2^20: 0.046 Hz bins at 48 kHz, by the
// two-pass large-N kernels).
const (
	MinFFT = 64
	MaxFFT = gpufft.MaxSize
)

// FFTSizeError and HopError say which of an FFT size and its hop CheckFFT
// refused.
type (
	FFTSizeError struct{ Size int }
	HopError     struct{ Size, Hop int }
)

func (e *FFTSizeError) Error() string {
	return fmt.Sprintf("FFT size %d: want a power of two from %d to %d", e.Size, MinFFT, MaxFFT)
}

func (e *HopError) Error() string { return fmt.Sprintf("hop %d: want 1…%d", e.Hop, e.Size) }

// CheckFFT says whether n is an FFT size the analyses accept and hop
// (samples between frames) fits it: a *FFTSizeError or a *HopError if not.
// It is the one check of the command line, the window and the pipelines.
func CheckFFT(n, hop int) error {
	if n < MinFFT || n > MaxFFT || bits.OnesCount(uint(n)) != 1 {
		return &FFTSizeError{n}
	}
	if hop < 1 || hop > n {
		return &HopError{n, hop}
	}
	return nil
}
