package audio

import (
	"encoding/binary"
	"fmt"
	"math"
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
// channels starting at frame first, by 0 and counts them.
func (b *nonFinite) scan(x []float32, first int64, channels int) {
	for i, v := range x {
		if math.Float32bits(v)&0x7F800000 == 0x7F800000 { // exponent all ones: NaN or ±Inf
			x[i] = 0
			b.note(first+int64(i/channels), int64(i%channels))
		}
	}
}

// scanRaw does what scan does on little-endian IEEE floats of bytesPer
// (4 or 8) bytes, in place.
func (b *nonFinite) scanRaw(raw []byte, bytesPer int, first int64, channels int) {
	if bytesPer == 4 {
		for i := 0; i+4 <= len(raw); i += 4 {
			if binary.LittleEndian.Uint32(raw[i:])&0x7F800000 == 0x7F800000 {
				clear(raw[i : i+4])
				b.note(first+int64(i/4/channels), int64(i/4%channels))
			}
		}
		return
	}
	for i := 0; i+8 <= len(raw); i += 8 {
		if binary.LittleEndian.Uint64(raw[i:])&0x7FF0000000000000 == 0x7FF0000000000000 {
			clear(raw[i : i+8])
			b.note(first+int64(i/8/channels), int64(i/8%channels))
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
