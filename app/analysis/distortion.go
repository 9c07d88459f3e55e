package analysis

import (
	"context"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
)

// DistortionResult is `prism distortion` of one channel of a file.
type DistortionResult struct {
	dsp.Distortion
	Channel    int // −1: the mix
	FFT        int
	Frames     int
	SampleRate int
	Warnings   []string
}

// MeasureDistortion measures THD, THD+N, SNR and SINAD of channel (−1: the
// mix) of in around fundamentalHz (0: the strongest component) with
// dsp.DistortionMeter (float64 on the CPU: its Kaiser β=20 window needs
// more than float32's dynamic range).
func MeasureDistortion(ctx context.Context, in string, channel int, fundamentalHz float64) (DistortionResult, error) {
	res := DistortionResult{Channel: channel}
	dec, err := openInput(in, channel, 1)
	if err != nil {
		return res, err
	}
	defer dec.Close()
	f := dec.Format()
	res.SampleRate = f.SampleRate
	if fundamentalHz < 0 || fundamentalHz >= float64(f.SampleRate)/2 {
		return res, inputErrorf("%s: fundamental %g Hz is outside 0 … %g Hz", in, fundamentalHz, float64(f.SampleRate)/2)
	}
	samples, err := knownSamples(ctx, dec, in)
	if err != nil {
		return res, err
	}
	res.FFT = dsp.DistortionFFT(samples)
	if res.FFT == 0 {
		return res, inputErrorf("%s: %d samples per channel, fewer than the 4096 a distortion analysis needs", in, samples)
	}
	m, err := dsp.NewDistortionMeter(float64(f.SampleRate), res.FFT)
	if err != nil {
		return res, err
	}
	s := &streamer{dec: dec, channel: channel}
	one := make([]float32, 1<<15)
	if err := decodeBlocks(ctx, dec, in, func(block []float32, n int) {
		s.pick(one[:n], block, f.Channels)
		m.Write(one[:n])
	}); err != nil {
		return res, err
	}
	res.Frames = m.Frames()
	res.Warnings = dec.Warnings()
	d, err := m.Result(fundamentalHz)
	if err != nil {
		return res, &InputError{fmt.Errorf("%s: %w", in, err)}
	}
	res.Distortion = d
	return res, nil
}

// CalibratorHz is the tone of an acoustic calibrator.
const CalibratorHz = 1000

// MeasureCalibrator reads a calibrator recording: channel of in holds a
// 1 kHz tone known to be dbspl dB SPL. Its sine level is the fundamental
// of MeasureDistortion (noise, hum and harmonics excluded), which must be
// the recording's strongest tone.
func MeasureCalibrator(in string, channel int, dbspl float64) (dsp.LevelCal, error) {
	d, err := MeasureDistortion(context.Background(), in, channel, 0)
	if err != nil {
		return dsp.LevelCal{}, err
	}
	if math.Abs(d.FundamentalHz-CalibratorHz) > 0.02*CalibratorHz {
		return dsp.LevelCal{}, inputErrorf("%s: the strongest tone is at %.1f Hz, not 1 kHz: not a calibrator recording", in, d.FundamentalHz)
	}
	c, err := dsp.CalFromRecording(d.FundamentalDBFS, dbspl)
	if err != nil {
		return c, &InputError{fmt.Errorf("%s: %w", in, err)}
	}
	return c, nil
}
