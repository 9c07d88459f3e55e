// Package gpufft is Prism's FFT engine: batched FFTs, the fused
// spectrogram (with optional per-bin power gains applied after the FFT, for
// band display), spectrogram images reduced on the engine, and FFT
// convolution (overlap-save, the spectrum multiply on the device), on the
// GPU through OpenCL and on the CPU in Go, behind one contract (Engine,
// ComplexPlan, RealPlan, SpectrogramPlan, ImagePlan, ConvolvePlan) with the
// same output from both, checked against float64 references in the tests.
//
// It knows nothing about audio devices, files or the UI: callers hand it
// float32 samples and get spectra back. Plans own their device buffers,
// twiddle tables and scratch, all sized when the plan is made; Execute,
// Forward and Inverse write into buffers the caller owns and allocate
// nothing. A plan is used by one goroutine at a time.
//
// # GPU (OpenCL)
//
// Kernels live in package kernels and are compiled per plan with -D defines
// (size, radix, stage plan, sequences per work-group). Transforms of up to
// 8192 complex points (16384 real) run one work-group per transform: each
// work-item holds RADIX values in registers, stages are Stockham auto-sort
// radix-8/16 butterflies exchanging through local memory (padded
// structure-of-arrays; one float component at a time where local memory is
// short), global loads and stores are coalesced, and twiddles come from
// per-stage tables laid out so a warp reads consecutive entries. Real
// transforms are half-length complex ones plus the split post-processing.
// Larger sizes, up to MaxSize, run the four-step (hierarchical) path: two
// passes over device memory of √N-point transforms, S sequences per group
// staged through local memory so strided accesses fill whole transactions,
// with the twiddle multiply folded into pass 1's stores. Real transforms
// and spectrograms cost the same two passes: pass 1 reads the real input
// (or, for the spectrogram, the frames straight from the sample buffer,
// windowed on load; for C2R, the half spectrum packed on load), and pass 2
// pairs each sequence with its mirror in one group so the real split and
// the dB output happen as it stores. The single-pass spectrogram plan reads
// frames straight from the sample buffer, windows on load, and writes dBFS
// in one launch.
//
// Tuning aids, read when the engine opens (for `prism bench` on new
// hardware): PRISM_OPENCL_RADIX (4, 8, 16), PRISM_OPENCL_GROUP (items a
// group aims for), PRISM_OPENCL_SINGLE_MAX (largest single-pass size),
// PRISM_OPENCL_FPG (spectrogram frames per group), PRISM_OPENCL_TUNE (extra
// kernel defines), PRISM_OPENCL_OPTIONS (compiler options, e.g.
// -cl-nv-verbose), PRISM_OPENCL_BUILDLOG (print every build log) and
// PRISM_OPENCL_DUMP (a directory for the device binaries: PTX on NVIDIA).
//
// The OpenCL library is loaded at run time (internal/cl, purego), so the
// binary runs where none is installed: NewOpenCL then returns an error
// wrapping ErrNoOpenCL and Auto falls back to the CPU engine.
//
// # CPU
//
// The CPU engine is written here rather than taken from gonum's
// dsp/fourier because it is much faster for this job: float32 (half the
// memory traffic of gonum's complex128), radix-4 Stockham stages with
// twiddle tables read in order, run four complex values at a time in AVX2
// (stage_amd64.s; the pure-Go stages are the fallback and are tested with
// -tags noasm), a float32 complex multiply in the Go stages (Go's own
// complex64 multiply widens to float64 and back), the window applied inside
// the first stage, the real split computing bins k and N/2−k from one
// multiply, and a table-driven log10 for the dB conversion. Radix-8 stages
// were slower than radix-4 in Go (0.57 vs 0.49 ms, R2C 4096 × 32): Go keeps
// 8 complex inputs, 7 twiddle streams and 8 outputs poorly in 16 registers.
//
// Measured side by side by `prism bench --engine cpu` on the 2-core
// development machine, both split across 2 goroutines: R2C 7.7× gonum's
// speed at N=1024, 10.8× at 4096, 11.4× at 16384, 10.4× at 65536; the
// spectrogram (4096, hop 1024, Hann, dBFS) 7.3×. Batches are split across a
// pool of worker goroutines, one per core, each with its own scratch.
package gpufft
