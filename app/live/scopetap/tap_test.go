package scopetap

import (
	"testing"
)

// Blocks of two channels (channel c of frame i is i + 1000c) written in
// uneven sizes across the ring's wrap read back by position: each
// channel, the mix (their mean), only what the ring still holds; a gap
// restarts it; Write and ReadAt do not allocate.
func TestTapReadAt(t *testing.T) {
	tap := New(0.01) // 480 frames at 48 kHz
	const rate = 48000
	block := make([]float32, 2*700)
	pos := uint64(0)
	write := func(n int) {
		for i := range n {
			block[2*i] = float32(pos) + float32(i)
			block[2*i+1] = float32(pos) + float32(i) + 1000
		}
		tap.Write(block[:2*n], 2, rate, pos)
		pos += uint64(n)
	}
	for _, n := range []int{100, 250, 333, 7, 0, 700, 91} {
		write(n)
		from, end, ch, r := tap.Span()
		if end != pos || end-from != min(pos, 480) || ch != 2 || r != rate {
			t.Fatalf("after %d: span %d…%d, %d channels, %d Hz", pos, from, end, ch, r)
		}
		dst := make([]float32, end-from)
		for c := -1; c < 2; c++ {
			if !tap.ReadAt(dst, c, from) {
				t.Fatalf("ReadAt(ch %d, %d) failed", c, from)
			}
			off := map[int]float32{-1: 500, 0: 0, 1: 1000}[c]
			for i, v := range dst {
				if want := float32(from) + float32(i) + off; v != want {
					t.Fatalf("ch %d at %d: %v, want %v", c, from+uint64(i), v, want)
				}
			}
		}
		if tap.ReadAt(dst[:2], 0, end-1) || (from > 0 && tap.ReadAt(dst[:1], 0, from-1)) || tap.ReadAt(dst[:1], 2, from) {
			t.Errorf("ReadAt outside what is held succeeded")
		}
	}
	tap.Write(block[:20], 2, rate, pos+50) // a gap
	if from, end, _, _ := tap.Span(); from != pos+50 || end != pos+60 {
		t.Errorf("after a gap: %d…%d, want %d…%d", from, end, pos+50, pos+60)
	}
	dst := make([]float32, 64)
	if n := testing.AllocsPerRun(20, func() { write(64); tap.ReadAt(dst, -1, pos-64) }); n != 0 {
		t.Errorf("Write and ReadAt: %v allocs, want 0", n)
	}
}
