package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/prismaudio/prism/audio/internal/pcm"
)

// WAV format tags.
const (
	wavePCM        = 0x0001
	waveFloat      = 0x0003
	waveExtensible = 0xFFFE
)

// Extensible sub-format GUIDs share this tail after their 2-byte tag.
var guidTail = []byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

// maxChannels bounds what a header may declare; larger values are treated
// as corrupt rather than allocated for.
const maxChannels = 1024

// wavDecoder streams a WAV (RIFF, RF64 or BW64) file's data chunk in fixed
// blocks. It never allocates by a size the file declares: the header walk
// reads into a small fixed buffer and skips chunks with bounded copies.
type wavDecoder struct {
	name     string
	r        *bufio.Reader
	closer   io.Closer
	format   Format
	tag      int // wavePCM or waveFloat after resolving extensible
	bytesPer int // bytes per sample (container size)
	left     int64
	toEOF    bool // data size unknown or larger than the file: read to EOF
	declared int64
	offset   int64 // bytes consumed, for error messages
	raw      []byte
	warnings []string
	frame    int64     // frames delivered (Read or ReadRaw)
	bad      nonFinite // float samples that were NaN or ±Inf, read as 0
}

// NewWAV reads a WAV header from r and returns a decoder positioned at the
// first sample. name is used in messages; size is the file's size in bytes,
// or -1 if unknown (it only decides whether a data chunk is cut short).
// Errors are *FormatError.
func NewWAV(r io.Reader, name string, size int64) (Decoder, error) {
	d := &wavDecoder{name: name, r: bufio.NewReaderSize(r, 64<<10)}
	if c, ok := r.(io.Closer); ok {
		d.closer = c
	}
	if err := d.readHeader(size); err != nil {
		return nil, err
	}
	d.raw = make([]byte, 0, 64<<10) // grows with the data read, to maxRaw
	return d, nil
}

func (d *wavDecoder) errf(off int64, format string, args ...any) error {
	return &FormatError{Name: d.name, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// readFull reads exactly len(b) bytes, turning a short read into a
// "truncated" FormatError that says what was being read.
func (d *wavDecoder) readFull(b []byte, what string) error {
	n, err := io.ReadFull(d.r, b)
	d.offset += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return d.errf(d.offset-int64(n), "truncated %s: %d of %d bytes", what, n, len(b))
		}
		return d.errf(d.offset, "read %s: %v", what, err)
	}
	return nil
}

func (d *wavDecoder) skip(n int64, what string, at int64) error {
	got, err := io.CopyN(io.Discard, d.r, n)
	d.offset += got
	if err != nil {
		if errors.Is(err, io.EOF) {
			return d.errf(at, "%s declares %d bytes, past the end of the file", what, n)
		}
		return d.errf(d.offset, "read %s: %v", what, err)
	}
	return nil
}

func (d *wavDecoder) readHeader(size int64) error {
	var hdr [12]byte
	if err := d.readFull(hdr[:], "RIFF header"); err != nil {
		return err
	}
	riff := string(hdr[0:4])
	if riff != "RIFF" && riff != "RF64" && riff != "BW64" {
		return d.errf(0, "not a WAV file (starts with %q, want RIFF, RF64 or BW64)", printable(hdr[0:4]))
	}
	if string(hdr[8:12]) != "WAVE" {
		return d.errf(8, "not a WAVE file (form type %q)", printable(hdr[8:12]))
	}
	rf64 := riff != "RIFF"
	var ds64Data int64 = -1
	haveFmt := false
	for {
		at := d.offset
		var ch [8]byte
		if err := d.readFull(ch[:], "chunk header"); err != nil {
			if fe := (*FormatError)(nil); errors.As(err, &fe) && d.offset == at {
				if haveFmt {
					return d.errf(at, "no data chunk")
				}
				return d.errf(at, "no fmt chunk")
			}
			return err
		}
		id := string(ch[0:4])
		csize := int64(binary.LittleEndian.Uint32(ch[4:8]))
		pad := csize & 1
		switch id {
		case "ds64":
			if !rf64 {
				return d.errf(at, "ds64 chunk in a plain RIFF file")
			}
			var err error
			if ds64Data, err = d.readDS64(at, csize, pad); err != nil {
				return err
			}
		case "fmt ":
			if haveFmt {
				return d.errf(at, "second fmt chunk")
			}
			if err := d.readFmt(at, csize, pad); err != nil {
				return err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return d.errf(at, "data chunk before any fmt chunk")
			}
			d.startData(at, csize, size, rf64, ds64Data)
			return nil
		default:
			// LIST, bext, fact, junk, cue, … : skipped, wherever they are.
			if err := d.skip(csize+pad, fmt.Sprintf("%q chunk", printable(ch[0:4])), at); err != nil {
				return err
			}
		}
	}
}

// readDS64 reads an RF64 file's ds64 chunk at offset at and returns the
// data chunk's 64-bit size.
func (d *wavDecoder) readDS64(at, csize, pad int64) (int64, error) {
	if csize < 24 {
		return 0, d.errf(at, "ds64 chunk too small (%d bytes, need 24)", csize)
	}
	var b [24]byte
	if err := d.readFull(b[:], "ds64 chunk"); err != nil {
		return 0, err
	}
	// a size of 2^63 or more cannot be a file's: keep it as the largest
	// int64, which every size check then refuses
	size := int64(min(binary.LittleEndian.Uint64(b[8:16]), math.MaxInt64))
	return size, d.skip(csize-24+pad, "ds64 chunk", at)
}

// readFmt reads and parses the fmt chunk at offset at.
func (d *wavDecoder) readFmt(at, csize, pad int64) error {
	if csize < 16 {
		return d.errf(at, "fmt chunk too small (%d bytes, need 16)", csize)
	}
	var buf [40]byte
	n := min(csize, int64(len(buf)))
	if err := d.readFull(buf[:n], "fmt chunk"); err != nil {
		return err
	}
	if err := d.parseFmt(buf[:n], at); err != nil {
		return err
	}
	return d.skip(csize-n+pad, "fmt chunk", at)
}

// startData sets up reading the data chunk at offset at, of csize bytes
// (or ds64Data's in an RF64 file) in a file of size bytes (−1: unknown):
// a chunk the file cuts short is read to the end, with a warning, and the
// length is only declared when the file's size confirms it.
func (d *wavDecoder) startData(at, csize, size int64, rf64 bool, ds64Data int64) {
	d.declared = csize
	if rf64 && csize == 0xFFFFFFFF && ds64Data >= 0 {
		d.declared = ds64Data
	}
	d.left = d.declared
	d.toEOF = csize == 0xFFFFFFFF && !(rf64 && ds64Data >= 0)
	// d.declared may be up to 2^63−1: compare without adding
	if size >= 0 && d.declared > size-d.offset {
		if !d.toEOF {
			d.warnings = append(d.warnings, fmt.Sprintf("%s: data chunk at offset %d declares %d bytes but the file holds %d: analyzing what is there",
				d.name, at, d.declared, size-d.offset))
		}
		d.toEOF = true
	}
	frameBytes := int64(d.format.Channels * d.bytesPer)
	switch {
	case size < 0:
	case !d.toEOF:
		d.format.Frames = d.left / frameBytes
	default:
		d.format.Frames = (size - d.offset) / frameBytes
	}
}

func (d *wavDecoder) parseFmt(b []byte, at int64) error {
	tag := int(binary.LittleEndian.Uint16(b[0:2]))
	channels := int(binary.LittleEndian.Uint16(b[2:4]))
	rate := int64(binary.LittleEndian.Uint32(b[4:8]))
	blockAlign := int(binary.LittleEndian.Uint16(b[12:14]))
	bits := int(binary.LittleEndian.Uint16(b[14:16]))
	switch {
	case channels == 0:
		return d.errf(at, "fmt declares 0 channels")
	case channels > maxChannels:
		return d.errf(at, "fmt declares %d channels (at most %d supported)", channels, maxChannels)
	case rate == 0:
		return d.errf(at, "fmt declares a sample rate of 0 Hz")
	case rate > 10_000_000:
		return d.errf(at, "fmt declares a sample rate of %d Hz", rate)
	}
	encoding := "PCM"
	if tag == waveExtensible {
		if len(b) < 40 {
			return d.errf(at, "extensible fmt chunk too small (%d bytes, need 40)", len(b))
		}
		guid := b[24:40]
		sub := int(binary.LittleEndian.Uint16(guid[0:2]))
		if !bytes.Equal(guid[2:], guidTail) || (sub != wavePCM && sub != waveFloat) {
			return d.errf(at+8+24, "extensible fmt has unknown sub-format GUID %x", guid)
		}
		tag = sub
		encoding = "extensible "
	}
	switch tag {
	case wavePCM:
		if bits != 8 && bits != 16 && bits != 24 && bits != 32 {
			return d.errf(at, "unsupported PCM bit depth %d (want 8, 16, 24 or 32)", bits)
		}
		encoding += fmt.Sprintf("%d-bit", bits)
		if bits == 8 {
			encoding = "unsigned 8-bit PCM"
		} else {
			encoding = "signed " + encoding
		}
	case waveFloat:
		if bits != 32 && bits != 64 {
			return d.errf(at, "unsupported float bit depth %d (want 32 or 64)", bits)
		}
		encoding = fmt.Sprintf("%d-bit float", bits)
	default:
		return d.errf(at, "unsupported format tag 0x%04x (%s): only PCM, IEEE float and extensible are supported", tag, tagName(tag))
	}
	if blockAlign != channels*bits/8 {
		return d.errf(at, "block align %d does not match %d channels × %d bits", blockAlign, channels, bits)
	}
	d.tag = tag
	d.bytesPer = bits / 8
	d.format = Format{SampleRate: int(rate), Channels: channels, Bits: bits, Encoding: encoding, Frames: -1, Container: "WAV"}
	return nil
}

func tagName(tag int) string {
	switch tag {
	case 0x0002:
		return "MS ADPCM"
	case 0x0006:
		return "A-law"
	case 0x0007:
		return "µ-law"
	case 0x0011:
		return "IMA ADPCM"
	case 0x0055:
		return "MP3"
	}
	return "unknown"
}

func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '?'
		}
		out[i] = c
	}
	return string(out)
}

func (d *wavDecoder) Format() Format { return d.format }

func (d *wavDecoder) Warnings() []string { return d.bad.appendWarning(d.warnings, d.name, d.format) }

// Read decodes up to len(dst)/Channels whole frames into dst, interleaved.
func (d *wavDecoder) Read(dst []float32) (int, error) {
	frameBytes := d.format.Channels * d.bytesPer
	frames := len(dst) / d.format.Channels
	if frames == 0 {
		return 0, nil
	}
	want := d.wanted(frames)
	if want == 0 {
		return 0, io.EOF
	}
	if want > int64(cap(d.raw)) && cap(d.raw) < maxRaw && d.raw != nil && len(d.raw) == cap(d.raw) {
		// the last read filled the buffer: double it (bounded by maxRaw
		// and by data actually present, never by a declared size)
		d.raw = make([]byte, 0, min(2*cap(d.raw), maxRaw))
	}
	want = min(want, int64(cap(d.raw))/int64(frameBytes)*int64(frameBytes))
	raw := d.raw[:want]
	n, err := d.fill(raw)
	d.raw = raw[:n]
	if err != nil || n == 0 {
		return 0, err
	}
	d.convert(dst[:n/d.bytesPer], raw[:n])
	if d.tag == waveFloat {
		d.bad.scan(dst[:n/d.bytesPer], d.frame, d.format.Channels)
	}
	d.frame += int64(n / frameBytes)
	return n / frameBytes, nil
}

// wanted is the bytes of up to frames whole frames the data chunk still
// holds (all of them when it is read to its end).
func (d *wavDecoder) wanted(frames int) int64 {
	frameBytes := d.format.Channels * d.bytesPer
	want := int64(frames * frameBytes)
	if !d.toEOF {
		want = min(want, d.left/int64(frameBytes)*int64(frameBytes))
	}
	return want
}

// fill reads whole frames of the data chunk into buf and returns the
// bytes read (a multiple of a frame; 0 and io.EOF at the end). A chunk cut
// short is a warning, not an error.
func (d *wavDecoder) fill(buf []byte) (int, error) {
	frameBytes := d.format.Channels * d.bytesPer
	n, err := io.ReadFull(d.r, buf)
	d.offset += int64(n)
	n -= n % frameBytes
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, d.errf(d.offset, "read data: %v", err)
	}
	d.left -= int64(n)
	if err != nil && !d.toEOF && d.left > 0 {
		d.warnings = append(d.warnings, fmt.Sprintf("%s: data chunk cut short: %d of %d bytes missing: analyzing what is there", d.name, d.left, d.declared))
		d.toEOF, d.left = true, 0
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// RawFormat says how the data chunk stores samples (RawPCM). Float samples
// that are NaN or ±Inf come out of ReadRaw as +0, as from Read.
func (d *wavDecoder) RawFormat() RawFormat {
	return RawFormat{BytesPerSample: d.bytesPer, Float: d.tag == waveFloat}
}

// ReadRaw reads up to len(dst)/(Channels·BytesPerSample) whole frames of
// the data chunk into dst undecoded (RawPCM).
func (d *wavDecoder) ReadRaw(dst []byte) (int, error) {
	frameBytes := d.format.Channels * d.bytesPer
	want := d.wanted(len(dst) / frameBytes)
	if want == 0 {
		return 0, io.EOF
	}
	n, err := d.fill(dst[:want])
	if d.tag == waveFloat {
		d.bad.scanRaw(dst[:n], d.bytesPer, d.frame, d.format.Channels)
	}
	d.frame += int64(n / frameBytes)
	return n / frameBytes, err
}

// maxRaw bounds the read buffer: large blocks let conversion run on every
// core; the buffer only grows while reads keep filling it.
const maxRaw = 4 << 20

// convert turns little-endian samples into float32 full-scale units:
// int/2^(bits−1), u8 as (v−128)/128, float as it is.
func (d *wavDecoder) convert(dst []float32, raw []byte) {
	ParallelFor(len(dst), func(lo, hi int) { d.convertRange(dst[lo:hi], raw[lo*d.bytesPer:hi*d.bytesPer]) })
}

func (d *wavDecoder) convertRange(dst []float32, raw []byte) {
	switch {
	case d.tag == waveFloat && d.bytesPer == 4:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case d.tag == waveFloat:
		for i := range dst {
			dst[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
		}
	case d.bytesPer == 1:
		for i := range dst {
			dst[i] = (float32(raw[i]) - 128) / 128
		}
	case d.bytesPer == 2:
		pcm.Int16(dst, raw)
	case d.bytesPer == 3:
		for i := range dst {
			b := raw[3*i:]
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			dst[i] = float32(v) / (1 << 23)
		}
	default:
		for i := range dst {
			dst[i] = float32(float64(int32(binary.LittleEndian.Uint32(raw[4*i:]))) / (1 << 31))
		}
	}
}

func (d *wavDecoder) Close() error {
	if d.closer != nil {
		err := d.closer.Close()
		d.closer = nil
		return err
	}
	return nil
}
