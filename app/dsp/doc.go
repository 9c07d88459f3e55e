// Package dsp holds Prism's signal-processing rules that are not FFTs:
// the conversion of power to dB, window sums (coherent gain, ENBW), band
// filter specs and their linear-phase FIR design, IEC 61260-1
// fractional-octave bands with IEC 61672-1 A/C/Z weighting, and the
// dominant peak of a spectrum with its note name (WindowKernel.PeakDB,
// the one peak readout); and the measuring instrument's mathematics: Welch
// power averaging read as sine level or noise density (Welch, Unit), tone
// estimation between bins (WindowKernel: RefineBin by a per-window table,
// O(1) per call; RefineFrame), THD, THD+N, SNR and SINAD (Distortion,
// DistortionMeter), calibration to dB SPL (LevelCal, MicResponse) and
// reference traces (Trace); and the framing rules every pipeline shares
// (FrameCount, PadFront, ChannelName; the band filter's BandFIR, BandTaps
// and BandGains). Level meters (loudness, true peak) are package meter's.
//
// It is a leaf: it imports only the standard library, gonum's float64
// FFT (dsp/fourier, for DistortionMeter's spectra) and internal/kaiser
// (the Kaiser window, shared with gpufft's), knows nothing of
// engines, files, devices or windows on screen, and each rule lives here
// once, so the command line, the file pipelines, the live analyzer and the
// desktop window give the same numbers. Functions are pure or own all their
// state; types with a hot-path method (BandAccumulator.Frame) say in their
// doc whether it allocates. Nothing here starts a goroutine; a value may be
// used by one goroutine at a time.
package dsp
