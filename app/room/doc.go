// Package room computes what a room-acoustics user reads from an impulse
// response: per octave or third-octave band (IEC 61260-1 mid-band
// frequencies) and broadband, the reverberation times EDT, T20 and T30
// from the Schroeder backward integral, and the clarity and definition
// indices C50, C80 and D50, as ISO 3382-1 and -2 define them; and the
// frequency response (magnitude, phase, group delay, fractional-octave
// smoothed) and energy–time curve of the response.
//
// Each band's response is the impulse response filtered zero-phase (in
// the frequency domain) by the magnitude of a third-order Butterworth
// band-pass on the band's edges, −3 dB at each edge, which meets IEC
// 61260-1 class 1; zero phase keeps the filter's own delay out of the
// decay's start, as the standard asks of filters applied time-reversed.
// The time origin is the broadband response's onset (ISO 3382-1 A.3.4:
// where the squared response first rises to 20 dB below its peak). The
// noise floor and the truncation point of each decay are found by
// Lundeby's iteration (Lundeby, Vigran, Bietz and Vorländer, Acta
// Acustica 81, 1995), and the energy the truncation leaves out is added
// back from the late decay's slope (their compensation C), so that the
// Schroeder curve does not bend on the noise. A parameter whose
// evaluation range the decay above the noise does not cover (ISO 3382-1:
// an impulse-to-noise ratio of at least 45 dB for T30, 35 dB for T20, 20
// dB for EDT) is NaN, never a guess.
//
// It works in float64 with gonum's FFT: an impulse response is seconds
// long and analyzed once, and the answers are compared with decays
// computed in float64, so the engines' float32 batches would buy nothing.
package room
