// Package sweep measures a system with Farina's exponential sine sweep:
// it makes the sweep (audio.ExpSweep with fades and silences) and its
// inverse filter, deconvolves a recording of it by FFT on an engine into
// the linear impulse response and the impulse responses of the harmonics
// 2…9 (which the exponential sweep separates in time: harmonic k comes
// L·ln k before the linear one), and derives from them the summary
// (latency, peak, SNR, polarity), the harmonic distortion versus frequency
// and the cumulative spectral decay. A loopback channel recorded beside
// the measurement serves as the timing reference: its own latency (the
// interface's and the audio system's) is taken out.
//
// It drives the engines of package engine (the one GPU→CPU fallback) and
// knows nothing of files, flags, devices or output formats. Everything it
// returns is the caller's; a call's work stays on its goroutine (and the
// engine's).
package sweep
