package ui

import (
	"fmt"

	"github.com/prismaudio/prism/app/analysis"
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
const MaxFFT = analysis.MaxFFT

// CheckFFT is the analyses' FFT-size rule (analysis.CheckFFT) within the
// window's MaxFFT.
func CheckFFT(n int) error {
	if err := analysis.CheckFFT(n, 1); err != nil || n > MaxFFT {
		return fmt.Errorf("FFT size %d: want a power of two %d…%d", n, analysis.MinFFT, MaxFFT)
	}
	return nil
}
