package ui

import (
	"fmt"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
)

// The window keeps its settings as the names the preferences store; these
// read them into the analysis packages' types at the one place each is
// used.

// MaxFFT is the largest FFT size the window offers: the analyses' own
// limit (2^20 points, 0.046 Hz bins at 48 kHz). Above 16384 bins the
// waterfall stores its columns max-pooled (maxStoredBins) and the history
// keeps fewer columns (live.historyBytes), so no view's memory grows with
// the size beyond one spectrum per trace; the views read only the traces
// they draw (live.Spectrum.Want), a waterfall at most pullBins bins per
// tick, and slow pulls give way to the window's drawing (pullShare).
const MaxFFT = engine.MaxFFT

// CheckFFT is the analyses' FFT-size rule (analysis.CheckFFT) within the
// window's MaxFFT.
func CheckFFT(n int) error {
	if err := engine.CheckFFT(n, 1); err != nil || n > MaxFFT {
		return fmt.Errorf("FFT size %d: want a power of two %d…%d", n, engine.MinFFT, MaxFFT)
	}
	return nil
}

// newFreqAxis is the frequency axis named scale ("lin", "log", "mel").
func newFreqAxis(scale string, rate, n int) (plot.FreqAxis, error) {
	s, err := plot.ParseScale(scale)
	if err != nil {
		return plot.FreqAxis{}, err
	}
	return plot.NewFreqAxis(s, rate, n), nil
}

// colormapLUT is the table of the colormap named name.
func colormapLUT(name string) (*[256][3]uint8, error) {
	c, err := plot.ParseColormap(name)
	if err != nil {
		return nil, err
	}
	return c.LUT(), nil
}

// parseBand reads a band spec and checks it at rate Hz ("" is no band).
func parseBand(spec string, rate int) (dsp.BandSpec, error) {
	b, err := dsp.ParseBand(spec)
	if err != nil {
		return b, err
	}
	return b, b.Check(rate)
}
