package archive

import (
	"math"
	"slices"
)

// Percentiles returns, for each p in ps (0…100), the p-th percentile of
// each column of rows (a day of HMD minutes: rows × bands), ignoring NaN:
// out[i][b] is the level below which ps[i] % of the rows' levels in band
// b fall, interpolated linearly between the sorted values (numpy's
// default, which pbp and PyPAM use). These are percentiles, not the
// exceedance levels of noise regulation: the level exceeded N % of the
// time (L_N in that convention) is the (100−N)-th percentile. A column
// with no number reads NaN. Rows must have equal lengths; it panics
// otherwise.
func Percentiles(rows [][]float32, ps []float64) [][]float32 {
	if len(rows) == 0 {
		return make([][]float32, len(ps))
	}
	cols := len(rows[0])
	out := make([][]float32, len(ps))
	for i := range out {
		out[i] = make([]float32, cols)
	}
	col := make([]float64, 0, len(rows))
	for b := range cols {
		col = col[:0]
		for _, r := range rows {
			if len(r) != cols {
				panic("archive: Percentiles: rows of unequal length")
			}
			if v := float64(r[b]); !math.IsNaN(v) {
				col = append(col, v)
			}
		}
		slices.Sort(col)
		for i, p := range ps {
			out[i][b] = float32(percentile(col, p))
		}
	}
	return out
}

// percentile interpolates the p-th percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	x := min(max(p, 0), 100) / 100 * float64(n-1)
	i := int(math.Floor(x))
	if i >= n-1 {
		return sorted[n-1]
	}
	return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
}
