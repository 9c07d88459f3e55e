package pages

import (
	"testing"
	"unsafe"
)

// TestMake: a populated buffer has make's length and zero contents, takes
// writes and reads them back (populating changes no contents), for sizes
// around the threshold and unaligned element sizes.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, Threshold/4 - 1, Threshold / 4, Threshold/4 + 3, 3 * Threshold} {
		f := Make[float32](n)
		if len(f) != n {
			t.Fatalf("Make[float32](%d): len %d", n, len(f))
		}
		for i, v := range f {
			if v != 0 {
				t.Fatalf("Make[float32](%d)[%d] = %v, want 0", n, i, v)
			}
		}
		for i := range f {
			f[i] = float32(i)
		}
		for i, v := range f {
			if v != float32(i) {
				t.Fatalf("Make[float32](%d)[%d] = %v after writing %d", n, i, v, i)
			}
		}
	}
	type rgb [3]uint8
	c := Make[rgb](Threshold/3 + 1)
	if uintptr(len(c))*unsafe.Sizeof(rgb{}) < Threshold || c[len(c)-1] != (rgb{}) {
		t.Fatalf("Make[rgb]: len %d, last %v", len(c), c[len(c)-1])
	}
}

// TestPopulateKeepsContents: populating memory that holds data (a slice
// into the middle of a buffer, not page-aligned) leaves the data as it was.
func TestPopulateKeepsContents(t *testing.T) {
	b := make([]byte, 3*Threshold)
	for i := range b {
		b[i] = byte(i * 7)
	}
	Populate(b[13 : len(b)-5])
	for i, v := range b {
		if v != byte(i*7) {
			t.Fatalf("b[%d] = %d after Populate, was %d", i, v, byte(i*7))
		}
	}
}

// BenchmarkFresh compares touching a fresh 16 MiB buffer from make with
// one from Make (the page faults are the cost measured).
func BenchmarkFresh(b *testing.B) {
	const n = 16 << 20
	touch := func(s []byte) {
		for i := 0; i < len(s); i += 4096 {
			s[i] = 1
		}
	}
	b.Run("make", func(b *testing.B) {
		for b.Loop() {
			touch(make([]byte, n))
		}
	})
	b.Run("Make", func(b *testing.B) {
		for b.Loop() {
			touch(Make[byte](n))
		}
	})
}
