//go:build !amd64 || noasm

package gpufft

const haveAVX2 = false

func radix4StageAVX2(y, x, wd *complex64, m, ns, blocks int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func radix2AVX2(y0, y1, x0, x1, wd *complex64, n int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func splitPowerAVX2(zk, zj *complex64, ws, lo, hi *float32, g2 float32, n, how int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func first4AVX2(y, x *complex64, m int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func first4wAVX2(y, x, w *complex64, m int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func first4wInt16AVX2(y *complex64, x *int16, w *complex64, m int) {
	panic("gpufft: no AVX2 kernels in this build")
}

func addWidenAVX2(acc *float64, x *float32, n int) {
	panic("gpufft: no AVX2 kernels in this build")
}
