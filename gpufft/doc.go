// Package gpufft is Prism's FFT engine: batched FFTs, the fused
// spectrogram (with optional per-bin power gains, for band display),
// spectrogram images and Welch power sums (PowerSum) reduced on the
// engine, FFT convolution (overlap-save), the live analyzer's
// post-processing (averages, holds, band sums, columns) and sparse
// spectral kernels applied to FFT frames (the variable-Q transform, the
// multi-resolution spectrum in one call), on the GPU through OpenCL and on
// the CPU in Go, behind one contract (Engine, ComplexPlan, RealPlan,
// SpectrogramPlan, ImagePlan, ConvolvePlan, LivePlan, SpectralKernelPlan,
// the PCM plans) with the same output from both: the CPU engine is checked
// against float64 references, the OpenCL engine against the CPU engine
// (levels within 0.01 dB).
//
// It knows nothing about audio devices, files or the UI: callers hand it
// float32 samples (or raw PCM bytes, or 16-bit samples to a PowerSum plan:
// Int16Executor) and get spectra back.
//
// # Ownership
//
// Plans own their device buffers, twiddle tables and scratch, all sized
// when the plan is made; a different size or batch is a new plan.
// Execute, Forward, Inverse and the other per-batch calls write into
// buffers the caller owns and allocate nothing (pinned by tests). Close
// a plan before its engine; an engine closed with plans open closes them
// too, and Close twice is harmless.
//
// # Goroutines
//
// A plan is used by one goroutine at a time; plans may be used from
// several goroutines at once. On OpenCL the live plans of one engine take
// turns (openclShared.live), each PCM plan on a GPU enqueues on an
// in-order queue of its own (planQueues), and a plan's Close waits for
// the work it queued. Programs are compiled when a plan is made, several
// at once (prebuild), never during a batch.
//
// # Errors
//
// Errors start with "gpufft:" and wrap a sentinel or a type: ErrNoOpenCL
// (no library or platform), ErrNoDevice, ErrInvalid (a plan's parameters
// break the contract), ErrClosed, *BuildError (the compiler's log),
// *CLError (a failed OpenCL call). Lengths that break a documented
// contract panic. The OpenCL library is loaded at run time (internal/cl,
// purego), so a binary without one gets ErrNoOpenCL and callers fall back
// to the CPU engine; every count and size a driver returns is bounded
// before anything is allocated by it, and WriteProbe/ReadProbe run the
// opening in a child process for drivers that crash outright. Levels are
// floored at FloorDB and capped at CeilDB: a NaN or infinite sample reads
// as overload in both engines, never as silence or NaN.
//
// # GPU paths
//
// Kernels live in package kernels and are built per plan with -D defines;
// their arguments are bound through kernels' named indices. Transforms of
// up to 8192 complex points (16384 real) run one work-group per
// transform (Stockham radix-8/16/32 stages exchanging through local
// memory; 16384 complex points in halves of one component); larger ones,
// up to MaxSize, run two four-step passes over device memory, the real
// split and the spectrogram's windowing and dB output folded into the
// passes. Built programs are kept in a program cache (progcache.go:
// $PRISM_OPENCL_CACHE moves it, "off" disables it), keyed by device,
// driver, sources and options. OpenCL.Stats reports where start-up time
// went.
//
// # Tuning
//
// An OpenCL engine takes a Tuning when it opens (OpenCLOptions.Tuning; nil
// reads TuningFromEnv, the one place gpufft reads the PRISM_OPENCL_*
// variables), and every plan is a function of the device, the options and
// that tuning. docs/tuning.md lists the variables; the measurements behind
// the defaults and the variants measured and dropped are in
// docs/gpufft-experiments.md.
package gpufft
