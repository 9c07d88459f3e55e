package pcm

import (
	"math"
	"testing"
)

// TestInt16: every one of the 65,536 codes converts to code/32768 exactly
// (computed in float64), at lengths that are and are not a multiple of
// eight.
func TestInt16(t *testing.T) {
	const n = 1<<16 + 5
	raw := make([]byte, 2*n)
	for i := range n {
		v := uint16(i)
		raw[2*i], raw[2*i+1] = byte(v), byte(v>>8)
	}
	for _, length := range []int{0, 1, 7, 8, 9, 4096 + 3, n} {
		got := make([]float32, length)
		Int16(got, raw)
		for i, g := range got {
			code := int16(uint16(i))
			if want := float64(code) / 32768; float64(g) != want || (g == 0 && math.Signbit(float64(g))) {
				t.Fatalf("length %d: code %d = %g, want %g", length, code, g, want)
			}
		}
	}
}

func BenchmarkInt16(b *testing.B) {
	const n = 1 << 16
	raw := make([]byte, 2*n)
	dst := make([]float32, n)
	b.SetBytes(2 * n)
	for b.Loop() {
		Int16(dst, raw)
	}
}
