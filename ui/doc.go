// Package ui is Prism's desktop window: the live plots, the file tab, the
// side panel and the status bar, built from Fyne widgets around the plots
// of package view.
//
// It knows the analysis only through the Engine interface (session.Session
// in the program, a fake in tests), made of the small interfaces each
// panel declares where it is used; it never sees PortAudio or OpenCL and
// does not link Fyne's GLFW driver (package desktop opens the real
// window), so its tests run on Fyne's test driver without a display.
//
// A window is panels over views. The views (package view) draw the data
// they are handed and never see the window. Each panel is one struct that
// owns its widgets and state and talks to the window through an interface
// of its own. Those in package panel (the File tab, the references, the
// recording, the status bar, the unit and calibration, the file dialogs)
// have a package boundary; the window serves their host interfaces on an
// adapter (host.go; the calibration's in calibration.go, which also
// applies the unit to the views), and gets the views and the reference
// set they own when it makes them. One panel stays here, because it reads
// and changes the Settings value itself:
//
//   - controls (controls.go, the option tables in controltables.go): the
//     side panel's settings, each select a table of {label, apply,
//     selected} rows; controlsHost.
//
// Package panel imports view and never ui; ui imports both.
//
// The window (window.go) builds the panels and lays them out, pulls the
// data every frame, applies settings (apply.go) and handles the keys
// (keys.go); beside them it draws the difference to a reference
// (references.go), gathers what the status bar shows (status.go) and
// exports the plots shown (export.go). Settings (settings.go) are typed values (plot.Scale,
// plot.Colormap, dsp.Weighting, the window function, dsp.BandSpec); names
// appear only where they are loaded and saved and in option labels.
//
// The display pulls: an endless fyne.Animation calls Window.Pull before
// every paint, which copies the newest spectra and spectrogram columns
// out of the engine (Latest, Columns) into buffers the views keep; none
// of that allocates in steady state (TestPullDoesNotAllocate). Settings
// changes never wait for the analysis: the window posts them to an
// applier goroutine that hands the engine the newest (ui/internal/applier), so
// spectra of the old FFT size keep arriving for a while and every view
// maps each spectrum by its own length. The harmonics are measured a few
// times a second on a goroutine of their own (harmonics.go). Every type
// here belongs to the Fyne goroutine; work on other goroutines (opening a
// source, analyzing a file) reports back through fyne.Do.
package ui
