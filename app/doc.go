// Package app is Prism without a window: the command-line commands and,
// as the live-capture and offline-analysis issues land, the analysis
// pipeline that feeds the UI. It knows nothing about Fyne; it drives the
// gpufft engines and the audio package and owns the buffers it hands them.
package app
