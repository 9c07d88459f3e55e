package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"
)

// mp3Decoder decodes MP3 with libmpg123 to float, as the reference decoder
// does, or where that library is missing with go-mp3 (16-bit output, with
// a warning; see mpg123.go). Prism hands either the stream after any
// ID3v2 tag (go-mp3 would allocate a tag's declared size) and after the
// Xing/Info frame, and trims the output as LAME's decoder does: the encoder
// delay from the LAME tag plus the decoder delay of 529 samples at the
// start, the encoder padding at the end, so sample 0 is the first sample
// encoded. The channels are the stream's (one for a mono MP3).
type mp3Decoder struct {
	name     string
	src      mp3Source
	in       *countingReader
	closer   io.Closer
	format   Format
	scratch  []float32 // decoded samples dropped at the start or past the end
	skip     int64     // samples per channel still to drop at the start
	limit    int64     // samples per channel to deliver, −1 if unknown
	decoded  int64     // samples per channel the Xing header accounts for, −1 if unknown
	done     int64     // samples per channel delivered
	consumed int64     // samples per channel decoded (dropped or delivered)
	err      error     // sticky
	warnings []string
	bad      nonFinite
}

// mp3Source decodes the frames: libmpg123 or go-mp3.
type mp3Source interface {
	// decode fills dst (≤ mp3Block frames, interleaved) or returns the
	// frames it decoded and why the stream ended before dst was full.
	decode(dst []float32) (frames int, err error)
	close()
}

// mp3Block is the most frames one call into the decoder asks for.
const mp3Block = mpg123Block

// mp3Lib is the libmpg123 the MP3 decoder uses, or why none (tests swap it).
var mp3Lib = loadMPG123

// goMP3 is go-mp3, which always gives 16-bit stereo (a mono stream's
// samples twice): a mono stream keeps the left channel.
type goMP3 struct {
	dec  *mp3.Decoder
	raw  []byte // 4·mp3Block bytes
	mono bool
}

func (g *goMP3) decode(dst []float32) (int, error) {
	ch := 2
	if g.mono {
		ch = 1
	}
	got, err := io.ReadFull(g.dec, g.raw[:4*(len(dst)/ch)])
	got /= 4
	for i := range got {
		l := float32(int16(binary.LittleEndian.Uint16(g.raw[4*i:]))) / (1 << 15)
		if g.mono {
			dst[i] = l
			continue
		}
		dst[2*i], dst[2*i+1] = l, float32(int16(binary.LittleEndian.Uint16(g.raw[4*i+2:])))/(1<<15)
	}
	return got, err
}

func (g *goMP3) close() {}

// mp3DecoderDelay is the delay of the standard MPEG audio synthesis (the
// IMDCT overlap and the polyphase filterbank) that LAME's decoder removes:
// 528 samples plus one.
const mp3DecoderDelay = 529

// mp3MaxGap is how many bytes go-mp3 may read for one call without the
// call ending: far more than the frames it decodes need (≤ 2881 bytes for
// 1152 samples), so a stream of garbage or zeros (/dev/zero named x.mp3),
// where go-mp3 would search for a frame forever, ends in an error.
const mp3MaxGap = 1 << 20

// countingReader counts the bytes read through it, for error offsets,
// stops at a budget the decoder renews before each call into go-mp3, and
// follows the frames go-mp3 will decode (see frameScan).
type countingReader struct {
	r      io.Reader
	off    int64
	budget int64
	scan   frameScan
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.budget <= 0 {
		return 0, fmt.Errorf("no MPEG audio frame in %d bytes", mp3MaxGap)
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.budget)])
	if serr := c.scan.feed(p[:n], c.off); serr != nil {
		return 0, serr
	}
	c.off += int64(n)
	c.budget -= int64(n)
	return n, err
}

// frameScan walks the frame headers of the stream as it passes to go-mp3
// and stops it before a frame go-mp3 would decode wrongly: it computes an
// MPEG-2 frame's size as (144·bitrate/rate + padding) / 2, one byte short
// of 72·bitrate/rate + padding when the first term is even, and then reads
// the bit reservoir a byte out of place (22.05 kHz at 8, 16, 24, 32, 80,
// 96, 144 or 160 kb/s: garbage, silently). Where no header is found it
// moves on a byte at a time, as go-mp3 does.
type frameScan struct {
	goMP3 bool    // the frames go to go-mp3: refuse those it misreads
	skip  int     // bytes of the current frame still to pass
	hdr   [4]byte // the header being collected
	have  int
}

func (s *frameScan) feed(b []byte, off int64) error {
	for len(b) > 0 {
		if s.skip > 0 {
			k := min(s.skip, len(b))
			s.skip -= k
			b, off = b[k:], off+int64(k)
			continue
		}
		k := copy(s.hdr[s.have:], b)
		s.have += k
		b, off = b[k:], off+int64(k)
		if s.have < 4 {
			return nil
		}
		f, ok := parseMPEGHeader(s.hdr[:])
		if !ok {
			copy(s.hdr[:], s.hdr[1:])
			s.have = 3
			continue
		}
		if f.misread && s.goMP3 {
			return fmt.Errorf("frame at offset %d: MPEG-2 at %d Hz, %d kb/s with a padding byte, which the MP3 library (go-mp3) decodes wrongly: not supported", off-4, f.rate, f.kbps)
		}
		s.have, s.skip = 0, f.size-4
	}
	return nil
}

// decode decodes whole frames into dst with a fresh budget.
func (m *mp3Decoder) decode(dst []float32) (int, error) {
	m.in.budget = mp3MaxGap
	n, err := m.src.decode(dst)
	m.consumed += int64(n)
	return n, err
}

// newMP3 decodes MP3 from br, which starts at byte offset start of a file
// of size bytes (−1 if unknown).
func newMP3(br *bufio.Reader, closer io.Closer, name string, start, size int64) (d Decoder, err error) {
	defer recoverCorrupt(name, "MP3", &err)
	m := &mp3Decoder{name: name, closer: closer, skip: mp3DecoderDelay, limit: -1, decoded: -1}
	head, _ := br.Peek(4096) // longer than any layer III frame
	if x, ok := parseXing(head); ok {
		m.applyXing(x, start, size)
		n, _ := br.Discard(x.frame.size) // it decodes to silence that is no part of the audio
		start += int64(n)
	}
	m.in = &countingReader{r: br, off: start, budget: mp3MaxGap}
	fail := func(err error) (Decoder, error) {
		return nil, &FormatError{Name: name, Offset: start, Reason: "MP3: " + err.Error()}
	}
	m.format = Format{Encoding: "MP3", Container: "MP3", Frames: m.limit}
	if lib, libErr := mp3Lib(); libErr == nil {
		s, err := newMPG123(lib, m.in)
		if err != nil {
			return fail(err)
		}
		m.src, m.format.SampleRate, m.format.Channels = s, s.rate, s.channels
	} else {
		m.in.scan.goMP3 = true
		head, _ = br.Peek(4096)
		f, _ := firstMPEGHeader(head)
		dec, err := mp3.NewDecoder(m.in)
		if err != nil {
			return fail(err)
		}
		m.src, m.format.SampleRate, m.format.Channels = &goMP3{dec: dec, raw: make([]byte, 4*mp3Block), mono: f.mono}, dec.SampleRate(), 2
		if f.mono {
			m.format.Channels = 1
		}
		m.warnings = append(m.warnings, fmt.Sprintf("%s: MP3 decoded to 16 bits by go-mp3 (%v: install libmpg123 for the reference decoder's float output)", name, libErr))
	}
	m.scratch = make([]float32, mp3Block*m.format.Channels)
	return m, nil
}

// firstMPEGHeader is the first layer III frame header in p, the one the
// decoder starts with.
func firstMPEGHeader(p []byte) (mpegFrame, bool) {
	for i := range p {
		if f, ok := parseMPEGHeader(p[i:]); ok {
			return f, true
		}
	}
	return mpegFrame{}, false
}

// applyXing sets the trim and the length from a Xing/Info frame at byte
// offset at, unless the file is shorter than the header says (then the
// length stays unknown and the user is warned).
func (m *mp3Decoder) applyXing(x xingInfo, at, size int64) {
	if x.lame {
		m.skip += int64(x.delay)
	}
	if x.frames == 0 {
		return
	}
	m.decoded = int64(x.frames) * int64(x.frame.spf)
	if size >= 0 && (x.bytes > 0 && at+int64(x.bytes) > size+128 || int64(x.frames) > (size-at)/24+1) {
		// 24 bytes is the smallest layer III frame; the 128 allow for
		// writers that count an ID3v1 tag
		m.warnings = append(m.warnings, fmt.Sprintf("%s: the Xing header at offset %d counts %d frames (%d bytes) but the file holds %d bytes: analyzing what is there",
			m.name, at, x.frames, x.bytes, size-at))
		m.decoded = -1
		return
	}
	m.limit = max(0, m.decoded-m.skip)
	if x.lame {
		m.limit = max(0, min(m.limit, m.decoded-int64(x.delay)-int64(x.padding)))
	}
}

func (m *mp3Decoder) Format() Format { return m.format }
func (m *mp3Decoder) Warnings() []string {
	return m.bad.appendWarning(m.warnings, m.name, m.format)
}

func (m *mp3Decoder) Read(dst []float32) (n int, err error) {
	defer recoverCorrupt(m.name, "MP3", &err)
	if m.err != nil {
		return 0, m.err
	}
	ch := m.format.Channels
	want := int64(len(dst) / ch)
	if m.limit >= 0 {
		want = min(want, m.limit-m.done)
		if want == 0 {
			m.err = m.checkEnd()
			return 0, m.err
		}
	}
	for m.skip > 0 {
		k := min(m.skip, mp3Block)
		got, err := m.decode(m.scratch[:k*int64(ch)])
		m.skip -= int64(got)
		if err != nil {
			m.err = m.endErr(err)
			return 0, m.err
		}
	}
	frames := min(want, mp3Block)
	if frames == 0 {
		return 0, nil
	}
	got, err := m.decode(dst[:frames*int64(ch)])
	m.bad.scan(dst[:got*ch], m.done, ch)
	m.done += int64(got)
	if err != nil && got == 0 {
		m.err = m.endErr(err)
		return 0, m.err
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		m.err = m.endErr(err)
	}
	return got, nil
}

// endErr is the error for the end of go-mp3's output: io.EOF when the
// stream ends where its Xing header says (or none says), else why not.
func (m *mp3Decoder) endErr(err error) error {
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{Name: m.name, Offset: m.in.off, Reason: "MP3: " + err.Error()}
	}
	if m.limit >= 0 && m.done < m.limit {
		return &FormatError{Name: m.name, Offset: m.in.off, Reason: fmt.Sprintf("MP3: the stream ends after %d samples per channel, its Xing header declares %d", m.done, m.limit)}
	}
	return io.EOF
}

// checkEnd runs the decoder to the end of the frames the Xing header counts
// and warns if more follow (they are not analyzed: the length was declared).
func (m *mp3Decoder) checkEnd() error {
	ch := int64(m.format.Channels)
	for left := m.decoded - m.consumed; left > 0; left = m.decoded - m.consumed {
		if _, err := m.decode(m.scratch[:min(left, mp3Block)*ch]); err != nil {
			return io.EOF
		}
	}
	if got, _ := m.decode(m.scratch[:ch]); got > 0 {
		m.warnings = append(m.warnings, fmt.Sprintf("%s: the stream goes on past the %d samples its Xing header counts (offset %d): the rest is not analyzed", m.name, m.decoded, m.in.off))
	}
	return io.EOF
}

func (m *mp3Decoder) Close() error {
	if m.src != nil {
		m.src.close()
		m.src = nil
	}
	if m.closer == nil {
		return nil
	}
	err := m.closer.Close()
	m.closer = nil
	return err
}

// mpegFrame is a layer III frame header.
type mpegFrame struct {
	mpeg1   bool
	crc     bool
	mono    bool
	size    int // bytes
	spf     int // samples per channel
	rate    int // Hz
	kbps    int
	misread bool // go-mp3 computes the size one byte short (see frameScan)
}

var (
	mp3Bitrates = [2][16]int{ // kb/s: MPEG-2/2.5, MPEG-1
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0},
	}
	mp3Rates = [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}} // by version bits
)

// parseMPEGHeader reads a layer III frame header from h.
func parseMPEGHeader(h []byte) (mpegFrame, bool) {
	if len(h) < 4 || h[0] != 0xFF || h[1]&0xE0 != 0xE0 {
		return mpegFrame{}, false
	}
	version, layer := h[1]>>3&3, h[1]>>1&3
	brIndex, rateIndex := h[2]>>4, h[2]>>2&3
	if version == 1 || layer != 1 || brIndex == 0 || brIndex == 15 || rateIndex == 3 {
		return mpegFrame{}, false
	}
	f := mpegFrame{mpeg1: version == 3, crc: h[1]&1 == 0, mono: h[3]>>6 == 3, spf: 576}
	v := 0
	if f.mpeg1 {
		v, f.spf = 1, 1152
	}
	f.rate, f.kbps = mp3Rates[version][rateIndex], mp3Bitrates[v][brIndex]
	pad := int(h[2] >> 1 & 1)
	f.size = f.spf/8*f.kbps*1000/f.rate + pad
	f.misread = !f.mpeg1 && pad == 1 && 144*f.kbps*1000/f.rate%2 == 0
	return f, true
}

func isXingTag(p []byte, off int) bool {
	return off+8 <= len(p) && (string(p[off:off+4]) == "Xing" || string(p[off:off+4]) == "Info")
}

// sideInfoSize is the length of the frame's side information in bytes.
func (f mpegFrame) sideInfoSize() int {
	switch {
	case f.mpeg1 && f.mono:
		return 17
	case f.mpeg1:
		return 32
	case f.mono:
		return 9
	}
	return 17
}

// parseLAME reads the encoder delay and padding (12 bits each, 21 bytes
// into the tag) from a LAME tag at the start of p, written by LAME or by
// FFmpeg's libavformat/libavcodec.
func parseLAME(p []byte) (ok bool, delay, padding int) {
	if len(p) < 24 {
		return false, 0, 0
	}
	switch string(p[:4]) {
	case "LAME", "Lavf", "Lavc":
		dp := p[21:]
		return true, int(dp[0])<<4 | int(dp[1])>>4, int(dp[1]&15)<<8 | int(dp[2])
	}
	return false, 0, 0
}

// xingInfo is what a Xing/Info frame and its LAME extension say.
type xingInfo struct {
	frame          mpegFrame
	frames, bytes  uint32 // 0 when absent
	lame           bool
	delay, padding int // samples per channel
}

// parseXing finds a Xing or Info tag in the first frame of p.
func parseXing(p []byte) (xingInfo, bool) {
	f, ok := parseMPEGHeader(p)
	if !ok || f.size > len(p) {
		return xingInfo{}, false
	}
	// after the side information; LAME writes it there even when a CRC
	// precedes the side information (lame -p), others 2 bytes further
	p = p[:f.size]
	off := 4 + f.sideInfoSize()
	if f.crc && !isXingTag(p, off) {
		off += 2
	}
	if !isXingTag(p, off) {
		return xingInfo{}, false
	}
	x := xingInfo{frame: f}
	flags := binary.BigEndian.Uint32(p[off+4:])
	i := off + 8
	field := func(present uint32, n int) []byte {
		if flags&present == 0 || i+n > len(p) {
			return nil
		}
		b := p[i : i+n]
		i += n
		return b
	}
	if b := field(1, 4); b != nil {
		x.frames = binary.BigEndian.Uint32(b)
	}
	if b := field(2, 4); b != nil {
		x.bytes = binary.BigEndian.Uint32(b)
	}
	field(4, 100) // seek table
	field(8, 4)   // quality
	x.lame, x.delay, x.padding = parseLAME(p[i:])
	return x, true
}
