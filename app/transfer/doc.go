// Package transfer is Prism's dual-channel file measurement (`prism
// transfer`): a reference channel and one or more measurement channels,
// from one file or two (WAV, FLAC, MP3 through the audio decoders), run
// through an engine's transfer plan (gpufft.TransferEngine: the cross- and
// auto-spectra averaged on the GPU or the CPU), and turned by app/dsp's
// transfer rules into, per measurement channel and bin, the magnitude in
// dB, the phase in degrees, the coherence, and a delay summary (the
// delay finder's GCC-PHAT peak, its polarity, or "no delay found").
//
// A file is measured in two passes when its delay is to be found: the
// first finds each channel's delay, the second runs again with each
// measurement channel advanced by its delay's whole samples, so that a
// frame of the reference and a frame of the measurement hold the same
// signal (a misalignment of D samples in frames of N caps the coherence
// near 1 − 6.6·(D/N)² with a Hann window); the fraction left is taken out
// of the phase by rule (dsp.RemoveDelay), as a given --delay is.
//
// It drives the engines (opened by package analysis, whose GPU→CPU
// fallback it uses) and the decoders, and draws on the leaves dsp and
// plot; it knows nothing of flags, files' output formats or live
// devices. It owns the buffers it hands the engines; a call's work stays
// on its goroutine.
package transfer
