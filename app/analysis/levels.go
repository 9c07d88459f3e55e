package analysis

import (
	"context"
	"fmt"
	"sync"

	"github.com/prismaudio/prism/app/meter"
	"github.com/prismaudio/prism/audio"
)

// ChannelLevels are one channel's peak and RMS levels.
type ChannelLevels struct {
	SamplePeakDBFS float64 // largest |sample|
	TruePeakDBTP   float64 // ITU-R BS.1770-4 Annex 2, 4× oversampled
	RMSDBFS        float64 // AES17: a full-scale sine reads 0
}

// LevelsResult is `prism levels` of a file: per channel peaks and RMS,
// and the programme's loudness (EBU R128 / BS.1770-4). Loudness values
// are −Inf where undefined (silence, or a file shorter than the window).
type LevelsResult struct {
	Channels         []ChannelLevels
	IntegratedLUFS   float64
	LoudnessRangeLU  float64
	MomentaryMaxLUFS float64
	ShortTermMaxLUFS float64
	SampleRate       int
	Samples          int64 // per channel
	Warnings         []string
}

// MeasureLevels streams in through a loudness meter (BS.1770 channel
// weights for its channel count: mono is one channel, so a mono sine reads
// 3 dB below the same sine in both channels of a stereo file) and a peak
// meter, the peak meter on a goroutine of its own for each block.
// Cancelling ctx stops it between blocks.
func MeasureLevels(ctx context.Context, in string) (LevelsResult, error) {
	var res LevelsResult
	dec, err := audio.Open(in)
	if err != nil {
		return res, &InputError{err}
	}
	defer dec.Close()
	f := dec.Format()
	res.SampleRate = f.SampleRate
	loud, err := meter.NewLoudness(float64(f.SampleRate), f.Channels, nil)
	if err != nil {
		return res, &InputError{fmt.Errorf("%s: %w", in, err)}
	}
	peaks, err := meter.NewPeakMeter(f.Channels)
	if err != nil {
		return res, &InputError{fmt.Errorf("%s: %w", in, err)}
	}
	if err := decodeBlocks(ctx, dec, in, func(block []float32, n int) {
		res.Samples += int64(n)
		var wg sync.WaitGroup
		wg.Go(func() { peaks.WriteInterleaved(block) })
		loud.WriteInterleaved(block)
		wg.Wait()
	}); err != nil {
		return res, err
	}
	if res.Samples == 0 {
		return res, inputErrorf("%s: no samples", in)
	}
	res.Warnings = dec.Warnings()
	for c := range f.Channels {
		res.Channels = append(res.Channels, ChannelLevels{peaks.SamplePeak(c), peaks.TruePeak(c), peaks.RMS(c)})
	}
	res.IntegratedLUFS = loud.Integrated()
	res.LoudnessRangeLU = loud.Range()
	res.MomentaryMaxLUFS = loud.MomentaryMax()
	res.ShortTermMaxLUFS = loud.ShortTermMax()
	return res, nil
}
