package gpufft

import "math"

// PowerDB is the engines' dB rule for host code: 10·log10(p) of a power p
// relative to full scale, floored at FloorDB and capped at CeilDB, computed
// as the CPU engine's DBFS output is (log10f, to float32 precision), so
// levels converted on the host agree with the engines'. A power that is
// +Inf or NaN reads CeilDB (see CeilDB). It does not allocate.
func PowerDB(p float32) float32 {
	if p > 1e-20 && p <= math.MaxFloat32 {
		return min(10*log10f(p), CeilDB)
	}
	return edgeDB(p)
}

// edgeDB is PowerDB outside the finite range: +Inf and NaN read CeilDB,
// the rest (tiny, zero, negative) FloorDB.
func edgeDB(p float32) float32 {
	if p > 1e-20 || p != p {
		return CeilDB
	}
	return FloorDB
}

// AppendPowerDB appends PowerDB(pow[k]·gain[k]) for every k to dst (gain
// nil: 1). It allocates only when dst's capacity is short.
func AppendPowerDB(dst, pow, gain []float32) []float32 {
	if gain == nil {
		for _, p := range pow {
			dst = append(dst, PowerDB(p))
		}
		return dst
	}
	gain = gain[:len(pow)]
	for k, p := range pow {
		dst = append(dst, PowerDB(p*gain[k]))
	}
	return dst
}
