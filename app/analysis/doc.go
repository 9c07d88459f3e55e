// Package analysis is Prism's offline analysis of files: AnalyzeFile to
// NPY, CSV or PNG (AnalyzeFileSet spreading a WAV's PNG over several
// GPUs; plans kept between the files of a batch by the engines'
// engine.PlanPool; each file's Stages timed, and a batch's Busy summed
// from their spans; AnalyzeOptions.EngineDone saying when a file no
// longer needs its engines, so that a caller may release them while the
// output is finished), AnalyzeView for the window's file
// view (and its columns' peak readout), AnalyzeBands (with a multirate
// bank for the lowest bands at high rates), AnalyzeSpectrum (Welch),
// FilterFile — streaming a file in bounded memory through an engine —;
// and the measurements that need no engine, MeasureLevels (peaks, RMS,
// loudness), MeasureDistortion and MeasureCalibrator.
//
// Every pipeline that wants a spectrogram's rows goes through one loop,
// streamRows (rows.go): a source's frames through an engine to the
// pipeline's consumer, the file's bytes sent to the engine undecoded
// (pcmfile.go) or decoded a batch ahead (stream.go) as newSource chose
// once; the measurements read through one decode loop, decodeBlocks. The
// engines, their GPU→CPU fallback and the FFT-size rule are package
// engine's.
//
// It drives the gpufft engines (through engine.Pair) and the audio
// decoders and draws on the leaves dsp (signal rules), meter (levels),
// plot (axes, colours, images) and encode (output files); it knows
// nothing of Fyne, flags or live devices (package live). It owns the
// buffers it hands the engines. Every function may be called from any
// goroutine; a call's work stays on the calling goroutine except the
// decoding that streams ahead on one of its own (and MeasureLevels' peak
// meter, which runs beside its loudness meter).
package analysis
