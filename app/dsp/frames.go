package dsp

import "fmt"

// FrameCount is the number of frames of n samples, hop apart, in samples.
func FrameCount(samples int64, n, hop int) int {
	if samples < int64(n) {
		return 0
	}
	return int((samples-int64(n))/int64(hop) + 1)
}

// PadFront returns the last size samples of x, zero-filled in front when x
// is shorter (the stream's start).
func PadFront(x []float32, size int) []float32 {
	if len(x) >= size {
		return x[len(x)-size:]
	}
	out := make([]float32, size)
	copy(out[size-len(x):], x)
	return out
}

// ChannelName is "mix" for −1, else "channel N".
func ChannelName(c int) string {
	if c < 0 {
		return "mix"
	}
	return fmt.Sprintf("channel %d", c)
}
