// Package app is Prism without a window: the command-line commands
// (analyze, capture, devices, bench), the offline analysis pipeline that
// streams a file through an engine into NPY, CSV or PNG, and the live
// analyzer (Live) that turns a Recorder's stream into spectra, averages,
// holds, peaks and spectrogram history for the UI.
//
// It knows nothing about Fyne. It drives the gpufft engines and the audio
// package, and owns the buffers it hands them; results leave it as copies
// (Live.Latest, Live.Columns, Live.Stats), never as its own slices.
package app
