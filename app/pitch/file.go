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
	var chans []int
	if o.Channel >= 0 {
		chans = []int{o.Channel}
	}
	xs, f, warnings, err := audio.ReadChannels(path, chans)
	if err != nil {
		return nil, nil, err
	}
	if !(o.HopSeconds > 0) {
		return nil, nil, fmt.Errorf("pitch: hop of %g s", o.HopSeconds)
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
	cfg := Config{SampleRate: f.SampleRate, MinHz: o.MinHz, MaxHz: o.MaxHz, Threshold: o.Threshold}
	pts, err := Track(x, cfg, max(1, int(math.Round(o.HopSeconds*float64(f.SampleRate)))))
	return pts, warnings, err
}
