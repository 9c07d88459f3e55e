// Package archive computes long-term spectral averages (LTSA) and hybrid
// millidecade spectra (HMD) of whole archives of recordings: it catalogues
// the files in absolute time (from recorder file names, BWF bext chunks or
// a manifest), reports the gaps and overlaps between them, and streams
// their samples through an engine's batched spectrogram plans into Welch
// power averages over time bins aligned to absolute time, calibrated to
// dBFS/Hz, dB re 1 µPa²/Hz or dB re (20 µPa)²/Hz.
//
// It knows nothing of output files, shards or the window: callers receive
// rows through a callback, one bin at a time, so memory is bounded by one
// row and the read buffers, never by the archive. Rows handed to emit are
// the caller's to keep.
package archive
