package kernels

// Kernel names one __kernel function of the sources. Each kernel's
// variable below adds one field per parameter, named after it (first
// letter upper-case) and holding its argument index: the host binds
// arguments by these names only, and TestKernelArgIndices checks every
// name and index against the .cl signatures.
type Kernel struct {
	Name   string // the __kernel function's name
	File   string // the .cl file that defines it
	Params int    // how many parameters it takes
}

// fft_batch.cl: the single-pass kernels.
var (
	FFTC2C = struct {
		Kernel
		Src, Dst, Tws, Count int
	}{Kernel{"fft_c2c", "fft_batch.cl", 4}, 0, 1, 2, 3}

	FFTR2C = struct {
		Kernel
		Src, Dst, Tws, Twr, Count int
	}{Kernel{"fft_r2c", "fft_batch.cl", 5}, 0, 1, 2, 3, 4}

	FFTC2R = struct {
		Kernel
		Src, Dst, Tws, Twr, Count int
	}{Kernel{"fft_c2r", "fft_batch.cl", 5}, 0, 1, 2, 3, 4}

	Spectrogram = struct {
		Kernel
		Src, Dstv, Tws, Twr, Win, ChanStride, Hop, Frames, Scale, Gain int
	}{Kernel{"spectrogram", "fft_batch.cl", 10}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
)

// fft_passes.cl: the four-step pass and the element kernels around it.
var (
	FFTPass = struct {
		Kernel
		Src, Dstv, Tws, Tw4, Scale, Aux, Gain, ChanStride, Hop, Frames int
	}{Kernel{"fft_pass", "fft_passes.cl", 10}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}

	R2CPost = struct {
		Kernel
		Z, Out, Tw, Count int
	}{Kernel{"r2c_post", "fft_passes.cl", 4}, 0, 1, 2, 3}

	Frames = struct {
		Kernel
		Src, Out, Win, ChanStride, Hop, Frames int
	}{Kernel{"frames", "fft_passes.cl", 6}, 0, 1, 2, 3, 4, 5}

	SpecPost = struct {
		Kernel
		Z, Outv, Tw, Count, Scale, Gain int
	}{Kernel{"spec_post", "fft_passes.cl", 6}, 0, 1, 2, 3, 4, 5}

	SpecMul = struct {
		Kernel
		X, H, Count int
	}{Kernel{"spec_mul", "fft_passes.cl", 3}, 0, 1, 2}
)

// reduce.cl, post.cl and pcm.cl.
var (
	ReduceMax = struct {
		Kernel
		Db, Img, RowLo, RowHi, Bins, Rows, RowsPad, F0, N, Total, Cols, CFirst int
	}{Kernel{"reduce_max", "reduce.cl", 12}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}

	SumSlices = struct {
		Kernel
		Pw, Part, Bins, BinsPad, Frames, Slices int
	}{Kernel{"sum_slices", "reduce.cl", 6}, 0, 1, 2, 3, 4, 5}

	SumParts = struct {
		Kernel
		Part, Sum, Bins, Slices, Count int
	}{Kernel{"sum_parts", "reduce.cl", 5}, 0, 1, 2, 3, 4}

	LiveUpdate = struct {
		Kernel
		Pw, Gain2, Ents, NEnts, Tr, Age, Ring, LinSum, LongSum, Carry, Cols, N, Bins, OutC, L,
		LinNext, LinCount, LongCount, First, Alpha, Hold, Decay, Col0, ColN int
	}{Kernel{"live_update", "post.cl", 24}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
		15, 16, 17, 18, 19, 20, 21, 22, 23}

	LiveBands = struct {
		Kernel
		Pw, BandStart, BandBin, BandW, BandPow, Ms, BandOut, N, Bins, Nb, MaxF, NormHi, NormLo, Alpha, First int
	}{Kernel{"live_bands", "post.cl", 15}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}

	PCMPlanar = struct {
		Kernel
		Raw, Dst, Frames, Inv int
	}{Kernel{"pcm_planar", "pcm.cl", 4}, 0, 1, 2, 3}
)

// transfer.cl: the dual-channel averages and the delay finder's PHAT
// weighting and impulse-response peaks.
var (
	TransferUpdate = struct {
		Kernel
		Spec, Ring, Avg, N, Bins, M, K, Next, Count, First, Alpha int
	}{Kernel{"transfer_update", "transfer.cl", 11}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

	TransferPhat = struct {
		Kernel
		Avg, W, Bins, M int
	}{Kernel{"transfer_phat", "transfer.cl", 4}, 0, 1, 2, 3}

	TransferPeak = struct {
		Kernel
		Ir, Peak, N int
	}{Kernel{"transfer_peak", "transfer.cl", 3}, 0, 1, 2}
)

// spectral.cl: the spectral-kernel plan's frame copy and kernel product.
var (
	SpectralFrames = struct {
		Kernel
		Src, Dst, Stride, Start, Need, Count int
	}{Kernel{"spectral_frames", "spectral.cl", 6}, 0, 1, 2, 3, 4, 5}

	SpectralKernel = struct {
		Kernel
		Spec, Out, First, Offset, Wre, Wim, Rows, Bins, Count, Base int
	}{Kernel{"spectral_kernel", "spectral.cl", 10}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
)
