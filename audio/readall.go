package audio

import (
	"errors"
	"fmt"
	"io"
)

// ReadChannels decodes the whole of path and returns the channels chans
// (0-based; nil: every channel), one slice of samples each, with the
// file's format and the decoder's warnings. A channel the file does not
// have is an error naming the file's count.
func ReadChannels(path string, chans []int) ([][]float32, Format, []string, error) {
	d, err := Open(path)
	if err != nil {
		return nil, Format{}, nil, err
	}
	defer d.Close()
	f := d.Format()
	if chans == nil {
		for c := range f.Channels {
			chans = append(chans, c)
		}
	}
	for _, c := range chans {
		if c < 0 || c >= f.Channels {
			return nil, f, nil, fmt.Errorf("%s has %d channels, no channel %d", path, f.Channels, c)
		}
	}
	out := make([][]float32, len(chans))
	if f.Frames > 0 {
		for i := range out {
			out[i] = make([]float32, 0, f.Frames)
		}
	}
	buf := make([]float32, 8192*f.Channels)
	for {
		n, err := d.Read(buf)
		for i, c := range chans {
			for j := range n {
				out[i] = append(out[i], buf[j*f.Channels+c])
			}
		}
		if errors.Is(err, io.EOF) {
			return out, f, d.Warnings(), nil
		}
		if err != nil {
			return nil, f, nil, err
		}
	}
}
