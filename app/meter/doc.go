// Package meter measures levels the way a meter bridge does: BS.1770-4 /
// EBU R128 loudness (Loudness: momentary, short-term, integrated,
// loudness range), sample and true peak and AES17 RMS (PeakMeter, in
// intervals), and Bank, the live level meters built on them with their
// ballistics (bars falling at FallDB per second, hold markers, RMS over
// RMSSeconds) and the last second of input kept for MeasureCalibrator.
// `prism levels` uses Loudness and PeakMeter on a file; package live feeds
// a Bank every block it reads.
//
// It imports dsp (dB rules, calibration) and nothing else of Prism's; it
// knows nothing of engines, files, devices or windows on screen.
// Loudness and PeakMeter are used by one goroutine at a time; a Bank is
// written by one goroutine and read by any (see Bank).
package meter
