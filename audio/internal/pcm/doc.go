// Package pcm converts little-endian integer PCM to float32 full-scale
// units: the inner loop of every WAV read. 16-bit samples go through an
// AVX2 kernel where the CPU has one (pcm_amd64.s): Go converts one
// sample at a time, and at about 1 ns a sample that was a fifth of an
// archive analysis's CPU time. The assembly lives here, not in audio,
// because a package that uses cgo cannot hold Go assembly.
package pcm

// Int16 sets dst[i] = int16(raw[2i] | raw[2i+1]<<8) / 2^15, exactly, for
// every i < len(dst); raw must hold 2·len(dst) bytes.
func Int16(dst []float32, raw []byte) {
	raw = raw[:2*len(dst)]
	if n := len(dst) &^ 7; haveAVX2 && n > 0 {
		int16ToFloatAVX2(&dst[0], &raw[0], n)
		dst, raw = dst[n:], raw[2*n:]
	}
	for i := range dst {
		dst[i] = float32(int16(uint16(raw[2*i])|uint16(raw[2*i+1])<<8)) / (1 << 15)
	}
}
