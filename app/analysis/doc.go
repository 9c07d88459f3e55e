// Package analysis is Prism's analysis without a window or a command line:
// the file pipelines (AnalyzeFile to NPY, CSV or PNG; AnalyzeView for the
// window's file view; AnalyzeBands; FilterFile), the live analyzer (Live:
// a Recorder's stream into spectra, averages, holds, peaks, band levels and
// spectrogram history), the desktop session around it (Monitor, with its
// source switching and the MonitorOut band-filtered playback), Capture,
// and opening the engines (OpenEngines) with the one GPU→CPU fallback
// every pipeline uses.
//
// It drives the gpufft engines and the audio package and draws on the
// leaves dsp (signal rules), plot (axes, colours, images) and encode
// (output files); it knows nothing of Fyne or flags. It owns the buffers
// it hands the engines; results leave it as copies (Live.Latest,
// Live.Columns, Live.ReadStats), never as its own slices. Live's engine
// goroutine is the one that calls Step or Run; every other exported method
// says which goroutines may call it.
package analysis
