package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
)

// wavSpec describes a WAV file written byte by byte in the tests.
type wavSpec struct {
	riff       string // "RIFF", "RF64", "BW64"
	tag        int    // format tag
	channels   int
	rate       int
	bits       int
	blockAlign int // 0: channels*bits/8
	extensible bool
	subTag     int // extensible sub-format
	guidTail   []byte
	fmtSize    int    // 0: natural
	before     []byte // chunks before fmt
	between    []byte // chunks between fmt and data
	dataSize   int64  // −1: actual length; else this value is written
	data       []byte
	cut        int // bytes removed from the end of the file
}

func chunk(id string, body []byte) []byte {
	b := append([]byte(id), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(body)))
	b = append(b, body...)
	if len(body)%2 == 1 {
		b = append(b, 0) // pad byte
	}
	return b
}

func (s wavSpec) bytes() []byte {
	if s.riff == "" {
		s.riff = "RIFF"
	}
	ba := s.blockAlign
	if ba == 0 {
		ba = s.channels * s.bits / 8
	}
	var f []byte
	le16 := func(v int) { f = binary.LittleEndian.AppendUint16(f, uint16(v)) }
	le32 := func(v int) { f = binary.LittleEndian.AppendUint32(f, uint32(v)) }
	tag := s.tag
	if s.extensible {
		tag = waveExtensible
	}
	le16(tag)
	le16(s.channels)
	le32(s.rate)
	le32(s.rate * ba)
	le16(ba)
	le16(s.bits)
	if s.extensible {
		le16(22)
		le16(s.bits)
		le32(0)
		le16(s.subTag)
		tail := s.guidTail
		if tail == nil {
			tail = guidTail
		}
		f = append(f, tail...)
	}
	if s.fmtSize > 0 {
		f = f[:min(len(f), s.fmtSize)]
		for len(f) < s.fmtSize {
			f = append(f, 0)
		}
	}
	body := []byte("WAVE")
	if s.riff != "RIFF" {
		ds := make([]byte, 28)
		binary.LittleEndian.PutUint64(ds[8:], uint64(len(s.data)))
		body = append(body, chunk("ds64", ds)...)
	}
	body = append(body, s.before...)
	body = append(body, chunk("fmt ", f)...)
	body = append(body, s.between...)
	data := chunk("data", s.data)
	switch {
	case s.dataSize >= 0:
		binary.LittleEndian.PutUint32(data[4:], uint32(s.dataSize))
	case s.riff != "RIFF":
		binary.LittleEndian.PutUint32(data[4:], 0xFFFFFFFF)
	}
	body = append(body, data...)
	out := append([]byte(s.riff), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(body)))
	if s.riff != "RIFF" {
		binary.LittleEndian.PutUint32(out[4:], 0xFFFFFFFF)
	}
	out = append(out, body...)
	return out[:len(out)-s.cut]
}

func decodeAll(t testing.TB, b []byte) ([]float32, Format, []string, error) {
	d, err := NewDecoder(bytes.NewReader(b), "test.wav", int64(len(b)))
	if err != nil {
		return nil, Format{}, nil, err
	}
	defer d.Close()
	f := d.Format()
	var out []float32
	buf := make([]float32, 7*f.Channels) // odd block size: frames split across reads
	for {
		n, err := d.Read(buf)
		out = append(out, buf[:n*f.Channels]...)
		if errors.Is(err, io.EOF) {
			return out, f, d.Warnings(), nil
		}
		if err != nil {
			return out, f, d.Warnings(), err
		}
	}
}

// samples returns interleaved test values and their encoding in bits.
func encode(bits int, float bool, vals []float64) []byte {
	var b []byte
	for _, v := range vals {
		switch {
		case float && bits == 32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
		case float:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		case bits == 8:
			b = append(b, byte(int(math.Round(v*128))+128))
		case bits == 16:
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(math.Round(v*32768))))
		case bits == 24:
			x := int32(math.Round(v * (1 << 23)))
			b = append(b, byte(x), byte(x>>8), byte(x>>16))
		default:
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(math.Round(v*(1<<31)))))
		}
	}
	return b
}

// testValues are full-scale extremes and ordinary values, all exactly
// representable in every format (multiples of 1/128 within [−1, 1)).
func testValues(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((i*37)%256-128) / 128
	}
	return v
}

func TestWAVVariants(t *testing.T) {
	odd := chunk("LIST", []byte("INFOabc")) // 7 bytes: pad byte follows
	junk := chunk("junk", make([]byte, 3))
	fact := chunk("fact", []byte{1, 2, 3, 4})
	for _, c := range []struct {
		name string
		spec wavSpec
	}{
		{"u8", wavSpec{tag: 1, channels: 1, bits: 8}},
		{"s16 stereo", wavSpec{tag: 1, channels: 2, bits: 16}},
		{"s24", wavSpec{tag: 1, channels: 2, bits: 24}},
		{"s32", wavSpec{tag: 1, channels: 1, bits: 32}},
		{"f32", wavSpec{tag: 3, channels: 2, bits: 32}},
		{"f64", wavSpec{tag: 3, channels: 1, bits: 64}},
		{"extensible pcm24 6ch", wavSpec{extensible: true, subTag: 1, channels: 6, bits: 24}},
		{"extensible float 32ch", wavSpec{extensible: true, subTag: 3, channels: 32, bits: 32}},
		{"extensible s16", wavSpec{extensible: true, subTag: 1, channels: 2, bits: 16}},
		{"RF64", wavSpec{riff: "RF64", tag: 1, channels: 2, bits: 16}},
		{"BW64", wavSpec{riff: "BW64", tag: 3, channels: 1, bits: 32}},
		{"odd chunks anywhere", wavSpec{tag: 1, channels: 2, bits: 16, before: append(odd, junk...), between: append(fact, odd...)}},
		{"fmt with extra bytes", wavSpec{tag: 1, channels: 1, bits: 16, fmtSize: 18}},
		{"data size 0xFFFFFFFF", wavSpec{tag: 1, channels: 2, bits: 16, dataSize: 0xFFFFFFFF}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.spec
			s.rate = 48000
			if s.dataSize == 0 {
				s.dataSize = -1
			}
			float := s.tag == 3 || s.subTag == 3
			vals := testValues(s.channels * 101)
			s.data = encode(s.bits, float, vals)
			got, f, warns, err := decodeAll(t, s.bytes())
			if err != nil {
				t.Fatal(err)
			}
			if f.Channels != s.channels || f.SampleRate != 48000 || f.Bits != s.bits {
				t.Errorf("format %+v", f)
			}
			if f.Frames != 101 && s.dataSize != 0xFFFFFFFF {
				t.Errorf("Frames = %d, want 101", f.Frames)
			}
			if len(warns) != 0 {
				t.Errorf("warnings %v", warns)
			}
			if len(got) != len(vals) {
				t.Fatalf("decoded %d samples, want %d", len(got), len(vals))
			}
			for i, v := range vals {
				if got[i] != float32(v) {
					t.Fatalf("sample %d = %v, want %v", i, got[i], v)
				}
			}
		})
	}
}

// TestWAVFullScale checks the scaling rules at the extremes: int/2^(bits−1),
// u8 as (v−128)/128, float as-is (above full scale stays above).
func TestWAVFullScale(t *testing.T) {
	for _, c := range []struct {
		bits  int
		tag   int
		raw   []byte
		wants []float32
	}{
		{8, 1, []byte{0, 255, 128}, []float32{-1, 127.0 / 128, 0}},
		{16, 1, []byte{0x00, 0x80, 0xff, 0x7f}, []float32{-1, 32767.0 / 32768}},
		{24, 1, []byte{0, 0, 0x80, 0xff, 0xff, 0x7f}, []float32{-1, float32(8388607.0 / 8388608)}},
		{32, 1, []byte{0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f}, []float32{-1, float32(2147483647.0 / 2147483648)}},
		{32, 3, binary.LittleEndian.AppendUint32(nil, math.Float32bits(2.5)), []float32{2.5}},
	} {
		s := wavSpec{tag: c.tag, channels: 1, bits: c.bits, rate: 8000, dataSize: -1, data: c.raw}
		got, _, _, err := decodeAll(t, s.bytes())
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.wants {
			if got[i] != w {
				t.Errorf("%d-bit tag %d sample %d = %v, want %v", c.bits, c.tag, i, got[i], w)
			}
		}
	}
}

func TestWAVShortData(t *testing.T) {
	s := wavSpec{tag: 1, channels: 2, bits: 16, rate: 44100, dataSize: -1, data: encode(16, false, testValues(200)), cut: 41}
	got, f, warns, err := decodeAll(t, s.bytes())
	if err != nil {
		t.Fatal(err)
	}
	// 400 bytes declared, 359 present: 89 whole frames
	if len(got) != 2*89 || f.Frames != 89 {
		t.Errorf("decoded %d samples, Frames %d; want %d, 89", len(got), f.Frames, 2*89)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "declares 400 bytes") {
		t.Errorf("warnings %q", warns)
	}
	// without a known file size the cut is found while reading
	d, err := NewDecoder(bytes.NewReader(s.bytes()), "x.wav", -1)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, 1000)
	n, _ := d.Read(buf)
	_, err = d.Read(buf)
	if n != 89 || !errors.Is(err, io.EOF) || len(d.Warnings()) != 1 {
		t.Errorf("streaming: %d frames, %v, warnings %q", n, err, d.Warnings())
	}
}

func TestWAVRejects(t *testing.T) {
	good := wavSpec{tag: 1, channels: 2, bits: 16, rate: 48000, dataSize: -1, data: make([]byte, 64)}
	mod := func(f func(*wavSpec)) []byte { s := good; f(&s); return s.bytes() }
	goodBytes := good.bytes()
	for _, c := range []struct {
		name, reason string
		file         []byte
		offset       int64
	}{
		{"not RIFF", "not a WAV", append([]byte("RIFX"), goodBytes[4:]...), 0},
		{"not WAVE", "not a WAVE file", append(append([]byte{}, goodBytes[:8]...), append([]byte("AVI "), goodBytes[12:]...)...), 8},
		{"no fmt", "no fmt chunk", []byte("RIFF\x04\x00\x00\x00WAVE"), 12},
		{"data before fmt", "data chunk before any fmt", append([]byte("RIFF\x10\x00\x00\x00WAVE"), chunk("data", make([]byte, 4))...), 12},
		{"fmt too small", "fmt chunk too small", mod(func(s *wavSpec) { s.fmtSize = 14 }), 12},
		{"0 channels", "0 channels", mod(func(s *wavSpec) { s.channels = 0; s.blockAlign = 2 }), 12},
		{"0 Hz", "0 Hz", mod(func(s *wavSpec) { s.rate = 0 }), 12},
		{"12-bit", "unsupported PCM bit depth 12", mod(func(s *wavSpec) { s.bits = 12; s.blockAlign = 4 }), 12},
		{"float 16", "unsupported float bit depth 16", mod(func(s *wavSpec) { s.tag = 3 }), 12},
		{"ADPCM", "0x0002 (MS ADPCM)", mod(func(s *wavSpec) { s.tag = 2 }), 12},
		{"block align", "block align 3", mod(func(s *wavSpec) { s.blockAlign = 3 }), 12},
		{"unknown GUID", "unknown sub-format GUID", mod(func(s *wavSpec) {
			s.extensible, s.subTag, s.guidTail = true, 1, bytes.Repeat([]byte{7}, 14)
		}), 44},
		{"chunk past end", "past the end of the file", mod(func(s *wavSpec) {
			s.before = []byte("LIST\xff\xff\x00\x00abc")
		}), 12},
		{"truncated RIFF header", "truncated RIFF header", goodBytes[:7], 0},
		{"truncated chunk header", "truncated chunk header", goodBytes[:16], 12},
		{"truncated fmt", "truncated fmt chunk", goodBytes[:30], 20},
		{"empty", "empty file", nil, 0},
		{"no data chunk", "no data chunk", goodBytes[:36], 36},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, _, err := decodeAll(t, c.file)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FormatError", err)
			}
			if !strings.Contains(fe.Reason, c.reason) || fe.Offset != c.offset || fe.Name != "test.wav" {
				t.Errorf("got %q (offset %d), want reason containing %q at offset %d", err, fe.Offset, c.reason, c.offset)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message is not one line: %q", err)
			}
		})
	}
}

// seedWAVs are the fuzz corpus: every accepted variant.
func seedWAVs() [][]byte {
	var out [][]byte
	for _, s := range []wavSpec{
		{tag: 1, channels: 1, bits: 8}, {tag: 1, channels: 2, bits: 16}, {tag: 1, channels: 2, bits: 24},
		{tag: 3, channels: 1, bits: 32}, {tag: 3, channels: 1, bits: 64}, {extensible: true, subTag: 1, channels: 4, bits: 24},
		{riff: "RF64", tag: 1, channels: 2, bits: 16}, {tag: 1, channels: 1, bits: 16, before: chunk("LIST", []byte("abc"))},
	} {
		s.rate, s.dataSize, s.data = 8000, -1, encode(s.bits, s.tag == 3, testValues(s.channels*16))
		out = append(out, s.bytes())
	}
	return out
}

// FuzzWAV feeds arbitrary bytes to the decoder: it must return a decoder or
// a *FormatError, never panic, and never allocate far beyond the input's
// size whatever the header declares (the memory bound is checked per input).
func FuzzWAV(f *testing.F) {
	for _, b := range seedWAVs() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d, err := NewDecoder(bytes.NewReader(b), "fuzz.wav", int64(len(b)))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
		} else {
			buf := make([]float32, 4096)
			for range 1 << 16 {
				if _, err := d.Read(buf); err != nil {
					break
				}
			}
			d.Close()
		}
		runtime.ReadMemStats(&after)
		// fixed buffers (two 64 KiB readers, 64 KiB raw, 16 KiB samples)
		// plus a little per input byte: never by a declared size
		const limit = 1 << 20
		if grew := after.TotalAlloc - before.TotalAlloc; grew > limit+8*uint64(len(b)) {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(b), grew)
		}
	})
}

// TestWAVHugeRF64 is an RF64 file whose ds64 chunk declares a data size of
// 2^63−1 or 2^64−1 bytes: the size check must not overflow (it once gave an
// empty, endless stream); the data present is decoded with a warning and the
// length is what the file holds.
func TestWAVHugeRF64(t *testing.T) {
	for _, declared := range []uint64{math.MaxInt64, math.MaxUint64, math.MaxInt64 - 40} {
		s := wavSpec{riff: "RF64", tag: 1, channels: 2, bits: 16, rate: 8000, dataSize: -1}
		vals := testValues(2 * 101)
		s.data = encode(16, false, vals)
		b := s.bytes()
		if string(b[12:16]) != "ds64" {
			t.Fatalf("no ds64 chunk at 12: %q", b[12:16])
		}
		binary.LittleEndian.PutUint64(b[28:], declared) // ds64 body: RIFF size, then data size
		got, f, warns, err := decodeAll(t, b)
		if err != nil {
			t.Fatalf("%#x: %v", declared, err)
		}
		if f.Frames != 101 || len(got) != len(vals) {
			t.Errorf("%#x: Frames %d, decoded %d samples; want 101, %d", declared, f.Frames, len(got), len(vals))
		}
		if len(warns) != 1 || !strings.Contains(warns[0], "but the file holds 404") {
			t.Errorf("%#x: warnings %q", declared, warns)
		}
		// streamed with no known size: the length is not declared at all
		d, err := NewDecoder(bytes.NewReader(b), "x.wav", -1)
		if err != nil {
			t.Fatal(err)
		}
		if f := d.Format(); f.Frames != -1 {
			t.Errorf("%#x, size unknown: Frames %d, want −1", declared, f.Frames)
		}
	}
}
