package audio

import (
	"bufio"
	"errors"
	"io"
	"math/bits"
)

// flacBits reads a FLAC stream MSB first, a byte at a time, straight from
// r's buffer (no call per byte), keeping the byte offset and the running
// CRC-8 (frame header) and CRC-16 (whole frame) of exactly the bytes
// consumed. Before r is used directly, release gives the consumed bytes back.
type flacBits struct {
	r     *bufio.Reader
	chunk []byte // r's buffered bytes (from Peek), valid until r is next used
	pos   int    // bytes of chunk consumed
	crcAt int    // bytes of chunk already in the CRCs
	acc   uint64 // the low n bits are unread
	n     uint
	off   int64 // bytes consumed
	crc8  uint8
	crc16 uint16
}

func (b *flacBits) fill() error {
	if b.pos == len(b.chunk) {
		if err := b.refill(); err != nil {
			return err
		}
	}
	b.acc = b.acc<<8 | uint64(b.chunk[b.pos])
	b.pos++
	b.n += 8
	b.off++
	return nil
}

func (b *flacBits) refill() error {
	b.release()
	if b.r.Buffered() == 0 {
		if _, err := b.r.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	b.chunk, _ = b.r.Peek(b.r.Buffered())
	return nil
}

// release adds the consumed bytes to the CRCs and discards them from r.
func (b *flacBits) release() {
	b.fold()
	_, _ = b.r.Discard(b.pos) // buffered bytes: cannot fail
	b.chunk, b.pos, b.crcAt = nil, 0, 0
}

// fold adds the bytes consumed since the last fold to the CRCs.
func (b *flacBits) fold() {
	c8, c16 := b.crc8, b.crc16
	for _, c := range b.chunk[b.crcAt:b.pos] {
		c8 = crc8Table[c8^c]
		c16 = c16<<8 ^ crc16Table[byte(c16>>8)^c]
	}
	b.crc8, b.crc16, b.crcAt = c8, c16, b.pos
}

// crcs returns the CRCs of the bytes consumed since resetCRC.
func (b *flacBits) crcs() (uint8, uint16) {
	b.fold()
	return b.crc8, b.crc16
}

func (b *flacBits) resetCRC() {
	b.fold()
	b.crc8, b.crc16 = 0, 0
}

// read returns the next k ≤ 32 bits as an unsigned value.
func (b *flacBits) read(k uint) (uint64, error) {
	for b.n < k {
		if err := b.fill(); err != nil {
			return 0, err
		}
	}
	b.n -= k
	return (b.acc >> b.n) & (1<<k - 1), nil
}

// signed returns the next k ≤ 33 bits as a two's complement value.
func (b *flacBits) signed(k uint) (int64, error) {
	if k == 0 {
		return 0, nil
	}
	if k > 32 {
		hi, err := b.read(k - 32)
		if err != nil {
			return 0, err
		}
		lo, err := b.read(32)
		if err != nil {
			return 0, err
		}
		v := hi<<32 | lo
		return int64(v<<(64-k)) >> (64 - k), nil
	}
	v, err := b.read(k)
	if err != nil {
		return 0, err
	}
	return int64(v<<(64-k)) >> (64 - k), nil
}

// unary counts zero bits up to the next one bit (consumed), refusing runs
// longer than limit so a stream of zeros cannot make a value overflow.
func (b *flacBits) unary(limit uint64) (uint64, bool, error) {
	var q uint64
	for {
		if b.n == 0 {
			if err := b.fill(); err != nil {
				return 0, false, err
			}
		}
		v := b.acc & (1<<b.n - 1)
		if v == 0 {
			q += uint64(b.n)
			b.n = 0
			if q > limit {
				return 0, false, nil
			}
			continue
		}
		lz := uint(bits.LeadingZeros64(v)) - (64 - b.n)
		q += uint64(lz)
		b.n -= lz + 1
		return q, q <= limit, nil
	}
}

// align drops the bits left in the current byte; it reports whether they
// were all zero, as FLAC requires of frame padding.
func (b *flacBits) align() bool {
	k := b.n % 8
	b.n -= k
	return (b.acc>>b.n)&(1<<k-1) == 0
}

var crc8Table, crc16Table = makeCRCTables()

// makeCRCTables builds the FLAC CRCs: CRC-8 with polynomial x^8+x^2+x+1
// and CRC-16 with x^16+x^15+x^2+1, both MSB first with initial value 0.
func makeCRCTables() (t8 [256]uint8, t16 [256]uint16) {
	for i := range 256 {
		c8 := uint8(i)
		c16 := uint16(i) << 8
		for range 8 {
			if c8&0x80 != 0 {
				c8 = c8<<1 ^ 0x07
			} else {
				c8 <<= 1
			}
			if c16&0x8000 != 0 {
				c16 = c16<<1 ^ 0x8005
			} else {
				c16 <<= 1
			}
		}
		t8[i], t16[i] = c8, c16
	}
	return t8, t16
}
