package audio

import (
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
)

// flacDecoder adapts github.com/mewkiz/flac's frame-by-frame stream.
type flacDecoder struct {
	name    string
	stream  *flac.Stream
	closer  io.Closer
	format  Format
	pending [][]int32 // current frame's samples per channel
	pos     int
	scale   float32
}

func newFLAC(r io.ReadCloser, name string) (d Decoder, err error) {
	defer recoverCorrupt(name, "FLAC", &err)
	s, err := flac.New(r)
	if err != nil {
		return nil, &FormatError{Name: name, Reason: "FLAC: " + err.Error()}
	}
	info := s.Info
	if info.NChannels == 0 || info.SampleRate == 0 || info.BitsPerSample == 0 || info.BitsPerSample > 32 {
		return nil, &FormatError{Name: name, Reason: fmt.Sprintf("FLAC: unusable stream info (%d channels, %d Hz, %d bits)", info.NChannels, info.SampleRate, info.BitsPerSample)}
	}
	frames := int64(info.NSamples)
	if frames == 0 {
		frames = -1 // unknown
	}
	return &flacDecoder{
		name: name, stream: s, closer: r,
		format: Format{SampleRate: int(info.SampleRate), Channels: int(info.NChannels), Bits: int(info.BitsPerSample),
			Encoding: fmt.Sprintf("FLAC %d-bit", info.BitsPerSample), Container: "FLAC", Frames: frames},
		scale: 1 / float32(int64(1)<<(info.BitsPerSample-1)),
	}, nil
}

func (d *flacDecoder) Format() Format     { return d.format }
func (d *flacDecoder) Warnings() []string { return nil }

func (d *flacDecoder) Read(dst []float32) (n int, err error) {
	defer recoverCorrupt(d.name, "FLAC", &err)
	ch := d.format.Channels
	want := len(dst) / ch
	for n < want {
		if d.pending == nil || d.pos >= len(d.pending[0]) {
			fr, err := d.stream.ParseNext()
			if err != nil {
				if errors.Is(err, io.EOF) {
					if n == 0 {
						return 0, io.EOF
					}
					return n, nil
				}
				return n, &FormatError{Name: d.name, Reason: "FLAC frame: " + err.Error()}
			}
			if len(fr.Subframes) != ch {
				return n, &FormatError{Name: d.name, Reason: fmt.Sprintf("FLAC frame has %d channels, stream %d", len(fr.Subframes), ch)}
			}
			d.pending = d.pending[:0]
			for _, sf := range fr.Subframes {
				d.pending = append(d.pending, sf.Samples)
			}
			d.pos = 0
		}
		k := min(want-n, len(d.pending[0])-d.pos)
		for i := range k {
			for c := range ch {
				dst[(n+i)*ch+c] = float32(d.pending[c][d.pos+i]) * d.scale
			}
		}
		n += k
		d.pos += k
	}
	return n, nil
}

func (d *flacDecoder) Close() error {
	if d.closer == nil {
		return nil
	}
	err := d.closer.Close()
	d.closer = nil
	return err
}
