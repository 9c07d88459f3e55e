package audio

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
)

// FLAC is decoded here rather than by a library: every frame is checked
// against STREAMINFO (sample rate, bit depth, channels, block size, its
// place in the sample count) and against its CRCs, every sample against
// its bit depth, and the whole stream against the STREAMINFO MD5 and total,
// so a file that contradicts itself is refused instead of decoded wrongly.
// Metadata blocks are skipped with bounded copies; the only buffers are one
// block of samples per channel (≤ 65535 × 8 channels), so no allocation
// follows a size the file declares beyond what the format bounds.

// flacInfo is the STREAMINFO block.
type flacInfo struct {
	minBlock, maxBlock int
	rate               int
	channels           int
	bps                int
	total              int64 // samples per channel, 0 if unknown
	md5                [16]byte
}

type flacDecoder struct {
	name   string
	in     flacBits
	closer io.Closer
	format Format
	info   flacInfo

	chans [8][]int64 // the current frame's samples per channel
	block int        // samples per channel in the current frame
	pos   int        // next unread sample of the current frame
	done  int64      // samples per channel in the frames before the current

	frameNum   uint64 // frames decoded
	variable   int    // blocking strategy of the first frame: 0 fixed, 1 variable, −1 none yet
	fixedBlock int    // block size of a fixed-blocksize stream's frames
	short      bool   // a fixed-blocksize stream had its shorter last frame
	legacy     bool   // fixed-blocking bit but sample numbers (old Flake)
	scale      float64

	md5      hash.Hash
	md5Buf   [4096]byte
	err      error // sticky: once a frame fails, every Read reports it
	warnings []string
	coefBuf  [32]int64
}

// newFLAC reads the fLaC marker and metadata blocks from r, which starts
// at byte offset start of the file, leaving it at the first frame.
func newFLAC(r *bufio.Reader, closer io.Closer, name string, start int64) (*flacDecoder, error) {
	d := &flacDecoder{name: name, in: flacBits{r: r, off: start}, closer: closer, variable: -1}
	if err := d.readMetadata(); err != nil {
		return nil, err
	}
	i := d.info
	frames := i.total
	if frames == 0 {
		frames = -1
	}
	d.format = Format{SampleRate: i.rate, Channels: i.channels, Bits: i.bps, Encoding: fmt.Sprintf("FLAC %d-bit", i.bps), Container: "FLAC", Frames: frames}
	d.scale = 1 / float64(int64(1)<<(i.bps-1))
	if i.md5 != [16]byte{} {
		d.md5 = md5.New()
	}
	return d, nil
}

// newFLACFrames decodes a FLAC stream that starts with a frame, without
// the fLaC marker and STREAMINFO (a stream cut from a file, or one written
// so, as the IETF test file uncommon/10 is): the first frame header gives
// the sample rate, bit depth and channels, and every later frame is held
// to them. A header that leaves the rate or depth to STREAMINFO (codes 0)
// cannot be decoded and is refused. The length is unknown (no total, no
// MD5); a stream cut after its first frame starts where its first frame
// says.
func newFLACFrames(r *bufio.Reader, closer io.Closer, name string, start int64) (*flacDecoder, error) {
	head, _ := r.Peek(16)
	probe := &flacDecoder{name: name, in: flacBits{r: bufio.NewReaderSize(bytes.NewReader(head), 16), off: start}, info: flacInfo{maxBlock: 1 << 16}}
	h, err := probe.readFrameHeader(start)
	if err != nil {
		return nil, err
	}
	var missing []string
	if h.rate == 0 {
		missing = append(missing, "sample rate")
	}
	if h.bps == 0 {
		missing = append(missing, "bit depth")
	}
	if len(missing) > 0 {
		return nil, probe.errf(start, "FLAC frames without a stream header (no fLaC marker and STREAMINFO), and the first frame header leaves the %s to STREAMINFO: cannot be decoded",
			strings.Join(missing, " and "))
	}
	d := &flacDecoder{name: name, in: flacBits{r: r, off: start}, closer: closer, variable: -1,
		info: flacInfo{minBlock: 1, maxBlock: 1<<16 - 1, rate: h.rate, channels: h.channels(), bps: h.bps}}
	if h.variable {
		d.done = int64(h.number) // sample numbers count from the first frame's
	} else {
		d.frameNum = h.number
	}
	d.format = Format{SampleRate: h.rate, Channels: h.channels(), Bits: h.bps, Encoding: fmt.Sprintf("FLAC %d-bit", h.bps), Container: "FLAC", Frames: -1}
	d.scale = 1 / float64(int64(1)<<(h.bps-1))
	return d, nil
}

func (d *flacDecoder) errf(off int64, format string, args ...any) error {
	return &FormatError{Name: d.name, Offset: off, Reason: "FLAC: " + fmt.Sprintf(format, args...)}
}

// ioErr turns a read failure at off into a FormatError.
func (d *flacDecoder) ioErr(off int64, what string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return d.errf(off, "%s cut short at offset %d (end of file)", what, d.in.off)
	}
	return d.errf(off, "read %s: %v", what, err)
}

func (d *flacDecoder) readMetadata() error {
	b := &d.in
	var marker [4]byte
	if _, err := io.ReadFull(b.r, marker[:]); err != nil || string(marker[:]) != "fLaC" {
		return d.errf(b.off, "no fLaC marker")
	}
	b.off += 4
	for first := true; ; first = false {
		at := b.off
		var h [4]byte
		n, err := io.ReadFull(b.r, h[:])
		b.off += int64(n)
		if err != nil {
			return d.ioErr(at, "metadata block header", err)
		}
		last, typ := h[0]&0x80 != 0, h[0]&0x7F
		size := int64(h[1])<<16 | int64(h[2])<<8 | int64(h[3])
		if err := d.checkBlockHeader(first, typ, size, at); err != nil {
			return err
		}
		if typ == 0 {
			var si [34]byte
			n, err := io.ReadFull(b.r, si[:])
			b.off += int64(n)
			if err != nil {
				return d.ioErr(at, "STREAMINFO", err)
			}
			if err := d.parseStreamInfo(si[:], at); err != nil {
				return err
			}
		} else {
			// PICTURE, VORBIS_COMMENT, PADDING, …: skipped through the
			// reader's own buffer, never read into one of their size.
			n, err := b.r.Discard(int(size))
			b.off += int64(n)
			if err != nil {
				return d.errf(at, "metadata block (type %d) declares %d bytes, past the end of the file", typ, size)
			}
		}
		if last {
			return nil
		}
	}
}

// checkBlockHeader refuses a metadata block out of place: STREAMINFO first
// and only there, 34 bytes long; type 127 is invalid.
func (d *flacDecoder) checkBlockHeader(first bool, typ byte, size, at int64) error {
	switch {
	case first && typ != 0:
		return d.errf(at, "first metadata block is type %d, not STREAMINFO", typ)
	case !first && typ == 0:
		return d.errf(at, "second STREAMINFO block")
	case typ == 127:
		return d.errf(at, "invalid metadata block type 127")
	case typ == 0 && size != 34:
		return d.errf(at, "STREAMINFO is %d bytes, not 34", size)
	}
	return nil
}

func (d *flacDecoder) parseStreamInfo(si []byte, at int64) error {
	i := &d.info
	i.minBlock = int(si[0])<<8 | int(si[1])
	i.maxBlock = int(si[2])<<8 | int(si[3])
	i.rate = int(si[10])<<12 | int(si[11])<<4 | int(si[12])>>4
	i.channels = int(si[12]>>1&7) + 1
	i.bps = (int(si[12]&1)<<4 | int(si[13]>>4)) + 1
	i.total = int64(si[13]&0x0F)<<32 | int64(si[14])<<24 | int64(si[15])<<16 | int64(si[16])<<8 | int64(si[17])
	copy(i.md5[:], si[18:34])
	switch {
	case i.rate == 0:
		return d.errf(at, "STREAMINFO declares a sample rate of 0 Hz")
	case i.bps < 4:
		return d.errf(at, "STREAMINFO declares %d bits per sample (at least 4)", i.bps)
	case i.maxBlock < 16 || i.minBlock > i.maxBlock:
		return d.errf(at, "STREAMINFO declares block sizes %d…%d", i.minBlock, i.maxBlock)
	}
	return nil
}

func (d *flacDecoder) Format() Format     { return d.format }
func (d *flacDecoder) Warnings() []string { return d.warnings }

func (d *flacDecoder) Read(dst []float32) (n int, err error) {
	ch := d.format.Channels
	want := len(dst) / ch
	for n < want {
		if d.pos >= d.block {
			if d.err == nil {
				d.err = d.nextFrame()
			}
			if d.err != nil {
				if n > 0 {
					return n, nil
				}
				return 0, d.err
			}
		}
		k := min(want-n, d.block-d.pos)
		out := dst[n*ch : (n+k)*ch]
		for c := range ch {
			src := d.chans[c][d.pos : d.pos+k]
			for i, v := range src {
				out[i*ch+c] = float32(float64(v) * d.scale)
			}
		}
		n += k
		d.pos += k
	}
	return n, nil
}

// nextFrame decodes the next frame into d.chans, or checks the stream's
// totals at its end and returns io.EOF.
func (d *flacDecoder) nextFrame() error {
	b := &d.in
	at := b.off
	if d.atEnd() {
		return d.finish(at)
	}
	b.resetCRC()
	h, err := d.readFrameHeader(at)
	if err != nil {
		return err
	}
	if err := d.checkFrame(h, at); err != nil {
		return err
	}
	for c := range d.chans[:d.info.channels] {
		if cap(d.chans[c]) < h.block {
			d.chans[c] = make([]int64, h.block)
		}
		d.chans[c] = d.chans[c][:h.block]
		bps := d.info.bps
		if c == h.sideChannel() {
			bps++
		}
		if err := d.subframe(d.chans[c], bps); err != nil {
			if fe := (*FormatError)(nil); errors.As(err, &fe) {
				return err
			}
			return d.ioErr(at, fmt.Sprintf("frame at offset %d, subframe %d", at, c), err)
		}
	}
	if !b.align() {
		return d.errf(at, "frame padding bits are not zero")
	}
	_, want := b.crcs()
	got, err := b.read(16)
	if err != nil {
		return d.ioErr(at, "frame CRC", err)
	}
	if uint16(got) != want {
		return d.errf(at, "frame CRC-16 mismatch (stored %04x, computed %04x)", got, want)
	}
	if err := d.decorrelate(h, at); err != nil {
		return err
	}
	d.hash(h.block)
	d.done += int64(d.block)
	d.block, d.pos = h.block, 0
	d.frameNum++
	return nil
}

// atEnd reports a clean end: no more bytes, or only a 128-byte ID3v1 tag.
func (d *flacDecoder) atEnd() bool {
	d.in.release()
	p, _ := d.in.r.Peek(129)
	return len(p) == 0 || len(p) == 128 && bytes.HasPrefix(p, []byte("TAG"))
}

// finish checks the decoded stream against STREAMINFO's total and MD5.
func (d *flacDecoder) finish(at int64) error {
	d.done += int64(d.block)
	d.block, d.pos = 0, 0
	if d.info.total > 0 && d.done != d.info.total {
		return d.errf(at, "stream ends after %d samples per channel, STREAMINFO declares %d", d.done, d.info.total)
	}
	if d.md5 != nil {
		var sum [16]byte
		if !bytes.Equal(d.md5.Sum(sum[:0]), d.info.md5[:]) {
			return d.errf(at, "decoded audio does not match the STREAMINFO MD5 signature")
		}
	}
	return io.EOF
}

// flacHeader is what a frame header says.
type flacHeader struct {
	variable bool
	block    int
	rate     int // 0: as STREAMINFO
	assign   int // channel assignment code 0…10
	bps      int // 0: as STREAMINFO
	number   uint64
}

// sideChannel is the subframe holding the side signal (one bit wider), or −1.
func (h flacHeader) sideChannel() int {
	switch h.assign {
	case 8, 10: // left/side, mid/side
		return 1
	case 9: // side/right
		return 0
	}
	return -1
}

func (h flacHeader) channels() int {
	if h.assign <= 7 {
		return h.assign + 1
	}
	return 2
}

var flacRates = [...]int{0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000}
var flacDepths = [...]int{0, 8, 12, -1, 16, 20, 24, 32}

// readFrameHeader reads a frame header (sync code to CRC-8) at byte offset at.
func (d *flacDecoder) readFrameHeader(at int64) (flacHeader, error) {
	var h flacHeader
	b := &d.in
	fail := func(err error) (flacHeader, error) { return h, d.ioErr(at, "frame header", err) }
	sync, err := b.read(15)
	if err != nil {
		return fail(err)
	}
	if sync != 0x7FFC {
		return h, d.errf(at, "no frame sync code after %d samples per channel (bytes %02x…)", d.done+int64(d.block), sync>>7)
	}
	v, err := b.read(17) // blocking, block size, rate, channels, depth, reserved
	if err != nil {
		return fail(err)
	}
	h.variable = v>>16 != 0
	bsCode, rateCode := int(v>>12&15), int(v>>8&15)
	h.assign, h.bps = int(v>>4&15), flacDepths[v>>1&7]
	switch {
	case v&1 != 0:
		return h, d.errf(at, "frame header reserved bit set")
	case h.assign > 10:
		return h, d.errf(at, "reserved channel assignment %d", h.assign)
	case h.bps < 0:
		return h, d.errf(at, "reserved sample size code 3")
	case rateCode == 15:
		return h, d.errf(at, "invalid sample rate code 15")
	case bsCode == 0:
		return h, d.errf(at, "reserved block size code 0")
	}
	if h.number, err = d.readCodedNumber(at, h.variable); err != nil {
		return h, err
	}
	if err := d.readHeaderSizes(&h, bsCode, rateCode); err != nil {
		return fail(err)
	}
	want, _ := b.crcs()
	got, err := b.read(8)
	if err != nil {
		return fail(err)
	}
	if uint8(got) != want {
		return h, d.errf(at, "frame header CRC-8 mismatch (stored %02x, computed %02x)", got, want)
	}
	return h, nil
}

// readHeaderSizes sets the block size and sample rate from their codes,
// reading the 8- or 16-bit values some codes put at the end of the header.
func (d *flacDecoder) readHeaderSizes(h *flacHeader, bsCode, rateCode int) error {
	b := &d.in
	switch {
	case bsCode == 1:
		h.block = 192
	case bsCode <= 5:
		h.block = 576 << (bsCode - 2)
	case bsCode <= 7:
		x, err := b.read(uint(8 * (bsCode - 5)))
		if err != nil {
			return err
		}
		h.block = int(x) + 1
	default:
		h.block = 256 << (bsCode - 8)
	}
	if rateCode < 12 {
		h.rate = flacRates[rateCode]
		return nil
	}
	bitsN := uint(16)
	if rateCode == 12 {
		bitsN = 8
	}
	x, err := b.read(bitsN)
	h.rate = [...]int{1000, 1, 10}[rateCode-12] * int(x)
	return err
}

// readCodedNumber reads the UTF-8-like coded frame number (fixed blocking,
// ≤ 31 bits) or sample number (variable blocking, ≤ 36 bits).
func (d *flacDecoder) readCodedNumber(at int64, variable bool) (uint64, error) {
	b := &d.in
	x, err := b.read(8)
	if err != nil {
		return 0, d.ioErr(at, "frame header", err)
	}
	extra := 0
	for x&(0x80>>extra) != 0 {
		extra++
		if extra == 8 {
			break
		}
	}
	maxExtra := 5
	if variable {
		maxExtra = 6
	}
	if extra == 1 || extra-1 > maxExtra {
		return 0, d.errf(at, "invalid coded frame number (first byte %02x)", x)
	}
	if extra == 0 {
		return x, nil
	}
	v := x & (0xFF >> (extra + 1))
	for range extra - 1 {
		c, err := b.read(8)
		if err != nil {
			return 0, d.ioErr(at, "frame header", err)
		}
		if c&0xC0 != 0x80 {
			return 0, d.errf(at, "invalid coded frame number (byte %02x)", c)
		}
		v = v<<6 | c&0x3F
	}
	return v, nil
}

// checkFrame refuses a frame header that contradicts STREAMINFO or the
// frames before it.
func (d *flacDecoder) checkFrame(h flacHeader, at int64) error {
	i := d.info
	switch {
	case h.rate != 0 && h.rate != i.rate:
		return d.errf(at, "frame sample rate %d Hz, STREAMINFO declares %d Hz", h.rate, i.rate)
	case h.bps != 0 && h.bps != i.bps:
		return d.errf(at, "frame bit depth %d, STREAMINFO declares %d", h.bps, i.bps)
	case h.channels() != i.channels:
		return d.errf(at, "frame has %d channels, STREAMINFO declares %d", h.channels(), i.channels)
	case h.block > i.maxBlock:
		return d.errf(at, "frame block size %d, STREAMINFO declares at most %d", h.block, i.maxBlock)
	}
	return d.checkPosition(h, at)
}

// checkPosition refuses a frame that is not where the frames before it
// end: frame numbers in order, one blocking strategy, in a fixed-blocksize
// stream no frame after a shorter one, and no sample past STREAMINFO's total.
func (d *flacDecoder) checkPosition(h flacHeader, at int64) error {
	start := d.done + int64(d.block)
	if d.variable < 0 {
		d.variable = 0
		if h.variable {
			d.variable = 1
		}
		d.fixedBlock = h.block
	}
	if !h.variable && !d.legacy && h.number != d.frameNum && d.info.minBlock != d.info.maxBlock && h.number == uint64(start) {
		// old Flake wrote variable block sizes with sample numbers but
		// the fixed-blocking bit; STREAMINFO's unequal block sizes say so
		d.legacy = true
	}
	bySample := h.variable || d.legacy
	switch {
	case h.variable != (d.variable == 1):
		return d.errf(at, "frame changes the blocking strategy mid-stream")
	case bySample && h.number != uint64(start):
		return d.errf(at, "frame starts at sample %d, the frames before end at %d", h.number, start)
	case !bySample && h.number != d.frameNum:
		return d.errf(at, "frame number %d where %d was due", h.number, d.frameNum)
	case !bySample && (d.short || h.block > d.fixedBlock):
		return d.errf(at, "frame of %d samples after a frame of %d in a fixed-blocksize stream", h.block, d.block)
	case d.info.total > 0 && start+int64(h.block) > d.info.total:
		return d.errf(at, "frame ends at sample %d, past the %d samples per channel STREAMINFO declares", start+int64(h.block), d.info.total)
	}
	d.short = !bySample && h.block < d.fixedBlock
	return nil
}

// flacTailWindow is how far from the end of a file the last frame is
// looked for: larger than any frame of up to 8 channels × 4608 samples.
const flacTailWindow = 256 << 10

// checkLastFrame finds the last frame in the final bytes of a file of size
// bytes (a header with a valid CRC-8 that agrees with STREAMINFO, whose
// CRC-16 covers the rest of the file but an ID3v1 tag). If it does not end
// where STREAMINFO's total says, the length becomes where it ends, with a
// warning, so a wrong total is never planned with. If no such frame is
// found (a frame longer than the window, trailing bytes) decoding still
// refuses a stream that disagrees with the total.
func (d *flacDecoder) checkLastFrame(ra io.ReaderAt, size int64) error {
	i := d.info
	from := max(d.in.off, size-flacTailWindow)
	if i.total == 0 || from >= size {
		return nil
	}
	win := make([]byte, size-from)
	if _, err := ra.ReadAt(win, from); err != nil {
		return nil // decoding will meet the same problem and say so
	}
	if n := len(win); n >= 128 && bytes.HasPrefix(win[n-128:], []byte("TAG")) {
		win = win[:n-128]
	}
	p, h, ok := lastFrame(win, i)
	if !ok {
		return nil
	}
	last := int64(h.number) + int64(h.block) // variable blocking: a sample number
	if !h.variable {
		// a frame number: times the first frame's block size, unless
		// STREAMINFO's unequal block sizes mean old Flake's sample numbers
		first, ok := firstFrame(ra, d.in.off, i)
		if !ok || first.variable || i.minBlock != i.maxBlock {
			return nil
		}
		last = int64(h.number)*int64(first.block) + int64(h.block)
	}
	if last != i.total {
		// the reference decoder plays such a file; the frames are the
		// truth and decoding holds them to it
		d.warnings = append(d.warnings, fmt.Sprintf("%s: STREAMINFO declares %d samples per channel but the last frame (offset %d) ends at sample %d: analyzing the frames",
			d.name, i.total, from+int64(p), last))
		d.info.total, d.format.Frames = last, last
	}
	return nil
}

// firstFrame reads the header of the frame at byte off of ra, if it is one
// that agrees with STREAMINFO (decoding reports it otherwise).
func firstFrame(ra io.ReaderAt, off int64, i flacInfo) (flacHeader, bool) {
	var head [16]byte
	n, _ := ra.ReadAt(head[:], off)
	probe := &flacDecoder{in: flacBits{r: bufio.NewReaderSize(bytes.NewReader(head[:n]), 16)}, info: i, variable: -1}
	h, err := probe.readFrameHeader(0)
	return h, err == nil && probe.checkFrame(h, 0) == nil
}

// lastFrame finds the frame that ends win: the last header with a valid
// CRC-8 that agrees with i and whose CRC-16 covers the rest of win. It
// reuses one probe for every candidate and runs at most 8 CRC-16s, so a
// window of repeated frame headers costs no more than that.
func lastFrame(win []byte, i flacInfo) (int, flacHeader, bool) {
	src := bytes.NewReader(nil)
	probe := &flacDecoder{in: flacBits{r: bufio.NewReaderSize(src, 16)}, info: i}
	end, tries := len(win), 0
	for p := end - 2; p >= 0 && tries < 8; p-- {
		if win[p] != 0xFF || win[p+1]&0xFE != 0xF8 {
			continue
		}
		src.Reset(win[p:])
		probe.in.r.Reset(src)
		probe.in = flacBits{r: probe.in.r}
		h, err := probe.readFrameHeader(0)
		if err != nil {
			continue
		}
		if h.rate != 0 && h.rate != i.rate || h.bps != 0 && h.bps != i.bps || h.channels() != i.channels || h.block > i.maxBlock {
			// a header contradicting STREAMINFO (or data that looks like
			// one): leave it to decoding, which says what is wrong
			return 0, flacHeader{}, false
		}
		tries++
		// with no final XOR, the CRC-16 over a whole frame and anything
		// after it equals the CRC of what follows, so every frame "ends"
		// the window: the first header from the end is the one
		if end-p > 2 && flacCRC16(win[p:end-2]) == uint16(win[end-2])<<8|uint16(win[end-1]) {
			return p, h, true
		}
	}
	return 0, flacHeader{}, false
}

func flacCRC16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crc16Table[byte(c>>8)^x]
	}
	return c
}
