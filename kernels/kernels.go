// Package kernels holds Prism's OpenCL C sources, embedded in the binary.
//
// Each .cl file opens with a comment giving its data layout, work-group shape
// and the -D defines it expects. The host concatenates nothing and edits no
// text: a program is built from [Common, one of the kernel files] as two
// source strings, with defines on the build command line. Each kernel's
// argument indices are named in args.go, checked against the sources by
// TestKernelArgIndices. This package knows nothing about OpenCL itself;
// gpufft compiles and runs the kernels.
package kernels

import _ "embed"

var (
	// Common is fft_common.cl: complex helpers, butterflies, the Stockham
	// stage loop in registers plus local memory, the real-input split.
	//
	//go:embed fft_common.cl
	Common string

	// Batch is fft_batch.cl: single-pass kernels, one work-group per
	// transform (C2C, R2C, C2R, the fused spectrogram).
	//
	//go:embed fft_batch.cl
	Batch string

	// Passes is fft_passes.cl: the four-step passes for large transforms
	// and the real-input pre/post and framing passes around them.
	//
	//go:embed fft_passes.cl
	Passes string

	// Reduce is reduce.cl: folds spectra into a spectrogram image by
	// maximum, or sums them per bin (Welch), on the device.
	//
	//go:embed reduce.cl
	Reduce string

	// Post is post.cl: the live analyzer's averages, holds, band sums and
	// column fold, chained after the spectrogram.
	//
	//go:embed post.cl
	Post string

	// PCM is pcm.cl: raw interleaved PCM (int16, int24, int32, float32)
	// to planar float32 samples, one channel, every channel or the mix.
	//
	//go:embed pcm.cl
	PCM string

	// Transfer is transfer.cl: the dual-channel measurement's cross- and
	// auto-spectrum averages, chained after a complex spectrogram.
	//
	//go:embed transfer.cl
	Transfer string

	// Spectral is spectral.cl: the sparse spectral-kernel product (the
	// FFT-based variable-Q transform), chained after a complex spectrogram.
	//
	//go:embed spectral.cl
	Spectral string
)
