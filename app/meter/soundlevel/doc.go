// Package soundlevel is an IEC 61672-1 sound level meter on one channel
// of a stream: the A and C frequency weightings as IIR filters, the Fast
// (125 ms) and Slow (1 s) exponential time weightings, and per interval
// LAeq, LCeq, LAFmax, LASmax, LCpeak and the sample and true peak (Row),
// with the CSV form `prism levels --every` and `prism capture
// --levels-every` write.
//
// Levels are dB re a full-scale sine's RMS (AES17: a full-scale sine's
// LAeq at 1 kHz reads 0.00, its LCpeak 3.01, as a sound level meter's
// peak reads 3 dB above a sine's RMS level); a level calibration
// (dsp.LevelCal) adds its offset to turn them into dB SPL. The sample and
// true peak stay in dBFS and dBTP.
//
// It imports dsp (weightings, dB rules) and meter (the true-peak
// interpolator); it knows nothing of files, devices or windows. A Meter
// owns its buffers, does not allocate per block, and is used by one
// goroutine at a time.
package soundlevel
