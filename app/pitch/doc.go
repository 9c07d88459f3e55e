// Package pitch estimates the fundamental frequency (f0) of a signal
// frame by frame with YIN (de Cheveigné and Kawahara, "YIN, a fundamental
// frequency estimator for speech and music", JASA 111(4), 2002): the
// squared-difference function of a frame (step 2), its cumulative mean
// normalization (step 3), the absolute threshold (step 4, the first dip
// below Threshold, followed down to its local minimum) and parabolic
// interpolation of the difference function around that minimum (step 5).
// Step 6 (the best local estimate) is left out: it searches again around
// each frame and would make an estimate depend on its neighbours. A frame
// with no dip below Threshold is unvoiced (f0 NaN); the confidence is
// 1 − the normalized difference at the chosen lag.
//
// Why YIN: it is the one of the usual estimators that is exact on a
// periodic signal (its difference function is zero at the period), needs
// no training or tables, decides voicing per frame (so the live trace
// needs no look-ahead), and its difference function is one FFT
// correlation plus running energies. pYIN adds a hidden Markov model over
// many YIN thresholds whose Viterbi decoding wants the whole track (not a
// live trace); SWIPE (Friture's, from libf0) needs a spectrum per
// octave-spaced window size and a loudness pitch-strength kernel, several
// times the cost. No Go YIN library in the module proxy was good enough:
// the one port found (go-yinfft, Essentia's YinFFT) works on a spectrum
// of its own, allocates per call and has no voicing decision, so the
// estimator is written here (about 200 lines, float64 throughout).
//
// The difference function is YIN's in a centred form: the mean of the
// squared differences of a W-sample window from the samples τ after it
// and from those τ before it, d(τ) = e(0) + (e(+τ) + e(−τ))/2 − r(+τ) −
// r(−τ), e the windows' energies (running sums) and r the window's
// cross-correlation with the frame, one real FFT of size ≥ W + 2τmax + 2
// (no wrap-around). Plain YIN compares the window with the samples after
// it only, so its estimate belongs to a point (τmax − τ)/2 samples before
// the frame's centre: on a vibrato or glide, up to 0.5 % off at 50 Hz
// lowest f0. The centred form's belongs to the centre whatever τ, and is
// still zero at the period of a periodic signal. Everything is float64:
// the sum cancels to d ≈ 0 at the period.
//
// A Detector owns its buffers and FFT; one goroutine uses it at a time.
// Track runs one over a whole signal, TrackFile over a decoded file
// (package audio's decoders, a channel or the mix); Stream runs one over
// a live stream (one goroutine pushes blocks, any copies the trace out).
// The package knows nothing of flags, devices or the window.
package pitch
