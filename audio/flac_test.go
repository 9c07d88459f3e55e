package audio

import (
	"bytes"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The FLAC tests write streams bit by bit with verbatim subframes, so every
// field the decoder checks can be set to contradict STREAMINFO. The writer
// and its CRCs (computed bit by bit here) are independent of the decoder's
// table-driven ones; the encoded fixtures in testdata cover the predictors
// and are checked against the MD5 their encoder stored.

type bitWriter struct {
	buf []byte
	cur byte
	n   uint
}

func (w *bitWriter) put(v uint64, k uint) {
	for i := k; i > 0; i-- {
		w.cur = w.cur<<1 | byte(v>>(i-1)&1)
		if w.n++; w.n == 8 {
			w.buf, w.cur, w.n = append(w.buf, w.cur), 0, 0
		}
	}
}

func (w *bitWriter) align() {
	for w.n != 0 {
		w.put(0, 1)
	}
}

// bitCRC is a CRC over b, MSB first, initial value 0, of width bits.
func bitCRC(b []byte, width uint, poly uint32) uint32 {
	var c uint32
	top := uint32(1) << (width - 1)
	for _, x := range b {
		for i := 7; i >= 0; i-- {
			bit := uint32(x>>i) & 1
			if (c&top != 0) != (bit == 1) {
				c = (c<<1 ^ poly) & (top<<1 - 1)
			} else {
				c = c << 1 & (top<<1 - 1)
			}
		}
	}
	return c
}

// testFrame is one frame; negative codes mean "the natural value".
type testFrame struct {
	samples  [][]int64 // per subframe, as stored (a side channel is one bit wider)
	rateCode int
	bpsCode  int
	assign   int
	number   int64 // frame number (fixed) or sample number (variable)
	variable bool
	badCRC8  bool
	badCRC16 bool
}

type testFLAC struct {
	rate, channels, bps int
	total               int64 // −1: the frames' real count
	minBlock, maxBlock  int   // 0: 16, 4096
	md5                 []byte
	meta                [][]byte // metadata blocks after STREAMINFO: type byte, then body
	frames              []testFrame
}

func natural(v, def int) int {
	if v < 0 {
		return def
	}
	return v
}

func (s testFLAC) bytes() []byte {
	w := &bitWriter{}
	w.buf = append(w.buf, "fLaC"...)
	total := s.total
	if total < 0 {
		total = 0
		for _, f := range s.frames {
			total += int64(len(f.samples[0]))
		}
	}
	last := uint64(0)
	if len(s.meta) == 0 {
		last = 1
	}
	w.put(last, 1)
	w.put(0, 7)
	w.put(34, 24)
	w.put(uint64(natural(s.minBlock-1, 15)+1), 16)
	w.put(uint64(natural(s.maxBlock-1, 4095)+1), 16)
	w.put(0, 48)
	w.put(uint64(s.rate), 20)
	w.put(uint64(s.channels-1), 3)
	w.put(uint64(s.bps-1), 5)
	w.put(uint64(total), 36)
	md := make([]byte, 16)
	copy(md, s.md5)
	w.buf = append(w.buf, md...)
	for i, m := range s.meta {
		last := uint64(0)
		if i == len(s.meta)-1 {
			last = 1
		}
		w.put(last<<7|uint64(m[0]), 8)
		w.put(uint64(len(m)-1), 24)
		w.buf = append(w.buf, m[1:]...)
	}
	var n int64
	for _, f := range s.frames {
		w.buf = append(w.buf, s.frame(f, n)...)
		n += int64(len(f.samples[0]))
	}
	return w.buf
}

func (s testFLAC) frame(f testFrame, sampleAt int64) []byte {
	rateCodes := map[int]int{44100: 9, 48000: 10, 96000: 11}
	bpsCodes := map[int]int{8: 1, 12: 2, 16: 4, 20: 5, 24: 6, 32: 7}
	w := &bitWriter{}
	w.put(0x3FFE, 14)
	w.put(0, 1)
	variable := uint64(0)
	if f.variable {
		variable = 1
	}
	w.put(variable, 1)
	w.put(7, 4) // block size in 16 bits at the end of the header
	w.put(uint64(natural(f.rateCode, rateCodes[s.rate])), 4)
	w.put(uint64(natural(f.assign, len(f.samples)-1)), 4)
	w.put(uint64(natural(f.bpsCode, bpsCodes[s.bps])), 3)
	w.put(0, 1)
	num := f.number
	if num < 0 && f.variable {
		num = sampleAt
	} else if num < 0 && sampleAt > 0 {
		num = sampleAt / int64(len(s.frames[0].samples[0]))
	} else if num < 0 {
		num = 0
	}
	w.buf = append(w.buf, codedNumber(uint64(num))...)
	w.put(uint64(len(f.samples[0])-1), 16)
	crc8 := bitCRC(w.buf, 8, 0x07)
	if f.badCRC8 {
		crc8 ^= 1
	}
	w.put(uint64(crc8), 8)
	side := -1
	switch natural(f.assign, 0) {
	case 8, 10:
		side = 1
	case 9:
		side = 0
	}
	for c, x := range f.samples {
		bps := uint(s.bps)
		if c == side {
			bps++
		}
		w.put(0x02, 8) // verbatim, no wasted bits
		for _, v := range x {
			w.put(uint64(v)&(1<<bps-1), bps)
		}
	}
	w.align()
	crc16 := bitCRC(w.buf, 16, 0x8005)
	if f.badCRC16 {
		crc16 ^= 1
	}
	w.put(uint64(crc16), 16)
	return w.buf
}

// codedNumber is FLAC's UTF-8-like number coding.
func codedNumber(v uint64) []byte {
	if v < 0x80 {
		return []byte{byte(v)}
	}
	n := 2 // bytes: the first holds 7−n bits, each other 6
	for v >= 1<<(6*(n-1)+7-n) {
		n++
	}
	b := []byte{byte(0xFF<<(8-n)) | byte(v>>(6*(n-1)))}
	for k := n - 2; k >= 0; k-- {
		b = append(b, 0x80|byte(v>>(6*k))&0x3F)
	}
	return b
}

// pcmMD5 is the MD5 FLAC stores: interleaved little-endian samples in
// whole bytes.
func pcmMD5(bps int, chans [][]int64) []byte {
	var b []byte
	for i := range chans[0] {
		for _, c := range chans {
			for k := range (bps + 7) / 8 {
				b = append(b, byte(c[i]>>(8*k)))
			}
		}
	}
	s := md5.Sum(b)
	return s[:]
}

func ramp(n int, lo, hi int64) []int64 {
	x := make([]int64, n)
	for i := range x {
		x[i] = lo + (hi-lo)*int64(i)/int64(max(1, n-1))
	}
	return x
}

func decodeFLAC(t testing.TB, b []byte) ([]float32, Format, error) {
	t.Helper()
	d, err := NewDecoder(bytes.NewReader(b), "test.flac", int64(len(b)))
	if err != nil {
		return nil, Format{}, err
	}
	defer d.Close()
	f := d.Format()
	var out []float32
	buf := make([]float32, 13*f.Channels) // odd size: frames split across reads
	for {
		n, err := d.Read(buf)
		out = append(out, buf[:n*f.Channels]...)
		if errors.Is(err, io.EOF) {
			return out, f, nil
		}
		if err != nil {
			return out, f, err
		}
	}
}

// TestFLACDepths decodes valid streams at 15 and 32 bits (and 8, 24)
// exactly: sample/2^(bits−1), full scale −1.0, with the MD5 checked.
func TestFLACDepths(t *testing.T) {
	for _, bps := range []int{8, 15, 24, 32} {
		t.Run(fmt.Sprint(bps, "-bit"), func(t *testing.T) {
			lo, hi := int64(-1)<<(bps-1), int64(1)<<(bps-1)-1
			l, r := ramp(300, lo, hi), ramp(300, hi, lo)
			s := testFLAC{rate: 44100, channels: 2, bps: bps, total: -1, md5: pcmMD5(bps, [][]int64{l, r}),
				frames: []testFrame{
					{samples: [][]int64{l[:200], r[:200]}, rateCode: -1, bpsCode: -1, assign: -1, number: -1},
					{samples: [][]int64{l[200:], r[200:]}, rateCode: -1, bpsCode: 0, assign: -1, number: -1}, // depth "as STREAMINFO"
				}}
			got, f, err := decodeFLAC(t, s.bytes())
			if err != nil {
				t.Fatal(err)
			}
			if f.Bits != bps || f.Channels != 2 || f.SampleRate != 44100 || f.Frames != 300 {
				t.Errorf("format %+v", f)
			}
			if len(got) != 600 {
				t.Fatalf("%d samples", len(got))
			}
			scale := math.Ldexp(1, -(bps - 1))
			for i := range 300 {
				if wl, wr := float32(float64(l[i])*scale), float32(float64(r[i])*scale); got[2*i] != wl || got[2*i+1] != wr {
					t.Fatalf("frame %d = %v, %v; want %v, %v", i, got[2*i], got[2*i+1], wl, wr)
				}
			}
			if got[0] != -1 || got[1] != float32(float64(hi)*scale) {
				t.Errorf("extremes %v, %v", got[0], got[1])
			}
		})
	}
}

// TestFLACSide32 stores a 32-bit left/side pair whose side needs 33 bits.
func TestFLACSide32(t *testing.T) {
	l := []int64{math.MaxInt32, math.MinInt32, 5}
	r := []int64{math.MinInt32, math.MaxInt32, -7}
	side := make([]int64, 3)
	for i := range side {
		side[i] = l[i] - r[i]
	}
	s := testFLAC{rate: 48000, channels: 2, bps: 32, total: -1, md5: pcmMD5(32, [][]int64{l, r}),
		frames: []testFrame{{samples: [][]int64{l, side}, rateCode: -1, bpsCode: -1, assign: 8, number: -1}}}
	got, _, err := decodeFLAC(t, s.bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i := range l {
		if got[2*i] != float32(float64(l[i])/(1<<31)) || got[2*i+1] != float32(float64(r[i])/(1<<31)) {
			t.Errorf("frame %d = %v, %v", i, got[2*i], got[2*i+1])
		}
	}
}

// TestFLACFixtures decodes files made by the reference encoder (flac 1.4.2,
// see testdata/README.md): fixed and LPC predictors, escaped partitions,
// wasted bits, mid/side at 24 bits, 6 channels, 8 and 32 bits. The decoder
// compares its output with the MD5 the encoder stored, so no error means
// bit-exact samples; the scaled peak is checked against what sox wrote.
func TestFLACFixtures(t *testing.T) {
	for _, c := range []struct {
		file                 string
		rate, channels, bits int
		frames               int64
		peak, tolerance      float64
	}{
		{"pcm32", 48000, 1, 32, 960, 0.9, 1e-6},
		{"wasted24", 44100, 2, 24, 2205, 0.5, 1e-4},
		{"side24", 96000, 2, 24, 2880, 0, 0}, // two summed sines: peak not checked
		{"fixed6ch", 22050, 6, 16, 1103, 0, 0},
		{"lpc8bit", 8000, 2, 8, 800, 0, 0},
		{"tone", 44100, 2, 16, 44100, 0.5, 1e-4},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + c.file + ".flac")
			if err != nil {
				t.Fatal(err)
			}
			x, f, err := decodeFLAC(t, b)
			if err != nil {
				t.Fatal(err)
			}
			if f.SampleRate != c.rate || f.Channels != c.channels || f.Bits != c.bits || f.Frames != c.frames || int64(len(x)) != c.frames*int64(c.channels) {
				t.Errorf("format %+v, %d samples", f, len(x))
			}
			peak := 0.0
			for _, v := range x {
				peak = max(peak, math.Abs(float64(v)))
			}
			if peak > 1 || c.tolerance > 0 && math.Abs(peak-c.peak) > c.tolerance {
				t.Errorf("peak %v, want %v", peak, c.peak)
			}
		})
	}
}

// flacFrame0 is the byte offset of the first frame of a testFLAC with no
// extra metadata: marker, block header, STREAMINFO.
const flacFrame0 = 4 + 4 + 34

// TestFLACRejects: streams that contradict themselves are refused with the
// offset of the frame (or block) at fault and the reason, never decoded.
func TestFLACRejects(t *testing.T) {
	x := ramp(64, -3000, 3000)
	fr := func(mod func(*testFrame)) testFrame {
		f := testFrame{samples: [][]int64{x, x}, rateCode: -1, bpsCode: -1, assign: -1, number: -1}
		if mod != nil {
			mod(&f)
		}
		return f
	}
	good := testFLAC{rate: 44100, channels: 2, bps: 16, total: -1}
	frameLen := int64(len(good.frame(fr(nil), 0)))
	with := func(mod func(*testFLAC), frames ...testFrame) []byte {
		s := good
		s.frames = frames
		if mod != nil {
			mod(&s)
		}
		return s.bytes()
	}
	stereo := func(s *testFLAC) {}
	mono := func(s *testFLAC) { s.channels = 1 }
	bigPicture := []byte{6, 0, 0, 0, 3, 0, 0, 0, 9, 'i', 'm', 'a', 'g', 'e', '/', 'p', 'n', 'g', 0x05, 0xF5, 0xE1, 0x00}
	tone, err := os.ReadFile("testdata/tone.flac")
	if err != nil {
		t.Fatal(err)
	}
	badMD5 := bytes.Clone(tone)
	badMD5[4+4+18] ^= 1
	flipped := bytes.Clone(tone)
	flipped[len(flipped)/2] ^= 0x10
	for _, c := range []struct {
		name, reason string
		file         []byte
		offset       int64
	}{
		{"wrong bit depth", "frame bit depth 24, STREAMINFO declares 16", with(stereo, fr(func(f *testFrame) { f.bpsCode = 6 })), flacFrame0},
		{"changing bit depth", "frame bit depth 24, STREAMINFO declares 16", with(stereo, fr(nil), fr(func(f *testFrame) { f.bpsCode = 6 })), flacFrame0 + frameLen},
		{"changing sample rate", "frame sample rate 48000 Hz, STREAMINFO declares 44100 Hz", with(stereo, fr(nil), fr(func(f *testFrame) { f.rateCode = 10 })), flacFrame0 + frameLen},
		{"frame with fewer channels", "frame has 1 channels, STREAMINFO declares 2", with(stereo, fr(func(f *testFrame) { f.samples = f.samples[:1] })), flacFrame0},
		{"mid/side in a mono stream", "frame has 2 channels, STREAMINFO declares 1", with(mono, fr(func(f *testFrame) { f.assign = 10 })), flacFrame0},
		{"reserved channel code", "reserved channel assignment 11", with(stereo, fr(func(f *testFrame) { f.assign = 11 })), flacFrame0},
		{"reserved depth code", "reserved sample size code 3", with(stereo, fr(func(f *testFrame) { f.bpsCode = 3 })), flacFrame0},
		{"block above STREAMINFO max", "frame block size 64, STREAMINFO declares at most 32", with(func(s *testFLAC) { s.maxBlock = 32 }, fr(nil)), flacFrame0},
		{"total too small", "frame ends at sample 128, past the 100 samples", with(func(s *testFLAC) { s.total = 100 }, fr(nil), fr(nil)), flacFrame0 + frameLen},
		{"total too large", "stream ends after 128 samples per channel, STREAMINFO declares 1000", with(func(s *testFLAC) { s.total = 1000 }, fr(nil), fr(nil)), flacFrame0 + 2*frameLen},
		{"frame number skipped", "frame number 2 where 1 was due", with(stereo, fr(nil), fr(func(f *testFrame) { f.number = 2 })), flacFrame0 + frameLen},
		{"sample number skipped", "frame starts at sample 70, the frames before end at 64",
			with(func(s *testFLAC) { s.total = 134 }, fr(func(f *testFrame) { f.variable = true }), fr(func(f *testFrame) { f.variable, f.number = true, 70 })), flacFrame0 + frameLen},
		{"blocking changes", "blocking strategy", with(stereo, fr(nil), fr(func(f *testFrame) { f.variable = true })), flacFrame0 + frameLen},
		{"header CRC", "CRC-8 mismatch", with(stereo, fr(func(f *testFrame) { f.badCRC8 = true })), flacFrame0},
		{"frame CRC", "CRC-16 mismatch", with(stereo, fr(nil), fr(func(f *testFrame) { f.badCRC16 = true })), flacFrame0 + frameLen},
		{"side overflows", "decorrelation gives samples that do not fit in 16 bits", with(stereo, fr(func(f *testFrame) {
			f.assign, f.samples = 8, [][]int64{{32767}, {-1}}
		})), flacFrame0},
		{"MD5", "does not match the STREAMINFO MD5", badMD5, int64(len(badMD5))},
		{"corrupt frame", "", flipped, -1},
		{"cut short", "cut short", with(stereo, fr(nil))[:flacFrame0+frameLen-5], flacFrame0},
		{"garbage after a frame", "no frame sync code after 64 samples", append(with(stereo, fr(nil)), "garbage"...), flacFrame0 + frameLen},
		{"no fLaC marker, rate from STREAMINFO", "FLAC frames without a stream header", with(stereo, fr(func(f *testFrame) { f.rateCode = 0 }))[flacFrame0:], 0},
		{"picture past the end", "metadata block (type 6) declares 21 bytes, past the end", with(func(s *testFLAC) { s.meta = [][]byte{bigPicture} }, fr(nil))[:flacFrame0+10], flacFrame0},
		{"first block not STREAMINFO", "first metadata block is type 4", append([]byte("fLaC\x84\x00\x00\x00"), make([]byte, 40)...), 4},
		{"second STREAMINFO", "second STREAMINFO", with(func(s *testFLAC) { s.meta = [][]byte{append([]byte{0}, make([]byte, 34)...)} }, fr(nil)), flacFrame0},
		{"0 Hz", "sample rate of 0 Hz", with(func(s *testFLAC) { s.rate = 0 }, fr(nil)), 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := decodeFLAC(t, c.file)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FormatError", err)
			}
			if !strings.Contains(fe.Reason, c.reason) || c.offset >= 0 && fe.Offset != c.offset || fe.Name != "test.flac" {
				t.Errorf("got %q (offset %d), want reason containing %q at offset %d", err, fe.Offset, c.reason, c.offset)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message is not one line: %q", err)
			}
		})
	}
}

// TestFLACSkipsMetadata: PADDING, VORBIS_COMMENT and PICTURE blocks before
// the frames are skipped, and a tiny file whose PICTURE declares 100 MB of
// image allocates nothing of that size (mewkiz/flac allocated 100 MB).
func TestFLACSkipsMetadata(t *testing.T) {
	x := ramp(50, -100, 100)
	s := testFLAC{rate: 44100, channels: 1, bps: 16, total: -1, md5: pcmMD5(16, [][]int64{x}),
		meta:   [][]byte{{1, 0, 0, 0, 0}, append([]byte{4}, make([]byte, 300)...), append([]byte{6}, make([]byte, 70)...)},
		frames: []testFrame{{samples: [][]int64{x}, rateCode: -1, bpsCode: -1, assign: -1, number: -1}}}
	got, f, err := decodeFLAC(t, s.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.Frames != 50 || len(got) != 50 || got[49] != 100.0/32768 {
		t.Errorf("Frames %d, %d samples, last %v", f.Frames, len(got), got[len(got)-1])
	}
	// fLaC, STREAMINFO, then a PICTURE header declaring a 100 MB image
	// (picture type, MIME length 9, "image/png", description length 0,
	// 4 dimensions, data length 100 000 000) in a 16 MB block
	pic := []byte{0x86, 0xFF, 0xFF, 0xFF, 0, 0, 0, 3, 0, 0, 0, 9}
	pic = append(pic, "image/png"...)
	pic = append(pic, make([]byte, 20)...)
	pic = append(pic, 0x05, 0xF5, 0xE1, 0x00)
	head := good16().bytes()[:flacFrame0]
	head[4] = 0 // STREAMINFO is no longer the last block
	evil := append(head, pic...)
	grew := allocated(func() {
		if _, _, err := decodeFLAC(t, evil); !errors.As(err, new(*FormatError)) || !strings.Contains(err.Error(), "past the end") {
			t.Errorf("evil picture: %v", err)
		}
	})
	if grew > 1<<20 {
		t.Errorf("a %d-byte file allocated %d bytes", len(evil), grew)
	}
}

func good16() testFLAC {
	return testFLAC{rate: 44100, channels: 1, bps: 16, total: -1,
		frames: []testFrame{{samples: [][]int64{ramp(10, 0, 9)}, rateCode: -1, bpsCode: -1, assign: -1, number: -1}}}
}

// allocated is the bytes fn allocates (all goroutines; the tests in this
// package do not run in parallel).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestFLACVariableBlocks decodes a variable-blocksize stream (sample
// numbers in the headers) with blocks of 100, 37 and 200 samples.
func TestFLACVariableBlocks(t *testing.T) {
	x := ramp(337, -20000, 20000)
	var frames []testFrame
	for _, span := range [][2]int{{0, 100}, {100, 137}, {137, 337}} {
		frames = append(frames, testFrame{samples: [][]int64{x[span[0]:span[1]]}, rateCode: -1, bpsCode: -1, assign: -1, number: -1, variable: true})
	}
	s := testFLAC{rate: 96000, channels: 1, bps: 16, total: -1, maxBlock: 200, md5: pcmMD5(16, [][]int64{x}), frames: frames}
	got, f, err := decodeFLAC(t, s.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.Frames != 337 || len(got) != 337 {
		t.Fatalf("Frames %d, %d samples", f.Frames, len(got))
	}
	for i, v := range x {
		if got[i] != float32(v)/32768 {
			t.Fatalf("sample %d = %v, want %v", i, got[i], float32(v)/32768)
		}
	}
	// old Flake: the same frames with sample numbers but the fixed-blocking
	// bit, accepted because STREAMINFO's block sizes differ (16…200) ...
	for i := range s.frames {
		s.frames[i].variable = false
		s.frames[i].number = [...]int64{0, 100, 137}[i]
	}
	if got, _, err := decodeFLAC(t, s.bytes()); err != nil || len(got) != 337 {
		t.Errorf("old Flake: %d samples, %v", len(got), err)
	}
	// ... and refused when they say the blocks are all 200
	s.minBlock = 200
	if _, _, err := decodeFLAC(t, s.bytes()); err == nil || !strings.Contains(err.Error(), "frame number 100 where 1 was due") {
		t.Errorf("sample numbers in a fixed-blocksize stream: %v", err)
	}
}

// seedFLACs are the fuzz corpus: generated streams, the encoded fixtures
// and the malicious picture.
func seedFLACs(t testing.TB) [][]byte {
	x := ramp(40, -30000, 30000)
	out := [][]byte{good16().bytes()}
	for _, bps := range []int{15, 32} {
		out = append(out, testFLAC{rate: 48000, channels: 2, bps: bps, total: -1, md5: pcmMD5(bps, [][]int64{x, x}),
			frames: []testFrame{{samples: [][]int64{x, x}, rateCode: -1, bpsCode: -1, assign: -1, number: -1}}}.bytes())
	}
	for _, name := range []string{"lpc8bit", "pcm32"} {
		b, err := os.ReadFile("testdata/" + name + ".flac")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b[:min(len(b), 3000)])
	}
	head := good16().bytes()[:flacFrame0]
	head[4] = 0
	return append(out, append(head, 0x86, 0xFF, 0xFF, 0xFF, 0, 0, 0, 3, 0, 0, 0, 9))
}

// flacAllocLimit bounds what decoding any input may allocate besides a
// little per input byte: the 64 KiB read buffer, one block of int64 samples
// for up to 8 channels (the format's largest, 65535 × 8 × 8 bytes), the
// 16 KiB test buffer and slack for the MD5 state and the error.
const flacAllocLimit = 64<<10 + 65535*8*8 + 256<<10

// FuzzFLAC: any bytes give a decoder or a *FormatError, never a panic, and
// allocate no more than the fixed buffers whatever the stream declares.
func FuzzFLAC(f *testing.F) {
	for _, b := range seedFLACs(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		grew := allocated(func() { fuzzDecode(t, b, "fuzz.flac") })
		if grew > flacAllocLimit+8*uint64(len(b)) {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(b), grew)
		}
	})
}

// fuzzDecode decodes b to the end or the first error, which must be a
// *FormatError, and returns the container the bytes were read as ("" if
// none).
func fuzzDecode(t *testing.T, b []byte, name string) (container string) {
	d, err := NewDecoder(bytes.NewReader(b), name, int64(len(b)))
	if err == nil {
		container = d.Format().Container
		buf := make([]float32, 4096)
		for range 1 << 16 {
			if _, err = d.Read(buf); err != nil {
				break
			}
		}
		d.Close()
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil && !errors.As(err, new(*FormatError)) {
		t.Fatalf("error %v is not a *FormatError", err)
	}
	return container
}

// TestFLACTags: an ID3v2 tag before the fLaC marker and a 128-byte ID3v1
// tag after the last frame (both written by some taggers) are skipped; any
// other trailing bytes are refused as lost sync.
func TestFLACTags(t *testing.T) {
	tone := readFixture(t, "tone.flac")
	plain, pf, err := decodeFLAC(t, tone)
	if err != nil {
		t.Fatal(err)
	}
	v1 := append([]byte("TAG"), make([]byte, 125)...)
	for name, b := range map[string][]byte{
		"ID3v2 before": append(id3v2(500), tone...),
		"ID3v1 after":  append(bytes.Clone(tone), v1...),
	} {
		got, f, err := decodeFLAC(t, b)
		if err != nil || f != pf || !slicesEqual(got, plain) {
			t.Errorf("%s: %v, %+v, %d samples", name, err, f, len(got))
		}
	}
	if _, _, err := decodeFLAC(t, append(bytes.Clone(tone), v1[:127]...)); err == nil || !strings.Contains(err.Error(), "no frame sync") {
		t.Errorf("127 trailing bytes: %v", err)
	}
}

// TestFLACTotalAtOpen: when the last frame can be found at the end of the
// file, a STREAMINFO total that disagrees with it (as in the IETF test file
// "faulty/05", which the reference decoder plays) gives way to where the
// frames end, with a warning, before anything is planned with the length:
// fixed blocking by frame number, variable by sample number, the reference
// tone.flac with its total patched (its MD5 is still checked).
func TestFLACTotalAtOpen(t *testing.T) {
	x := ramp(64, -1000, 1000)
	fr := testFrame{samples: [][]int64{x}, rateCode: -1, bpsCode: -1, assign: -1, number: -1}
	vr := fr
	vr.variable = true
	fixed := testFLAC{rate: 44100, channels: 1, bps: 16, total: 100, minBlock: 64, maxBlock: 64, frames: []testFrame{fr, fr}}
	variable := fixed
	variable.minBlock, variable.frames = 16, []testFrame{vr, vr}
	tone := readFixture(t, "tone.flac")
	patched := bytes.Clone(tone)
	patched[8+17]++ // the total's low byte: 44101
	frameLen := int64(len(fixed.frame(fr, 0)))
	for _, c := range []struct {
		name, warning string
		file          []byte
		frames        int64
	}{
		{"fixed", fmt.Sprintf("declares 100 samples per channel but the last frame (offset %d) ends at sample 128", flacFrame0+frameLen), fixed.bytes(), 128},
		{"variable", fmt.Sprintf("declares 100 samples per channel but the last frame (offset %d) ends at sample 128", flacFrame0+frameLen), variable.bytes(), 128},
		{"tone.flac", "declares 44101 samples per channel but the last frame", patched, 44100},
	} {
		d, err := NewDecoder(bytes.NewReader(c.file), "test.flac", int64(len(c.file)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if w := d.Warnings(); d.Format().Frames != c.frames || len(w) != 1 || !strings.Contains(w[0], c.warning) {
			t.Errorf("%s: Frames %d, warnings %q; want %d, %q", c.name, d.Format().Frames, w, c.frames, c.warning)
		}
		got, _, err := decodeFLAC(t, c.file)
		if err != nil || int64(len(got)) != c.frames*int64(d.Format().Channels) {
			t.Errorf("%s: decoded %d samples: %v", c.name, len(got), err)
		}
	}
	// without a known size the stream is held to the declared total: refused
	_, _, err := decodeFLACStream(t, fixed.bytes())
	if err == nil || !strings.Contains(err.Error(), "past the 100 samples") {
		t.Errorf("streamed: %v", err)
	}
}

func decodeFLACStream(t testing.TB, b []byte) ([]float32, Format, error) {
	d, err := NewDecoder(io.MultiReader(bytes.NewReader(b)), "test.flac", -1)
	if err != nil {
		return nil, Format{}, err
	}
	defer d.Close()
	buf := make([]float32, 4096)
	for {
		if _, err := d.Read(buf); err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return nil, d.Format(), err
		}
	}
}

// TestFLACTailScanBounded: a file whose last 256 KiB are frame headers that
// agree with STREAMINFO (each a candidate last frame) is scanned in bounded
// time and allocation, and then refused while decoding.
func TestFLACTailScanBounded(t *testing.T) {
	s := good16()
	s.total = 1 << 20
	b := s.bytes()
	hdr := s.frame(s.frames[0], 0)[:8] // sync … CRC-8 of frame 0
	for len(b) < 300<<10 {
		b = append(b, hdr...)
	}
	grew := allocated(func() {
		if _, _, err := decodeFLAC(t, b); !errors.As(err, new(*FormatError)) {
			t.Errorf("err = %v, want *FormatError", err)
		}
	})
	if grew > flacTailWindow+1<<20 {
		t.Errorf("allocated %d bytes", grew)
	}
}

// TestFLACQuiet: streams at 176.4 and 24 kHz (where mewkiz/flac logged a
// line per frame to the standard logger) decode without writing a log line.
func TestFLACQuiet(t *testing.T) {
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	for _, c := range []struct{ rate, code int }{{176400, 2}, {24000, 7}} {
		x := ramp(30, -5, 5)
		fr := testFrame{samples: [][]int64{x}, rateCode: c.code, bpsCode: -1, assign: -1, number: -1}
		s := testFLAC{rate: c.rate, channels: 1, bps: 16, total: -1, frames: []testFrame{fr, fr, fr}}
		if _, f, err := decodeFLAC(t, s.bytes()); err != nil || f.SampleRate != c.rate || f.Frames != 90 {
			t.Errorf("%d Hz: %v, %+v", c.rate, err, f)
		}
	}
	if logged.Len() != 0 {
		t.Errorf("logged %q", logged.String())
	}
}

// TestFLACConformance runs the IETF CELLAR FLAC decoder testbench
// (github.com/ietf-wg-cellar/flac-test-files, CC0, 56 MB, so not kept here)
// when PRISM_FLAC_TEST_FILES names a checkout: every subset file decodes to
// its STREAMINFO length with its MD5 checked; the uncommon ones Prism
// supports decode; the rest are refused with these reasons. Files missing
// from the checkout are skipped.
func TestFLACConformance(t *testing.T) {
	dir := os.Getenv("PRISM_FLAC_TEST_FILES")
	if dir == "" {
		t.Skip("PRISM_FLAC_TEST_FILES not set")
	}
	refused := map[string]string{
		"faulty/01":   "frame block size 16384, STREAMINFO declares at most 4096",
		"faulty/03":   "frame bit depth 16, STREAMINFO declares 24",
		"faulty/04":   "frame has 1 channels, STREAMINFO declares 5",
		"faulty/06":   "first metadata block is type 4, not STREAMINFO",
		"faulty/07":   "first metadata block is type 4, not STREAMINFO",
		"faulty/08":   "STREAMINFO declares block sizes 0…0",
		"faulty/09":   "STREAMINFO declares block sizes 1…1",
		"faulty/11":   "invalid metadata block type 127",
		"uncommon/01": "frame sample rate 24000 Hz, STREAMINFO declares 32000 Hz",
		"uncommon/02": "frame has 2 channels, STREAMINFO declares 1",
		"uncommon/03": "frame has 2 channels, STREAMINFO declares 4",
		"uncommon/04": "frame bit depth 8, STREAMINFO declares 16",
		"uncommon/11": "not a WAV, FLAC or MP3 file",
	}
	// uncommon/10 (frames without a stream header) decodes from its frame
	// headers, as `flac -d` does
	warned := map[string]string{"faulty/05": "declares 39842 samples per channel but the last frame"}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.flac"))
	if len(files) == 0 {
		t.Fatalf("no FLAC files under %s/*/", dir)
	}
	for _, path := range files {
		key := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)[:2]
		t.Run(key, func(t *testing.T) {
			n, f, warns, err := decodePath(path)
			if want, ok := refused[key]; ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Frames >= 0 && n != f.Frames || len(warns) != 0 && !strings.Contains(strings.Join(warns, "\n"), warned[key]) || warned[key] != "" && len(warns) == 0 {
				t.Errorf("decoded %d of %d frames, warnings %q", n, f.Frames, warns)
			}
		})
	}
}

// decodePath decodes a file to the end and counts its frames.
func decodePath(path string) (int64, Format, []string, error) {
	d, err := Open(path)
	if err != nil {
		return 0, Format{}, nil, err
	}
	defer d.Close()
	f := d.Format()
	buf := make([]float32, 8192*f.Channels)
	var n int64
	for {
		k, err := d.Read(buf)
		n += int64(k)
		if errors.Is(err, io.EOF) {
			return n, f, d.Warnings(), nil
		}
		if err != nil {
			return n, f, d.Warnings(), err
		}
	}
}

// TestFLACReadAllocs: once its block buffers have grown to the stream's
// block size, decoding allocates nothing per frame.
func TestFLACReadAllocs(t *testing.T) {
	tone := readFixture(t, "tone.flac")
	d, err := NewDecoder(bytes.NewReader(tone), "tone.flac", int64(len(tone)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	buf := make([]float32, 2*512)
	if _, err := d.Read(buf); err != nil {
		t.Fatal(err)
	}
	// 50 reads of 512 frames: 25600 of the 44100, crossing 6 frames of 4096
	if n := testing.AllocsPerRun(50, func() {
		if _, err := d.Read(buf); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Read: %v allocs per call, want 0", n)
	}
}
