// Package ui is Prism's desktop window: the live spectrum, the scrolling
// waterfall and the RTA bars, the file view, the controls and the status
// bar, built from Fyne widgets.
//
// It knows the analysis only through the Engine interface (session.Session in
// the program, a fake in tests) and never sees PortAudio or OpenCL; it
// does not link Fyne's GLFW driver either (package desktop opens the real
// window), so its tests run on Fyne's test driver without a display.
//
// The plots draw into images they own through canvas.Raster: an image is
// remade only when the widget's pixel size changes, grids and labels are
// drawn once into a cached background, and each frame copies the
// background and draws the traces, waterfall rows or bars over it (and
// the spectrum's legend, whose long-term average label counts seconds). The
// display pulls: an endless fyne.Animation calls Window.Pull before every
// paint, which copies the newest spectra and spectrogram columns out of
// the engine (Latest, Columns) into buffers the views keep; none of that
// allocates in steady state (TestPullDoesNotAllocate).
//
// Settings changes never wait for the analysis: the window posts them to
// an applier goroutine that hands the engine the newest (applier.go), so
// spectra and columns of the old FFT size keep arriving for a while; every
// view therefore maps each spectrum or column by its own length (N/2+1
// bins, binMaps in freqmap.go), never by the size it was last told. The
// waterfall keeps its history in dB and re-renders it on any display
// change.
//
// Files by role: window.go (the window, its layout and the per-frame
// pull), apply.go (settings → engine and views), keys.go, status.go,
// controls.go (the controls panel), calibration.go (the spectrum's unit,
// the level calibration and the microphone response: their controls,
// dialogs and settings), units.go (the conversion of the engine's dBFS
// spectra into the unit shown, which the live spectrum and RTA pull
// through), files.go and opendialog.go (the file tab, exports, dialogs),
// record.go (the live history's export and the full-resolution Record
// toggle, with their status),
// and one file per view (meters.go: the level meters, pulled every
// tick). The measurements over the spectra: reference.go (stored
// reference traces, dsp.Trace, and the difference to one), refstore.go
// (the references kept between sessions in Options.ReferenceDir),
// refpanel.go (their part of the panel), harmonics.go (harmonic markers and the
// distortion readout, dsp.AnalyzeDistortion on the spectrum shown, a few
// times a second on a goroutine of its own), abview.go (two files'
// long-term spectra and B − A), lineplot.go (the plot those differences
// and spectra are drawn in). Every type here
// belongs to the Fyne goroutine; work on other goroutines (opening a
// source, analyzing a file) reports back through fyne.Do.
package ui
