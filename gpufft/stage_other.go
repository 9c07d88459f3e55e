//go:build !amd64 || noasm

package gpufft

const haveAVX2 = false

func radix4AVX2(o0, o1, o2, o3, i0, i1, i2, i3, w1, w2, w3 *complex64, n int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func radix2AVX2(y0, y1, x0, x1, w *complex64, n int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func splitPowerAVX2(zk, zj, w *complex64, lo, hi *float32, g2 float32, n int, keepMax bool) {
	panic("gpufft: no AVX2 kernels in this build")
}
