package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func decodeMP3(t testing.TB, b []byte, size int64) ([]float32, Format, []string, error) {
	t.Helper()
	d, err := NewDecoder(bytes.NewReader(b), "test.mp3", size)
	if err != nil {
		return nil, Format{}, nil, err
	}
	defer d.Close()
	f := d.Format()
	var out []float32
	buf := make([]float32, f.Channels*1001) // not a multiple of the 1152-sample frame
	for {
		n, err := d.Read(buf)
		out = append(out, buf[:f.Channels*n]...)
		if errors.Is(err, io.EOF) {
			return out, f, d.Warnings(), nil
		}
		if err != nil {
			return out, f, d.Warnings(), err
		}
	}
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// peakAt is the index of the largest |sample| of channel 0 of x, samples
// of channels interleaved.
func peakAt(x []float32, channels int) int {
	best, at := float32(0), -1
	for i := 0; i < len(x); i += channels {
		if v := float32(math.Abs(float64(x[i]))); v > best {
			best, at = v, i/channels
		}
	}
	return at
}

// mp3Decoders runs fn with each MP3 decoder: libmpg123 where it loads
// (else that subtest is skipped, or fails under PRISM_REQUIRE_TOOLS=1) and
// go-mp3.
func mp3Decoders(t *testing.T, fn func(t *testing.T, lib bool)) {
	t.Run("libmpg123", func(t *testing.T) {
		needMPG123(t)
		fn(t, true)
	})
	t.Run("go-mp3", func(t *testing.T) {
		withGoMP3(t)
		fn(t, false)
	})
}

// needMPG123 skips a test when libmpg123 does not load, except under
// PRISM_REQUIRE_TOOLS=1.
func needMPG123(t *testing.T) {
	t.Helper()
	if _, err := mp3Lib(); err != nil {
		if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%v (PRISM_REQUIRE_TOOLS=1; scripts/setup.sh installs libmpg123-0)", err)
		}
		t.Skip(err)
	}
}

// withGoMP3 makes the MP3 decoder use go-mp3 until the test ends.
func withGoMP3(t testing.TB) {
	saved := mp3Lib
	mp3Lib = func() (*mpg123Lib, error) { return nil, errors.New("go-mp3 chosen by the test") }
	t.Cleanup(func() { mp3Lib = saved })
}

// decodeWarnings are warns without go-mp3's 16-bit notice.
func decodeWarnings(warns []string) []string {
	return slices.DeleteFunc(slices.Clone(warns), func(w string) bool { return strings.Contains(w, "decoded to 16 bits by go-mp3") })
}

// TestMP3Timeline: click.mp3 is 0.5 s of silence with an 8-sample click at
// sample 11025 (250 ms), encoded by LAME 3.100 at 64 kb/s (testdata/README.md).
// With the LAME tag's encoder delay, the decoder delay of 529 samples and
// the padding removed, the click is at 250 ms ± 1 ms and the stream has the
// 22050 samples that were encoded, as `lame --decode` gives, for CBR, VBR
// and CRC-protected streams and MPEG-2. Without a tag (lame -t) only the
// decoder delay can be removed: the click comes LAME's 576-sample encoder
// delay late, and the length is `lame --decode`'s.
func TestMP3Timeline(t *testing.T) { mp3Decoders(t, testMP3Timeline) }

func testMP3Timeline(t *testing.T, _ bool) {
	const click, ms = 11025, 44
	for _, c := range []struct {
		file           string
		frames         int64 // Format.Frames
		length, at, ms int   // what `lame --decode` gives: samples, the click's peak; 1 ms
	}{
		{"click.mp3", 22050, 22050, click, ms},
		{"click-vbr.mp3", 22050, 22050, click, ms}, // -V 2
		{"click-crc.mp3", 22050, 22050, click, ms}, // -p: CRC before the Xing frame's side information
		{"click-notag.mp3", -1, 23663, click + 576, ms},
		{"click22-64k.mp3", 11025, 11025, 5512, ms / 2}, // MPEG-2 at 22.05 kHz
	} {
		x, f, warns, err := decodeMP3(t, readFixture(t, c.file), -1)
		if err != nil {
			t.Fatal(err)
		}
		if f.Channels != 1 || f.Frames != c.frames || len(x) != c.length || len(decodeWarnings(warns)) != 0 {
			t.Errorf("%s: %d channels, Frames %d, decoded %d, warnings %q; want 1, %d, %d", c.file, f.Channels, f.Frames, len(x), warns, c.frames, c.length)
		}
		if at := peakAt(x, 1); at < c.at-c.ms || at > c.at+c.ms {
			t.Errorf("%s: click at sample %d, want %d ± %d (1 ms)", c.file, at, c.at, c.ms)
		}
	}
}

// id3v2 is an ID3v2.4 tag of n bytes of frames, with a footer.
func id3v2(n int) []byte {
	size := []byte{byte(n >> 21 & 0x7F), byte(n >> 14 & 0x7F), byte(n >> 7 & 0x7F), byte(n & 0x7F)}
	b := append([]byte("ID3\x04\x00\x10"), size...)
	b = append(b, bytes.Repeat([]byte{'x'}, n)...)
	return append(append(b, "3DI\x04\x00\x10"...), size...)
}

// TestMP3ID3: a tag before the audio is skipped by Prism, and a 10-byte
// header declaring a 256 MB tag (go-mp3 allocated its size) is refused
// without allocating it, whether the file's size is known or not.
func TestMP3ID3(t *testing.T) {
	tone := readFixture(t, "tone.mp3")
	plain, pf, _, err := decodeMP3(t, tone, int64(len(tone)))
	if err != nil {
		t.Fatal(err)
	}
	tagged := append(id3v2(3000), tone...)
	got, f, _, err := decodeMP3(t, tagged, int64(len(tagged)))
	if err != nil {
		t.Fatal(err)
	}
	if f != pf || !slicesEqual(got, plain) {
		t.Errorf("tagged: %+v, %d samples; untagged %+v, %d", f, len(got), pf, len(plain))
	}
	evil := []byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f")
	for _, size := range []int64{int64(len(evil)), -1} {
		grew := allocated(func() {
			_, _, _, err := decodeMP3(t, evil, size)
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(fe.Reason, "ID3v2 tag declares 268435465 bytes") || fe.Offset != 0 {
				t.Errorf("size %d: %v", size, err)
			}
		})
		if grew > 1<<20 {
			t.Errorf("size %d: a 10-byte file allocated %d bytes", size, grew)
		}
	}
	if _, _, _, err := decodeMP3(t, []byte("ID3\x04\x00\x00\x80\x00\x00\x00abc"), -1); !errors.As(err, new(*FormatError)) || !strings.Contains(err.Error(), "invalid ID3v2 header") {
		t.Errorf("size byte with bit 7: %v", err)
	}
}

func slicesEqual(a, b []float32) bool {
	return len(a) == len(b) && bytes.Equal(f32bytes(a), f32bytes(b))
}

func f32bytes(x []float32) []byte {
	b := make([]byte, 0, 4*len(x))
	for _, v := range x {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// TestMP3XingContradictions: tone.mp3's Info frame counts 40 frames and
// 17135 bytes (the file). A count the stream falls short of is refused; a
// stream going on past its count is cut there with a warning; a byte count
// larger than the file leaves the length unknown, with a warning.
func TestMP3XingContradictions(t *testing.T) {
	tone := readFixture(t, "tone.mp3")
	const framesAt, bytesAt = 0x2C, 0x30
	if string(tone[0x24:0x28]) != "Info" || binary.BigEndian.Uint32(tone[framesAt:]) != 40 || binary.BigEndian.Uint32(tone[bytesAt:]) != uint32(len(tone)) {
		t.Fatalf("tone.mp3 has no Info frame where expected")
	}
	patch := func(at int, v uint32) []byte {
		b := bytes.Clone(tone)
		binary.BigEndian.PutUint32(b[at:], v)
		return b
	}
	_, _, _, err := decodeMP3(t, patch(framesAt, 60), int64(len(tone)))
	if fe := (*FormatError)(nil); !errors.As(err, &fe) || !strings.Contains(fe.Reason, "its Xing header declares") {
		t.Errorf("60 frames counted: %v", err)
	}
	x, f, warns, err := decodeMP3(t, patch(framesAt, 20), int64(len(tone)))
	if err != nil || f.Frames < 0 || int64(len(x)/2) != f.Frames || f.Frames > 20*1152 || len(warns) != 1 || !strings.Contains(warns[0], "goes on past") {
		t.Errorf("20 frames counted: %v, Frames %d, decoded %d, warnings %q", err, f.Frames, len(x)/2, warns)
	}
	x, f, warns, err = decodeMP3(t, patch(bytesAt, 1<<30), int64(len(tone)))
	if err != nil || f.Frames != -1 || len(x)/2 < 44100 || len(warns) != 1 || !strings.Contains(warns[0], "but the file holds") {
		t.Errorf("1 GiB counted: %v, Frames %d, decoded %d, warnings %q", err, f.Frames, len(x)/2, warns)
	}
}

// TestSniffFLACFrames: a FLAC stream cut at a frame header (no fLaC marker)
// was taken for MP3 ("MPEG version 2.5 is not supported"); it is now taken
// for what it is, whatever its extension, and decoded from its frame
// headers (TestFLACFramesOnly checks the samples).
func TestSniffFLACFrames(t *testing.T) {
	tone := readFixture(t, "tone.flac")
	i := bytes.Index(tone, []byte{0xFF, 0xF8})
	for _, name := range []string{"x.flac", "x.mp3", "x"} {
		d, err := NewDecoder(bytes.NewReader(tone[i:]), name, -1)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if f := d.Format(); f.Container != "FLAC" || f.SampleRate != 44100 || f.Channels != 2 {
			t.Errorf("%s: format %+v", name, f)
		}
		d.Close()
	}
}

// mp3AllocLimit: go-mp3 allocates per decoded frame (its frame state, about
// 13 KiB, and 4.6 KiB of output), so the bound grows with the input (one
// frame per 24 bytes at worst) but never with what a header declares.
const mp3AllocLimit = 1 << 20

func seedMP3s(t testing.TB) [][]byte {
	tone := readFixture(t, "tone.mp3")
	click := readFixture(t, "click.mp3")
	return [][]byte{tone[:3000], click, readFixture(t, "click-notag.mp3")[:2000], append(id3v2(20), click[:1500]...), readFixture(t, "click22.mp3")[:1200],
		[]byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f")}
}

// FuzzMP3: any bytes give a decoder or a *FormatError, never a panic, and
// allocate in proportion to the input, never to a declared size.
func FuzzMP3(f *testing.F) {
	for _, b := range seedMP3s(f) {
		f.Add(b)
	}
	// libmpg123 is fuzzed too where it loads: it is fed only what it asks
	// for (16 KiB at a time), so its own C memory stays bounded by that and
	// its frame buffers; tags are skipped unread (MPG123_SKIP_ID3V2)
	_, libErr := mp3Lib()
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, lib := range []bool{libErr == nil, false} {
			if !lib {
				withGoMP3(t)
			}
			var container string
			grew := allocated(func() { container = fuzzDecode(t, b, "fuzz.mp3") })
			limit := uint64(mp3AllocLimit)
			if container == "FLAC" { // bytes that are FLAC frames are decoded as FLAC, whatever the name, within FLAC's bound
				limit = flacAllocLimit
			}
			if grew > limit+1024*uint64(len(b)) {
				t.Fatalf("decoding %d bytes (libmpg123: %v) allocated %d bytes", len(b), lib, grew)
			}
			if !lib {
				break
			}
		}
	})
}

// zeros is an endless stream of zero bytes, like /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestMP3NoFrames: go-mp3 searches for a frame header for as long as the
// input lasts; an endless stream with no frame (/dev/zero named x.mp3), or
// one that turns to zeros after its frames, is refused after 1 MiB instead
// of hanging.
func TestMP3NoFrames(t *testing.T) {
	_, err := NewDecoder(zeros{}, "x.mp3", -1)
	if fe := (*FormatError)(nil); !errors.As(err, &fe) || !strings.Contains(fe.Reason, "no MPEG audio frame in 1048576 bytes") {
		t.Errorf("zeros: %v", err)
	}
	d, err := NewDecoder(io.MultiReader(bytes.NewReader(readFixture(t, "click-notag.mp3")), zeros{}), "x.mp3", -1)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, 2*4096)
	frames := 0
	for range 100 {
		n, err := d.Read(buf)
		frames += n
		if err != nil {
			if fe := (*FormatError)(nil); !errors.As(err, &fe) || !strings.Contains(fe.Reason, "no MPEG audio frame") || frames < 22050 {
				t.Errorf("after %d frames: %v", frames, err)
			}
			return
		}
	}
	t.Errorf("no error after %d frames", frames)
}

// TestMP3MisreadFrames: go-mp3 takes an MPEG-2 frame with a padding byte at
// 22.05 kHz and 32 kb/s for 104 bytes instead of 105 and decodes garbage
// (relative RMS difference 1.1 from `lame --decode`). click22.mp3 (no LAME
// tag fits its 104-byte frames) is refused at its first padded frame, at
// offset 104, instead.
func TestMP3MisreadFrames(t *testing.T) {
	withGoMP3(t)
	_, _, _, err := decodeMP3(t, readFixture(t, "click22.mp3"), -1)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(fe.Reason, "MPEG-2 at 22050 Hz, 32 kb/s with a padding byte") || fe.Offset != 104 {
		t.Errorf("err = %v", err)
	}
	for kbps, want := range map[int]bool{8: true, 16: true, 24: true, 32: true, 40: false, 64: false, 80: true, 160: true} {
		idx := slices.Index(mp3Bitrates[0][:], kbps)
		h := []byte{0xFF, 0xF3, byte(idx<<4 | 0<<2 | 1<<1), 0xC4} // MPEG-2, layer III, 22.05 kHz, padded, mono
		if f, ok := parseMPEGHeader(h); !ok || f.misread != want || f.size != 72*kbps*1000/22050+1 {
			t.Errorf("%d kb/s: %+v, misread want %v", kbps, f, want)
		}
	}
}
