package room

import (
	"fmt"
	"testing"
)

// BenchmarkAnalyze: the parameters of an impulse response as long as a
// sweep measurement leaves (1.5 s: the sweep's 1-s tail and its lead),
// octave and third-octave bands, at 48 and 192 kHz — the part of a sweep
// measurement's results after the deconvolution (app/sweep's benchmark).
func BenchmarkAnalyze(b *testing.B) {
	for _, rate := range []int{48000, 192000} {
		ir, _ := syntheticRoom(rate, 0.8, -70, 0.01, 1.5, 1)
		for _, frac := range []int{1, 3} {
			b.Run(fmt.Sprintf("rate=%d/fraction=%d", rate, frac), func(b *testing.B) {
				for b.Loop() {
					if _, err := Analyze(ir, rate, Options{Fraction: frac}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
