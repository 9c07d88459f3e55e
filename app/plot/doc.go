// Package plot draws what Prism shows: frequency axes (lin, log, mel) and
// their mapping to pixel rows and FFT bins, tick positions and labels for
// frequency, time and dB, the colormaps with the one rule that turns a
// level into a colour, the one rule that folds levels into a pixel (by
// maximum, a NaN never winning: MaxLevel, MaxLevels, MaxOf; fold.go), and the spectrogram image with its axes and
// colorbar that `prism analyze`, `prism capture` and the window's exports
// write.
//
// It is a leaf: it imports no other Prism package than internal/pages (the
// raster's memory) and knows nothing of engines, files or Fyne; the
// window's rasters use its Shader and axes so the screen and the PNG agree
// pixel for pixel. Values are immutable once
// made and safe to share between goroutines; images are owned by the
// caller.
package plot
