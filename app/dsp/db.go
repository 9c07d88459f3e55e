package dsp

import "math"

// FloorDB is the lowest level Prism reports, in dB: the level of silence,
// the engines' floor (gpufft.FloorDB, whose PowerDB converts spectra on
// the host too), here for band and meter levels.
const FloorDB = -200

// fullScaleMeanSquare is the mean square of a full-scale sine.
const fullScaleMeanSquare = 0.5

// MeanSquareDBFS is the level in dBFS of a signal with mean square ms: a
// full-scale sine (mean square ½) reads 0 dBFS, so a sine of amplitude A
// reads 20·log10 A. Floored at FloorDB.
func MeanSquareDBFS(ms float64) float64 {
	return max(FloorDB, 10*math.Log10(ms/fullScaleMeanSquare))
}

// RMSDBFS is the AES17 RMS level in dBFS of a signal of mean square ms:
// 10·log10(ms) + 3.01, so a full-scale sine reads 0.00 dBFS (−Inf for 0).
// It is MeanSquareDBFS without the floor.
func RMSDBFS(ms float64) float64 { return 10 * math.Log10(ms/fullScaleMeanSquare) }
