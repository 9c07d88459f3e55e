//go:build !amd64 || noasm

package gpufft

// setAVX2 does nothing where there are no AVX2 kernels.
func setAVX2(bool) {}
