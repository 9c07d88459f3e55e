package ui

import (
	"context"

	"github.com/prismaudio/prism/app"
)

// Engine is what the window calls on the analysis: app.Monitor in the
// program, a fake in tests. Latest, Columns and ReadStats are called on
// the Fyne goroutine every frame and must not block for long; SetSource,
// AnalyzeView and ExportSpectrogram block and are called from goroutines
// of their own.
type Engine interface {
	SpectrumSource
	ColumnSource
	ReadStats(dst *app.LiveStats)
	Frames() uint64 // frames analyzed so far: unchanged, nothing new to draw
	Apply(s app.LiveSettings)
	UseEngine(name string) // "gpu" or "cpu"
	HasGPU() bool
	SetSource(spec app.SourceSpec) (notice string, err error)
	Source() app.SourceSpec
	InputDevices() ([]string, error)
	// SetMonitorOutput plays the input to the default output device,
	// band-filtered by band ("" none), or stops (blocks while the device
	// opens); MonitorOutput describes it.
	SetMonitorOutput(on bool, band string) error
	MonitorOutput() string
	AnalyzeView(ctx context.Context, path string, o app.ViewOptions, progress app.Progress) (*app.FileSpectrogram, error)
	ExportSpectrogram(ctx context.Context, in, out, format string, o app.ViewOptions, img app.ImageOptions, progress app.Progress) error
}
