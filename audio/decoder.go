// Package audio is Prism's sound input: decoders for WAV and FLAC (written
// here for untrusted input: go-audio/wav allocates by declared sizes and
// misreads float data; mewkiz/flac allocated by metadata sizes, logged per
// frame and decoded self-contradicting frames in silence) and MP3 behind
// one Decoder interface; live Sources (PortAudio capture, the signal
// generator, a file at real-time pace); the lock-free Ring from capture to
// analysis (with gaps: time that had no input); and the Recorder that runs
// a Source into a Ring with a stall watchdog, reopening a failed source and
// writing outages and device overflows into the Ring as gaps of real time.
//
// MP3 is decoded by libmpg123, loaded at run time with purego as OpenCL is
// (no cgo, no build dependency), to float samples exactly as the mpg123
// and ffmpeg decoders give them: go-mp3 rounds to 16 bits, which moved
// levels above −60 dBFS by up to 0.17 dB, read reverb tails 2–3 dB low and
// put a −60 dBFS tone's THD at −41.5 dB. Where libmpg123 is missing (or
// PRISM_MP3_DECODER=go-mp3), go-mp3 decodes, and the decoder's Warnings
// say the output is 16-bit. Either is fed past the ID3v2 tags go-mp3
// would allocate for, and a mono MP3 is one channel.
//
// Rules every decoder keeps:
//   - A regular file is read as far as its size at Open, never further: a
//     file still being written (a recording in progress) is analyzed as it
//     was, so the length Format declared holds for every read.
//   - A float sample that is NaN or ±Inf is read as 0, by Read and by
//     RawPCM's ReadRaw alike (Read also zeroes a 64-bit float too large
//     for float32, which would be ±Inf), so it never turns a result into
//     NaN or into silence; Warnings counts them and gives the first one's
//     time and channel ("3 non-finite samples (NaN or ±Inf; first at
//     1.234 s, channel 2) read as 0"). Finite values, however large, are
//     left as they are.
//   - FLAC frames without the fLaC marker and STREAMINFO are decoded from
//     what their frame headers say, and refused where a header leaves the
//     sample rate or bit depth to the missing STREAMINFO.
//
// It knows nothing of FFTs or the UI. Decoders and sources write into
// buffers the caller owns and keep only fixed-size buffers of their own: no
// allocation is ever sized by what a file declares.
package audio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Format describes a decoded stream.
type Format struct {
	SampleRate int    // Hz
	Channels   int    // ≥ 1
	Bits       int    // bits per sample in the file (0 for MP3)
	Encoding   string // e.g. "signed 16-bit PCM", "32-bit float"
	Container  string // "WAV", "FLAC", "MP3"
	// Frames is the length in frames (samples per channel), or −1 if
	// unknown. When known, Read delivers exactly that many or fails with a
	// *FormatError: it is never a size the file merely claims.
	Frames int64
}

// Decoder streams audio as float32 samples in full-scale units (±1.0).
type Decoder interface {
	Format() Format
	// Read decodes up to len(dst)/Channels frames into dst, interleaved
	// (frame after frame, channel after channel), and returns the number of
	// frames. At the end of the stream it returns 0, io.EOF.
	Read(dst []float32) (frames int, err error)
	// Warnings are problems the decoder worked around (a data chunk cut
	// short, say), for the user to see. Complete after io.EOF.
	Warnings() []string
	Close() error
}

// FormatError is input Prism cannot decode: the file, the byte offset where
// the problem is, and why.
type FormatError struct {
	Name   string
	Offset int64
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: offset %d: %s", e.Name, e.Offset, e.Reason)
}

// ErrUnknownFormat is a file that is neither WAV, FLAC nor MP3.
var ErrUnknownFormat = errors.New("not a WAV, FLAC or MP3 file")

// Open opens a WAV, FLAC or MP3 file, recognised by its first bytes (the
// extension only breaks ties for headerless MP3). Errors about the file's
// contents are *FormatError; the decoder closes the file.
func Open(path string) (Decoder, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &FormatError{Name: path, Reason: "is a directory"}
	}
	size := st.Size()
	var r io.Reader = f
	if st.Mode().IsRegular() {
		// a file still being written (a recording in progress) is read as
		// it was at open: its size then bounds every read, so the length
		// the decoder declared (and an image sized by it) holds
		r = &sizedFile{f: f, size: size}
	} else {
		size = -1 // a FIFO or device: its size says nothing about the stream
	}
	d, err := NewDecoder(r, path, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	return d, nil
}

// NewDecoder sniffs r's format and returns a decoder for it. size is the
// stream's length in bytes, or −1 if unknown. If r is an io.Closer the
// decoder's Close closes it. ID3v2 tags before the audio are skipped
// (streamed through, never read into a buffer of their declared size).
func NewDecoder(r io.Reader, name string, size int64) (Decoder, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	src := readCloser{br, r}
	var start int64 // bytes of ID3v2 tags before the audio
	for {
		head, err := br.Peek(16) // the longest FLAC frame header
		if len(head) == 0 {
			switch {
			case start > 0:
				return nil, &FormatError{Name: name, Offset: start, Reason: "nothing after the ID3v2 tag"}
			case err == nil || errors.Is(err, io.EOF):
				return nil, &FormatError{Name: name, Reason: "empty file"}
			}
			return nil, &FormatError{Name: name, Reason: err.Error()}
		}
		switch sniff(head, name, start) {
		case "ID3":
			n, err := skipID3v2(br, name, start, size)
			if err != nil {
				return nil, err
			}
			start += n
		case "WAV":
			if start > 0 {
				return nil, &FormatError{Name: name, Offset: start, Reason: "WAV data after an ID3v2 tag"}
			}
			return NewWAV(src, name, size)
		case "FLAC":
			return openFLAC(br, src, r, name, start, size)
		case "FLAC frames":
			return newFLACFrames(br, src, name, start)
		case "MP3":
			return newMP3(br, src, name, start, size)
		default:
			return nil, &FormatError{Name: name, Offset: start, Reason: fmt.Sprintf("%v (starts with %q)", ErrUnknownFormat, printable(head[:min(4, len(head))]))}
		}
	}
}

// sniff names the format that head (the first bytes after start bytes of
// tags) begins, or "".
func sniff(head []byte, name string, start int64) string {
	switch {
	case bytes.HasPrefix(head, []byte("ID3")):
		return "ID3"
	case bytes.HasPrefix(head, []byte("RIFF")), bytes.HasPrefix(head, []byte("RF64")), bytes.HasPrefix(head, []byte("BW64")):
		return "WAV"
	case bytes.HasPrefix(head, []byte("fLaC")):
		return "FLAC"
	case isFLACFrame(head):
		return "FLAC frames"
	case len(head) >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0, start > 0, strings.EqualFold(filepath.Ext(name), ".mp3"):
		return "MP3"
	}
	return ""
}

// openFLAC reads the FLAC metadata and, where the stream can be read at any
// offset (a file), checks STREAMINFO's total against the last frame.
func openFLAC(br *bufio.Reader, src io.Closer, r io.Reader, name string, start, size int64) (Decoder, error) {
	d, err := newFLAC(br, src, name, start)
	if err != nil {
		return nil, err
	}
	if ra, ok := r.(io.ReaderAt); ok && size > 0 {
		if err := d.checkLastFrame(ra, size); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// skipID3v2 skips the ID3v2 tag at the start of br (at byte offset at) and
// returns its length. Its declared size is checked against the file's size
// when known and otherwise streamed through.
func skipID3v2(br *bufio.Reader, name string, at, size int64) (int64, error) {
	h, err := br.Peek(10)
	if len(h) < 10 {
		return 0, &FormatError{Name: name, Offset: at, Reason: fmt.Sprintf("ID3v2 header cut short (%d of 10 bytes): %v", len(h), err)}
	}
	if h[3] < 2 || h[3] > 4 || h[4] == 0xFF || (h[6]|h[7]|h[8]|h[9])&0x80 != 0 {
		return 0, &FormatError{Name: name, Offset: at, Reason: fmt.Sprintf("invalid ID3v2 header % x", h)}
	}
	n := 10 + (int64(h[6])<<21 | int64(h[7])<<14 | int64(h[8])<<7 | int64(h[9]))
	if h[3] == 4 && h[5]&0x10 != 0 {
		n += 10 // footer
	}
	if size >= 0 && at+n > size {
		return 0, &FormatError{Name: name, Offset: at, Reason: fmt.Sprintf("ID3v2 tag declares %d bytes, past the end of the file (%d bytes)", n, size)}
	}
	if got, err := br.Discard(int(n)); err != nil {
		return 0, &FormatError{Name: name, Offset: at, Reason: fmt.Sprintf("ID3v2 tag declares %d bytes, the file ends after %d", n, got)}
	}
	return n, nil
}

// isFLACFrame reports whether head starts with a FLAC frame header with a
// valid CRC-8 (a stream cut from a FLAC file, without its metadata). MPEG
// audio never starts so: 0xFFF8 and 0xFFF9 say layer "reserved".
func isFLACFrame(head []byte) bool {
	if len(head) < 2 || head[0] != 0xFF || head[1]&0xFE != 0xF8 {
		return false
	}
	d := &flacDecoder{in: flacBits{r: bufio.NewReader(bytes.NewReader(head))}, info: flacInfo{maxBlock: 1 << 16}}
	_, err := d.readFrameHeader(0)
	return err == nil
}

// readCloser reads through a buffered reader and closes the original.
type readCloser struct {
	io.Reader
	orig io.Reader
}

func (rc readCloser) Close() error {
	if c, ok := rc.orig.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// recoverCorrupt turns a panic inside a third-party decoder (go-mp3 indexes
// past its tables on some corrupt frames; found by fuzzing) into a
// FormatError, so bad input is an error, never a crash.
func recoverCorrupt(name, format string, err *error) {
	if r := recover(); r != nil {
		*err = &FormatError{Name: name, Reason: fmt.Sprintf("%s: corrupt stream (decoder failed: %v)", format, r)}
	}
}

// sizedFile reads a file as far as the size it had at open, never past it.
type sizedFile struct {
	f    *os.File
	size int64
	off  int64
}

func (s *sizedFile) Read(p []byte) (int, error) {
	if s.off >= s.size {
		return 0, io.EOF
	}
	n, err := s.f.Read(p[:min(int64(len(p)), s.size-s.off)])
	s.off += int64(n)
	return n, err
}

func (s *sizedFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.size {
		return 0, io.EOF
	}
	n, err := s.f.ReadAt(p[:min(int64(len(p)), s.size-off)], off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

func (s *sizedFile) Close() error { return s.f.Close() }
