// Package transfer is Prism's dual-channel measurement, of files (`prism
// transfer`) and live (Live: `prism capture --transfer`): a reference channel and one or more measurement channels,
// from one file or two (WAV, FLAC, MP3 through the audio decoders), run
// through an engine's transfer plan (gpufft.TransferEngine: the cross- and
// auto-spectra averaged on the GPU or the CPU), and turned by package dual's
// rules into, per measurement channel and bin, the magnitude in
// dB, the phase in degrees, the coherence, and a delay summary (the
// delay finder's GCC-PHAT peak, its polarity, or "no delay found").
//
// A file is measured in two passes when its delay is to be found: the
// first finds each channel's delay, the second runs again with each
// measurement channel advanced by its delay's whole samples, so that a
// frame of the reference and a frame of the measurement hold the same
// signal (a misalignment of D samples in frames of N caps the coherence
// near 1 − 6.6·(D/N)² with a Hann window); the fraction left is taken out
// of the phase by rule (dual.RemoveDelay), as a given --delay is.
//
// Live reads the same channels of a recorder's stream as they arrive
// (live_*.go): frames into the engine's transfer plan (the GPU, falling
// back to the CPU engine by package engine's one rule), averages FIFO or
// exponential, the delay tracked (re-found every K frames and applied to
// the reference; with no clear peak the last good delay is kept and said
// so), the impulse response and ETC on request, and the statistics of
// app/live's StatsKeeper. Step belongs to the engine goroutine; Latest
// copies out for any goroutine, without allocating.
//
// It drives the engines and the decoders, and draws on dual, dsp and
// plot; it knows nothing of flags or output formats. It owns the buffers
// it hands the engines; a call's work stays on its goroutine.
package transfer
