package ui

import (
	"context"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// Engine is what the window calls on the analysis: live.Monitor in the
// program, a fake in tests. Latest, Columns and ReadStats are called on
// the Fyne goroutine every frame and must not block for long; SetSource,
// AnalyzeView, AnalyzeSpectrum and ExportSpectrogram block and are called
// from goroutines of their own.
type Engine interface {
	view.SpectrumSource
	view.ColumnSource
	view.MeterSource
	// ResetMeters restarts the meters' holds, maxima and loudness
	// integration; it never blocks.
	ResetMeters()
	// MeasureCalibrator reads the last second of input channel c as a
	// calibrator's tone of toneHz at referenceDBSPL (live.Live's).
	MeasureCalibrator(c int, toneHz, referenceDBSPL float64) (dsp.LevelCal, error)
	ReadStats(dst *live.LiveStats)
	Frames() uint64 // frames analyzed so far: unchanged, nothing new to draw
	// SetPaused stops or resumes the live analysis (the source stays
	// open): the window stops it while a file is shown.
	SetPaused(paused bool)
	Apply(s live.LiveSettings)
	UseEngine(name string) // "gpu" or "cpu"
	HasGPU() bool
	// GPUOnCPU: the GPU engine's OpenCL device is a CPU (no GPU here).
	GPUOnCPU() bool
	SetSource(spec live.SourceSpec) (notice string, err error)
	Source() live.SourceSpec
	InputDevices() ([]string, error)
	// SetMonitorOutput plays the input to the default output device,
	// band-filtered by band ("" none), or stops (blocks while the device
	// opens); MonitorOutput describes it.
	SetMonitorOutput(on bool, band dsp.BandSpec) error
	MonitorOutput() string
	AnalyzeView(ctx context.Context, path string, o analysis.ViewOptions, progress analysis.Progress) (*analysis.FileSpectrogram, error)
	AnalyzeSpectrum(ctx context.Context, path string, o analysis.SpectrumOptions) (analysis.SpectrumResult, error)
	ExportSpectrogram(ctx context.Context, in, out string, format encode.Format, o analysis.ViewOptions, img plot.ImageOptions, progress analysis.Progress) error
	// ExportHistory writes the live spectrogram history (blocks: called
	// from a goroutine); StartRecording, StopRecording and RecordStatus
	// (live.Live's) never block, their outcome comes to the callbacks.
	ExportHistory(paths []string, chans []int, img plot.ImageOptions) (live.HistoryInfo, error)
	StartRecording(path string, c int, done func(error)) error
	StopRecording(done func(live.RecordStatus, error))
	RecordStatus() live.RecordStatus
}
