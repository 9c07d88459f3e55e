package pitch

import (
	"fmt"
	"math"

	"github.com/prismaudio/prism/audio"
)

// FileOptions are TrackFile's: the channel (−1: the mean of the
// channels), the f0 range, the threshold (0: DefaultThreshold) and the
// time between frames.
type FileOptions struct {
	Channel      int
	MinHz, MaxHz float64
	Threshold    float64
	HopSeconds   float64
}

// TrackFile decodes the whole of path and returns its track (Track, the
// hop rounded to whole samples) and the decoder's warnings. It allocates
// the file's samples.
func TrackFile(path string, o FileOptions) ([]Point, []string, error) {
	if !(o.HopSeconds > 0) {
		return nil, nil, fmt.Errorf("pitch: hop of %g s", o.HopSeconds)
	}
	x, rate, warnings, err := ReadFile(path, o.Channel)
	if err != nil {
		return nil, nil, err
	}
	cfg := Config{SampleRate: rate, MinHz: o.MinHz, MaxHz: o.MaxHz, Threshold: o.Threshold}
	pts, err := Track(x, cfg, max(1, int(math.Round(o.HopSeconds*float64(rate)))))
	return pts, warnings, err
}

// ReadFile decodes the whole of path's channel ch (−1: the mean of the
// channels) and returns its samples, sample rate (Hz) and the decoder's
// warnings: what TrackFile tracks, and what the file view's scope shows.
func ReadFile(path string, ch int) ([]float32, int, []string, error) {
	var chans []int
	if ch >= 0 {
		chans = []int{ch}
	}
	xs, f, warnings, err := audio.ReadChannels(path, chans)
	if err != nil {
		return nil, 0, nil, err
	}
	x := xs[0]
	if len(xs) > 1 {
		x = make([]float32, len(xs[0]))
		for i := range x {
			s := 0.0
			for _, c := range xs {
				s += float64(c[i])
			}
			x[i] = float32(s / float64(len(xs)))
		}
	}
	return x, f.SampleRate, warnings, nil
}
