// Package live is Prism's real-time analysis: Live turns a Recorder's
// stream into spectra, exponential, linear and long-term averages, peak
// and min holds, the dominant peak, RTA band levels and a spectrogram
// history, batch by batch on one engine (falling back to the CPU if the
// GPU fails, by package engine's rule) — the averages, holds, band sums
// and the history's columns are computed on the engine itself
// (gpufft.LivePlan), and only what is shown or recorded comes back —,
// with the other engine timed in the background on copies of the same
// batches (package capture records a live spectrogram to a file through
// OnBatch). On demand Live
// exports its spectrogram history as kept (history.go: NPY, CSV or PNG
// with a JSON sidecar saying the columns' spacing and how many frames
// each folds) and records every analyzed frame of one output channel at
// full resolution while asked (record.go: the live plan's own columns up
// to 500 frames/s, above that a second, one-channel live plan on a
// one-frame grid run beside it on the same batch; the rows go through
// package rowsink's sink, as a capture's do, so the view's folded
// waterfall is unchanged and gaps are NaN rows at their place). Live also feeds every block of input it
// reads to a meter.Bank, the level meters, read with ReadMeters.
// StatsKeeper gathers the statistics of any analyzer fed from a recorder
// (Live's, and package transfer's live measurement).
//
// Live's engine goroutine is the one that calls Step or Run; it owns the
// plan, the buffers and the post-processing state. Other goroutines copy
// results out (ReadMeters; Latest, Columns, ReadStats: each result carries
// the Geometry it was computed with; a channel the current source lacks
// reads empty) and change settings with Apply, UseEngine and
// SwitchSource, which take effect between batches. It imports engine
// (the engines and their fallback), dsp, meter and rowsink; it knows
// nothing of Fyne, flags, file pipelines (package analysis), capture to a
// file (package capture) or the desktop session (package session).
package live
