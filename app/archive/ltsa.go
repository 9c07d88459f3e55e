package archive

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// LTSAConfig sets a long-term spectral average.
type LTSAConfig struct {
	// Average is the length of a time bin (Triton's tave). Bins are
	// aligned to absolute time: bin k covers [k·Average, (k+1)·Average)
	// since the Unix epoch (so one-minute bins start on UTC minutes).
	Average time.Duration
	// FFT is the frame length in samples (a power of two); 0 picks the
	// smallest one whose resolution (rate/FFT) is at most Resolution.
	FFT int
	// Resolution is the wanted bin spacing in Hz when FFT is 0 (Triton's
	// dfreq); 0 means 10 Hz.
	Resolution float64
	Channel    int // 0-based
	Window     window.Func
	// Cal calibrates the levels; when uncalibrated, the files' own
	// calibration (from a manifest) is used, and it must be the same for
	// all of them.
	Cal Calibration
	// From and To, when set, limit the rows to the bins that meet [From,
	// To): files wholly outside are not opened and the samples of a file
	// before From are read but not transformed (a zoomed view's rows).
	From, To time.Time
}

// Row is one time bin of an LTSA (or one minute of an HMD).
type Row struct {
	Start   time.Time // the bin's start, UTC
	Seconds float64   // seconds of audio the bin read (less than the bin's length at gaps)
	// Level is one value per frequency: the power spectral density in dB
	// (Calibration.Unit) for an LTSA; the band level (Calibration.BandUnit)
	// or band density for an HMD.
	Level []float32
}

// FFTFor returns the frame length LTSA uses at rate for cfg.
func (cfg LTSAConfig) FFTFor(rate float64) int {
	if cfg.FFT > 0 {
		return cfg.FFT
	}
	res := cfg.Resolution
	if res <= 0 {
		res = 10
	}
	return pow2AtLeast(rate / res)
}

// pow2AtLeast is the smallest power of two ≥ x, within the engine's sizes.
func pow2AtLeast(x float64) int {
	n := 1 << bits.Len(uint(math.Ceil(x)-1))
	return min(max(n, gpufft.MinSize), gpufft.MaxSize)
}

// CalibrationOf is the calibration an analysis applies to files: cal when
// calibrated, else the files' own, which must agree.
func CalibrationOf(files []File, cal Calibration) (Calibration, error) {
	if cal.Transducer != Uncalibrated || len(files) == 0 {
		return cal, nil
	}
	c := files[0].Cal
	for _, f := range files[1:] {
		if !sameCal(f.Cal, c) {
			return c, fmt.Errorf("archive: %s and %s have different calibrations: analyze them apart", files[0].Path, f.Path)
		}
	}
	return c, nil
}

func sameCal(a, b Calibration) bool {
	if a.Transducer != b.Transducer || a.SensitivityDB != b.SensitivityDB || a.GainDB != b.GainDB ||
		a.FullScaleV != b.FullScaleV || len(a.Curve) != len(b.Curve) {
		return false
	}
	for i := range a.Curve {
		if a.Curve[i] != b.Curve[i] {
			return false
		}
	}
	return true
}

// floorPower is the power density below which levels are floored (−300 dB
// before calibration): digital silence reads as a very low level, not −∞.
const floorPower = 1e-30

// LTSA computes a long-term spectral average of files (sorted by start, as
// Catalog.Files are): Welch power averages (frames of FFT samples, half a
// frame apart, windowed) over consecutive time bins of cfg.Average aligned
// to absolute time. Files that follow each other within JoinTolerance join
// without a seam (frames run across the boundary); a gap stays a gap: a
// bin with no whole frame in it gets no row, and a bin that a gap cuts
// averages the frames it has (Row.Seconds says how much audio that was).
// Overlapped spans are read once, from the earlier file.
//
// Rows are emitted in time order as their bins complete; each row's Level
// has FFT/2+1 values (dB per Hz, at freqs) and belongs to the caller.
// Memory is one row, the plan and about 16 MiB of buffers, whatever the
// archive's length. The engine's spectrogram plans compute the powers;
// they are averaged on the host in float64.
func LTSA(ctx context.Context, e gpufft.Engine, files []File, cfg LTSAConfig, emit func(Row) error) (freqs []float64, err error) {
	if err := checkFiles(files, cfg.Channel); err != nil {
		return nil, err
	}
	if cfg.Average <= 0 {
		return nil, errors.New("archive: the average must be positive")
	}
	cal, err := CalibrationOf(files, cfg.Cal)
	if err != nil {
		return nil, err
	}
	rate := files[0].Rate
	wc := welchConfig{average: cfg.Average, fft: cfg.FFTFor(rate), window: cfg.Window, channel: cfg.Channel, cal: cal, from: cfg.From, to: cfg.To}
	freqs = make([]float64, wc.fft/2+1)
	for k := range freqs {
		freqs[k] = float64(k) * rate / float64(wc.fft)
	}
	err = welchBins(ctx, e, files, wc, func(bin int64, secs float64, psd []float64) error {
		level := make([]float32, len(psd))
		for k, p := range psd {
			level[k] = float32(10 * math.Log10(max(p, floorPower)))
		}
		return emit(Row{Start: time.Unix(0, bin*int64(cfg.Average)).UTC(), Seconds: secs, Level: level})
	})
	return freqs, err
}
