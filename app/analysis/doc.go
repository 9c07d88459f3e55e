// Package analysis is Prism's offline analysis and the engines it runs on:
// opening the engines (OpenEngines; one per GPU with OpenEngineSet, or
// StartEngineSet, which hands each over as soon as it is open: opening
// an H200's context costs the driver 250–385 ms, two at once 605 ms on the
// two-GPU host, so a batch starts on the first; CloseSetForExit leaves
// them to a process's exit) with the one GPU→CPU fallback every
// pipeline uses (WithFallback), the FFT-size rule (CheckFFT), and the file
// pipelines — AnalyzeFile to NPY, CSV or PNG (AnalyzeFileSet spreading a
// WAV's PNG over several GPUs; a PlanPool keeping plans between the files
// of a batch; each file's Stages timed, and a batch's Busy summed from
// their spans; AnalyzeOptions.EngineDone saying when a file no longer
// needs its engines, so that a caller may release them while the output
// is finished: on the H200 a GPU to NPY file's rows are then written at
// the disk's pace, its 158–174 ms beside the 166 ms that writing the
// same bytes takes alone), AnalyzeView for the window's
// file view (and its columns' peak readout), AnalyzeBands (with a
// multirate bank for the lowest bands at high rates), AnalyzeSpectrum
// (Welch), FilterFile —
// streaming a file in bounded memory through an engine; and the
// measurements that need no engine, MeasureLevels (peaks, RMS, loudness),
// MeasureDistortion and MeasureCalibrator.
//
// It drives the gpufft engines and the audio decoders and draws on the
// leaves dsp (signal rules), plot (axes, colours, images) and encode
// (output files); it knows nothing of Fyne, flags or live devices (package
// live). It owns the buffers it hands the engines. Every function may be
// called from any goroutine; a call's work stays on the calling goroutine
// except the decoding that streams ahead on one of its own (and
// MeasureLevels' peak meter, which runs beside its loudness meter).
package analysis
