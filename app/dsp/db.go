package dsp

import "math"

// FloorDB is the lowest level Prism reports, in dB: the level of silence
// (and the floor of the engines' dBFS output, gpufft.FloorDB).
const FloorDB = -200

// minPower is the power below which PowerDB reports FloorDB (10^(−200/10)).
const minPower = 1e-20

// PowerDB converts a power (|X|² scaled so that 1 is full scale) to dB,
// floored at FloorDB.
func PowerDB(p float32) float32 {
	if p > minPower {
		return float32(10 * math.Log10(float64(p)))
	}
	return FloorDB
}

// AppendPowerDB appends the PowerDB levels of pow to dst. It allocates only
// when dst's capacity is short.
func AppendPowerDB(dst, pow []float32) []float32 {
	for _, v := range pow {
		dst = append(dst, PowerDB(v))
	}
	return dst
}

// fullScaleMeanSquare is the mean square of a full-scale sine.
const fullScaleMeanSquare = 0.5

// MeanSquareDBFS is the level in dBFS of a signal with mean square ms: a
// full-scale sine (mean square ½) reads 0 dBFS, so a sine of amplitude A
// reads 20·log10 A. Floored at FloorDB.
func MeanSquareDBFS(ms float64) float64 {
	return max(FloorDB, 10*math.Log10(ms/fullScaleMeanSquare))
}
