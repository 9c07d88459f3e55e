// Package view holds the plots of Prism's window that never need the
// window: the live spectrum (spectrum.go, with its reference traces in
// reference.go and harmonic markers in harmonics.go), the scrolling
// waterfall, the RTA bars, the level meters, the line plot the
// differences and A/B spectra are drawn in (lineplot.go, abview.go), the
// file view's spectrogram, and the live transfer function (transfer.go,
// transfer_draw.go), the oscilloscope (scope.go, package app/scope's
// trigger) and the pitch trace with the file view's pitch overlay
// (pitch.go, package app/pitch's YIN). Under them: the raster base they share
// (plot.go), the painter and palettes (draw.go), the mapping of bins to
// pixel columns (freqmap.go), the time axis and durations for people
// (timeaxis.go), the conversions of the engine's dBFS spectra into the
// unit shown (units.go), what the window reads back of a view
// (readback.go), and how the spectra are framed beyond the dB range
// (PlotView, plotview.go: the frequency range and smoothing the window
// saves and hands them).
//
// A view draws the data it is handed or pulls through a small source
// interface (SpectrumSource, ColumnSource, MeterSource, TransferSource,
// scope.Source)
// and knows nothing
// of the window, the settings or the controls; it imports only Fyne,
// app/plot, app/dsp, app/scope, app/pitch and the session's data types (live.Spectrum,
// analysis.FileSpectrogram, transfer.LiveResult and app/dual's rules,
// a sweep measurement's sweep.Result and room.Result, the window function
// window.Func). Package
// ui builds the window out of these views. Each view belongs to the Fyne goroutine and owns its buffers:
// an image is remade only when the widget's pixel size changes, grids and
// labels are drawn once into a cached background, and a steady-state pull
// and draw allocate nothing (TestPullDoesNotAllocate). Every view maps
// each spectrum or column by its own length (N/2+1 bins, binMaps), never
// by the FFT size it was last told, since a settings change reaches the
// analysis while spectra of the old size still arrive. An analysis mode's
// spectra and columns (multi-resolution, variable-Q, reassigned) carry
// their bins' centre frequencies, and every mapping, level and reference
// goes through that table (modes.go); the note axis is there too.
package view
