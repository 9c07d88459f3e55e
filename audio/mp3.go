package audio

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/hajimehoshi/go-mp3"
)

// mp3Decoder adapts github.com/hajimehoshi/go-mp3, which decodes to 16-bit
// little-endian stereo.
type mp3Decoder struct {
	name   string
	dec    *mp3.Decoder
	closer io.Closer
	format Format
	raw    []byte
}

func newMP3(r io.ReadCloser, name string) (d Decoder, err error) {
	defer recoverCorrupt(name, "MP3", &err)
	dec, err := mp3.NewDecoder(r)
	if err != nil {
		return nil, &FormatError{Name: name, Reason: "MP3: " + err.Error()}
	}
	frames := int64(-1)
	if l := dec.Length(); l > 0 {
		frames = l / 4
	}
	return &mp3Decoder{name: name, dec: dec, closer: r, raw: make([]byte, 64<<10),
		format: Format{SampleRate: dec.SampleRate(), Channels: 2, Encoding: "MP3", Container: "MP3", Frames: frames}}, nil
}

func (d *mp3Decoder) Format() Format     { return d.format }
func (d *mp3Decoder) Warnings() []string { return nil }

func (d *mp3Decoder) Read(dst []float32) (n int, err error) {
	defer recoverCorrupt(d.name, "MP3", &err)
	frames := min(len(dst)/2, len(d.raw)/4)
	if frames == 0 {
		return 0, nil
	}
	n, err = io.ReadFull(d.dec, d.raw[:4*frames])
	n -= n % 4
	for i := range n / 2 {
		dst[i] = float32(int16(binary.LittleEndian.Uint16(d.raw[2*i:]))) / (1 << 15)
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return n / 4, &FormatError{Name: d.name, Reason: "MP3: " + err.Error()}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n / 4, nil
}

func (d *mp3Decoder) Close() error {
	if d.closer == nil {
		return nil
	}
	err := d.closer.Close()
	d.closer = nil
	return err
}
