// Package session is the desktop window's session: Session opens a source
// (an input device, the signal generator, or a file played in real time),
// runs a live.Live on it on its own engine goroutine (with the inactive
// engine timed in the background), switches sources and settings without
// stopping, plays the input through with Playthrough (band-filtered by
// FFT convolution on the engines, falling back to the CPU), and runs the
// file pipelines of package analysis on the same engines for the
// window's file view, spectra and exports.
//
// It knows nothing of Fyne; package ui talks to it through small
// interfaces of its own. Every method of Session may be called from any
// goroutine; Playthrough's audio runs on goroutines of its own.
package session
