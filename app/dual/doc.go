// Package dual holds the rules of dual-channel measurement, in float64:
// the cross- and auto-spectra of a reference and a measurement averaged
// over frames (FIFO or exponential, complex or polar), the transfer
// function, coherence, phase with a delay taken out, unwrapping and group
// delay, fractional-octave smoothing of power and of complex responses,
// the delay finder (the impulse response's peak, optionally GCC-PHAT
// weighted, placed between samples by band-limited interpolation, with
// its polarity, and "no clear peak" instead of a number when the peak does
// not stand out), the energy-time curve and spatial averages.
//
// It knows nothing of engines, devices or files: the engines accumulate
// the spectra (gpufft's transfer plans), app/live and app/transfer feed
// them here. Callers own every buffer; the per-frame calls do not
// allocate.
package dual
