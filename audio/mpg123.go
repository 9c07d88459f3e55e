package audio

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// libmpg123 decodes MP3 to float exactly, the reference decoder's own way
// (mpg123, and ffmpeg's decoder, agree with it to float rounding); go-mp3,
// the fallback, rounds every sample to 16 bits. It is loaded at run time,
// as OpenCL is (gpufft/internal/cl), so Prism builds and runs without it.

// libmpg123 constants (mpg123.h, fmt123.h; stable since API version 41).
const (
	mpg123OK        = 0
	mpg123Err       = -1
	mpg123NeedMore  = -10
	mpg123NewFormat = -11
	mpg123Done      = -12

	mpg123AddFlags    = 2  // MPG123_ADD_FLAGS
	mpg123RemoveFlags = 13 // MPG123_REMOVE_FLAGS
	mpg123ResyncLimit = 14 // MPG123_RESYNC_LIMIT

	mpg123Quiet           = 0x20   // no messages on stderr
	mpg123Gapless         = 0x40   // Prism trims delay and padding itself, as for go-mp3
	mpg123SkipID3v2       = 0x2000 // skip tags unparsed: never allocate by their declared size
	mpg123IgnoreInfoFrame = 0x4000 // an Info frame Prism did not take off decodes as go-mp3 decodes it

	mpg123Mono, mpg123Stereo = 1, 2
	mpg123EncFloat32         = 0x200
)

// mpg123Rates are the sample rates of MPEG 1, 2 and 2.5 audio.
var mpg123Rates = [...]int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// mpg123Lib is libmpg123's entry points.
type mpg123Lib struct {
	init, new, formatNone, format, openFeed uintptr
	feed, read, getFormat, delete           uintptr
	param                                   func(h uintptr, key int32, value int64, fvalue float64) int32
	plainStrerror                           func(code int32) string
}

// mpg123Names are the names libmpg123 is looked for under.
var mpg123Names = []string{"libmpg123.so.0", "libmpg123.so", "libmpg123.0.dylib", "libmpg123-0.dll"}

// loadMPG123 opens libmpg123 once; the error says why it is not used.
// PRISM_MP3_DECODER=go-mp3 skips it (to compare the two decoders).
var loadMPG123 = sync.OnceValues(func() (*mpg123Lib, error) {
	if envGoMP3 {
		return nil, errors.New("PRISM_MP3_DECODER=go-mp3")
	}
	var h uintptr
	var err error
	for _, name := range mpg123Names {
		if h, err = purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL); err == nil {
			break
		}
	}
	if h == 0 {
		return nil, errors.New("libmpg123 not found")
	}
	l := &mpg123Lib{}
	for _, s := range []struct {
		dst  *uintptr
		name string
	}{
		{&l.init, "mpg123_init"}, {&l.new, "mpg123_new"}, {&l.formatNone, "mpg123_format_none"},
		{&l.format, "mpg123_format"}, {&l.openFeed, "mpg123_open_feed"}, {&l.feed, "mpg123_feed"},
		{&l.read, "mpg123_read"}, {&l.getFormat, "mpg123_getformat"}, {&l.delete, "mpg123_delete"},
		{new(uintptr), "mpg123_param"}, {new(uintptr), "mpg123_plain_strerror"}, // registered below
	} {
		p, err := purego.Dlsym(h, s.name)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("libmpg123: missing entry point %s", s.name)
		}
		*s.dst = p
	}
	// mpg123_param passes a double, which SyscallN cannot; the error
	// text comes back as a Go string
	purego.RegisterLibFunc(&l.param, h, "mpg123_param")
	purego.RegisterLibFunc(&l.plainStrerror, h, "mpg123_plain_strerror")
	if r, _, _ := purego.SyscallN(l.init); int32(r) != mpg123OK {
		return nil, fmt.Errorf("libmpg123: mpg123_init: %s", l.strerror(int32(r)))
	}
	return l, nil
})

func (l *mpg123Lib) strerror(code int32) string {
	if msg := l.plainStrerror(code); msg != "" {
		return msg
	}
	return fmt.Sprintf("error %d", code)
}

// mpg123Block is the most frames one call decodes: a few MP3 frames, so
// the 1 MiB gap budget of a call is never reached by real audio.
const mpg123Block = 16384

// mpg123Stream decodes an MPEG audio stream with libmpg123, fed from in.
// Its buffers live on the heap for as long as the stream, so the pointers
// handed to the library never move.
type mpg123Stream struct {
	lib      *mpg123Lib
	h        uintptr
	in       io.Reader
	channels int
	rate     int
	feedBuf  []byte
	out      []float32 // 2·mpg123Block samples
	done     *uintptr  // mpg123_read's byte count
	fmtOut   *[3]int64 // mpg123_getformat's rate, channels, encoding
	eof      bool      // in has ended
	cleanup  runtime.Cleanup
}

// newMPG123 makes a decoder for float output at every MPEG rate, mono or
// stereo as the stream is, and decodes up to the first frame's format.
func newMPG123(lib *mpg123Lib, in io.Reader) (*mpg123Stream, error) {
	s := &mpg123Stream{lib: lib, in: in, feedBuf: make([]byte, 16<<10), out: make([]float32, 2*mpg123Block),
		done: new(uintptr), fmtOut: new([3]int64)}
	h, _, _ := purego.SyscallN(lib.new, 0, 0)
	if h == 0 {
		return nil, errors.New("libmpg123: mpg123_new failed")
	}
	s.h = h
	// a decoder dropped without Close still gives the handle back
	s.cleanup = runtime.AddCleanup(s, func(h uintptr) { purego.SyscallN(lib.delete, h) }, h)
	check := func(what string, r int32) error {
		if r != mpg123OK {
			return fmt.Errorf("libmpg123: %s: %s", what, lib.strerror(r))
		}
		return nil
	}
	err := errors.Join(
		check("add flags", lib.param(h, mpg123AddFlags, mpg123Quiet|mpg123SkipID3v2|mpg123IgnoreInfoFrame, 0)),
		check("remove flags", lib.param(h, mpg123RemoveFlags, mpg123Gapless, 0)),
		check("resync limit", lib.param(h, mpg123ResyncLimit, -1, 0)), // search on, as go-mp3 does, within Prism's gap budget
	)
	if err == nil {
		r, _, _ := purego.SyscallN(lib.formatNone, h)
		err = check("format_none", int32(r))
	}
	for _, rate := range mpg123Rates {
		if err == nil {
			r, _, _ := purego.SyscallN(lib.format, h, uintptr(rate), mpg123Mono|mpg123Stereo, mpg123EncFloat32)
			err = check("format", int32(r))
		}
	}
	if err == nil {
		r, _, _ := purego.SyscallN(lib.openFeed, h)
		err = check("open_feed", int32(r))
	}
	if err == nil {
		_, err = s.run(s.out[:0], true)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// decode fills dst (whole frames of s.channels) or as much as the stream
// holds: frames decoded, and io.EOF (or why not) when it ended before dst
// was full (mp3Source).
func (s *mpg123Stream) decode(dst []float32) (int, error) { return s.run(dst, false) }

// run is decode; with first it returns once the first frame's format is
// known.
func (s *mpg123Stream) run(dst []float32, first bool) (int, error) {
	got := 0 // samples
	for got < len(dst) || first {
		out := s.out[:min(len(s.out), len(dst)-got)]
		var outp uintptr
		if len(out) > 0 {
			outp = uintptr(unsafe.Pointer(&out[0]))
		}
		*s.done = 0
		r, _, _ := purego.SyscallN(s.lib.read, s.h, outp, uintptr(4*len(out)), uintptr(unsafe.Pointer(s.done)))
		n := int(*s.done / 4)
		got += copy(dst[got:], out[:n])
		switch code := int32(r); code {
		case mpg123OK:
		case mpg123NewFormat:
			if err := s.newFormat(first); err != nil {
				return got / max(1, s.channels), err
			}
			if first {
				return 0, nil
			}
		case mpg123NeedMore:
			if err := s.feed(); err != nil {
				return got / max(1, s.channels), err
			}
		case mpg123Done:
			return got / s.channels, io.EOF
		default:
			return got / max(1, s.channels), fmt.Errorf("libmpg123: %s", s.lib.strerror(code))
		}
	}
	return got / s.channels, nil
}

// newFormat takes the format of the first frame, and refuses a stream
// whose rate or channel count changes later.
func (s *mpg123Stream) newFormat(first bool) error {
	f := s.fmtOut
	r, _, _ := purego.SyscallN(s.lib.getFormat, s.h, uintptr(unsafe.Pointer(&f[0])), uintptr(unsafe.Pointer(&f[1])), uintptr(unsafe.Pointer(&f[2])))
	if int32(r) != mpg123OK {
		return fmt.Errorf("libmpg123: getformat: %s", s.lib.strerror(int32(r)))
	}
	// long, int, int: the ints are the low halves (little-endian)
	rate, channels, enc := int(f[0]), int(int32(f[1])), int(int32(f[2]))
	switch {
	case enc != mpg123EncFloat32 || channels < 1 || channels > 2:
		return fmt.Errorf("libmpg123: unexpected output format (encoding 0x%x, %d channels)", enc, channels)
	case first:
		s.rate, s.channels = rate, channels
	case rate != s.rate || channels != s.channels:
		return fmt.Errorf("the stream changes from %d Hz, %d channel(s) to %d Hz, %d channel(s): not supported", s.rate, s.channels, rate, channels)
	}
	return nil
}

// feed hands the library the next bytes of the stream; at its end, the
// library has nothing more to decode.
func (s *mpg123Stream) feed() error {
	if s.eof {
		return io.EOF
	}
	n, err := s.in.Read(s.feedBuf)
	if n > 0 {
		r, _, _ := purego.SyscallN(s.lib.feed, s.h, uintptr(unsafe.Pointer(&s.feedBuf[0])), uintptr(n))
		if int32(r) != mpg123OK {
			return fmt.Errorf("libmpg123: feed: %s", s.lib.strerror(int32(r)))
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		s.eof = true
		if n == 0 {
			return io.EOF
		}
	case err != nil:
		return err
	}
	return nil
}

func (s *mpg123Stream) close() {
	if s.h != 0 {
		s.cleanup.Stop()
		purego.SyscallN(s.lib.delete, s.h)
		s.h = 0
	}
}
