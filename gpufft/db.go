package gpufft

// PowerDB is the engines' dB rule for host code: 10·log10(p) of a power p
// relative to full scale, floored at FloorDB, computed as the CPU engine's
// DBFS output is (log10f, to float32 precision), so levels converted on
// the host agree with the engines'. It does not allocate.
func PowerDB(p float32) float32 {
	if p > 1e-20 {
		return 10 * log10f(p)
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
