//go:build !amd64 || noasm

package pcm

const haveAVX2 = false

func int16ToFloatAVX2(dst *float32, src *byte, n int) {
	panic("pcm: no AVX2 kernels in this build")
}
