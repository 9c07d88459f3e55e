package audio

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"
)

// nonFinite counts the float samples of a stream that were NaN or ±Inf,
// which every decoder reads as 0 (see the package doc), and remembers the
// first one's place.
type nonFinite struct {
	count          int64
	frame, channel int64 // the first one's frame and channel (0-based)
}

// note records n more non-finite samples, the first of them at frame f,
// channel c, if they are the stream's first.
func (b *nonFinite) note(f, c int64) {
	if b.count == 0 {
		b.frame, b.channel = f, c
	}
	b.count++
}

// scan replaces the non-finite samples of x, interleaved samples of
// channels starting at frame first, by 0 and counts them. The search runs
// on every core (the raw path reads whole-file batches); the rare batch
// with a hit is then counted in order.
func (b *nonFinite) scan(x []float32, first int64, channels int) {
	var found atomic.Bool
	ParallelFor(len(x), func(lo, hi int) {
		for _, v := range x[lo:hi] {
			if math.Float32bits(v)&exp32 == exp32 {
				found.Store(true)
				return
			}
		}
	})
	if !found.Load() {
		return
	}
	for i, v := range x {
		if math.Float32bits(v)&exp32 == exp32 {
			x[i] = 0
			b.note(first+int64(i/channels), int64(i%channels))
		}
	}
}

// exp32 and exp64hi are the exponent bits of an IEEE float32 and of the
// high half of a float64: all ones in NaN and ±Inf alone.
const (
	exp32   = 0x7F800000
	exp64hi = 0x7FF00000
)

// scanRaw does what scan does on little-endian IEEE floats of bytesPer
// (4 or 8) bytes, in place.
func (b *nonFinite) scanRaw(raw []byte, bytesPer int, first int64, channels int) {
	exp := uint32(exp32)
	if bytesPer == 8 {
		exp = exp64hi
	}
	// the sign and exponent are in the last 4 bytes of either
	n := len(raw) / bytesPer
	var found atomic.Bool
	ParallelFor(n, func(lo, hi int) {
		for p := raw[lo*bytesPer+bytesPer-4 : hi*bytesPer]; len(p) >= 4; p = p[min(bytesPer, len(p)):] {
			if binary.LittleEndian.Uint32(p)&exp == exp {
				found.Store(true)
				return
			}
		}
	})
	if !found.Load() {
		return
	}
	for i := range n {
		if binary.LittleEndian.Uint32(raw[(i+1)*bytesPer-4:])&exp == exp {
			clear(raw[i*bytesPer : (i+1)*bytesPer])
			b.note(first+int64(i/channels), int64(i%channels))
		}
	}
}

// appendWarning returns warnings with the count added, if there were any,
// in a new slice (warnings itself is not changed).
func (b *nonFinite) appendWarning(warnings []string, name string, f Format) []string {
	if b.count == 0 {
		return warnings
	}
	s := "s"
	if b.count == 1 {
		s = ""
	}
	w := fmt.Sprintf("%s: %d non-finite sample%s (NaN or ±Inf; first at %.3f s, channel %d) read as 0",
		name, b.count, s, float64(b.frame)/float64(f.SampleRate), b.channel+1)
	return append(warnings[:len(warnings):len(warnings)], w)
}
