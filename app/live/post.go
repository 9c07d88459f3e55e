package live

import (
	"math"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live/rowsink"
	"github.com/prismaudio/prism/gpufft"
)

// postState is what the engine goroutine keeps of the post-processing,
// which itself runs on the engine (gpufft.LivePlan: averages, holds, band
// sums and the column fold, on the GPU when it is used): the settings'
// per-frame constants, the RTA's bands and the gains that make |X|² a
// power relative to a full-scale sine.
type postState struct {
	set    Settings
	geo    Geometry
	gain2  []float32            // (c_k/Σw)²: |X|² → power relative to a full-scale sine
	rta    *dsp.BandAccumulator // nil: no RTA
	frames uint64               // frames analyzed per channel
}

// newRTA is the band accumulator of settings s (nil with Fraction 0).
func newRTA(s Settings, rate int) (*dsp.BandAccumulator, error) {
	if s.Fraction == 0 {
		return nil, nil
	}
	nyq := float64(rate) / 2
	bands, err := dsp.Bands(s.Fraction, 20, 20000, nyq)
	if err != nil {
		return nil, err
	}
	return dsp.NewBandAccumulator(bands, s.FFT, rate, dsp.SumsOf(s.Window.Values(s.FFT)), s.Weighting), nil
}

func (p *postState) reset(s Settings, geo Geometry, rta *dsp.BandAccumulator) {
	p.set, p.geo, p.rta, p.frames = s, geo, rta, 0
	p.gain2 = make([]float32, geo.Bins())
	dsp.SumsOf(s.Window.Values(s.FFT)).SinePowerGains(p.gain2)
}

// maxColumnRate is the most waterfall columns per second the live
// analysis keeps: above it, each column is the maximum of several frames
// (folded on the engine), so every frame is still shown. A waterfall
// shows far fewer rows per second (a 10-s span on 1000 pixels: 100), and
// each column costs a dB conversion of every bin.
const maxColumnRate = 500

// columnFrames is the frames per waterfall column at geometry geo.
func columnFrames(geo Geometry) int {
	return max(1, int(math.Ceil(float64(geo.Rate)/float64(geo.Hop)/maxColumnRate)))
}

// liveConfig is the engine's live plan for settings s: the exponential
// weight, hold and decay per frame, the RTA's band matrix (the band
// accumulator's own shares and norm), and the column grid (s.Columns, or
// columnFrames frames per column).
func (p *postState) liveConfig(spec gpufft.SpectrogramConfig) gpufft.LiveConfig {
	s, frameSec := p.set, p.geo.HopSeconds()
	alpha := float32(1)
	if s.AvgTau > 0 {
		alpha = float32(1 - math.Exp(-frameSec/s.AvgTau.Seconds()))
	}
	cfg := gpufft.LiveConfig{Spectrogram: spec, Gain2: p.gain2, ExpAlpha: max(alpha, math.SmallestNonzeroFloat32),
		LinFrames: s.AvgFrames, HoldFrames: int(min(s.PeakHold.Seconds()/frameSec, math.MaxInt32)),
		Decay: float32(math.Pow(10, -s.PeakDecay*frameSec/10)), Grid: s.Columns, ColumnChannel: s.ColumnChannel}
	if cfg.Grid == nil {
		cfg.Grid = gpufft.FixedColumns{Frames: int64(columnFrames(p.geo))}
	}
	if g, ok := cfg.Grid.(rowsink.ImageGrid); ok {
		cfg.MaxColumns = g.MaxColumns(cfg.MaxFrames())
	}
	if p.rta != nil {
		cfg.BandNorm = p.rta.Norm()
		for i := range p.rta.Bands {
			bins, w := p.rta.Shares(i)
			cfg.Bands = append(cfg.Bands, gpufft.BandWeights{Bins: bins, Weights: w})
		}
	}
	return cfg
}
