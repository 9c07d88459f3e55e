package ui

import (
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/ui/view"
)

// Engine is what the window calls on the analysis: session.Session in the
// program, a fake in tests. Latest, Columns and ReadStats are called on
// the Fyne goroutine every frame and must not block for long; SetSource,
// AnalyzeView, AnalyzeSpectrum and ExportSpectrogram block and are called
// from goroutines of their own.
type Engine interface {
	view.SpectrumSource
	view.ColumnSource
	view.MeterSource
	panel.CalEngine    // MeasureCalibrator (the calibration panel)
	panel.FileEngine   // the file tab's analyses
	panel.RecordEngine // the history's export and the recording
	// the Transfer tab's analyzer (session.Session's transfer mode):
	// LatestTransfer and TransferImpulse are called on the Fyne
	// goroutine every frame, the others from a goroutine of the window's
	panel.TransferEngine
	// the Measure tab's sweep measurement (session.Session's Measure),
	// called from a goroutine of the panel's
	panel.MeasureEngine
	panel.ArchiveEngine // the Archive tab's catalogues and LTSAs (session.Session's)
	panel.LevelEngine   // the level-history strip's history
	panel.ScopeEngine   // the scope's and pitch trace's tap, a file's pitch track
	panel.ModeEngine    // the analysis modes (session.Session's SetMode), from a goroutine of the window's
	// ResetMeters restarts the meters' holds, maxima and loudness
	// integration; it never blocks.
	ResetMeters()
	ReadStats(dst *live.Stats)
	Frames() uint64 // frames analyzed so far: unchanged, nothing new to draw
	// SetPaused stops or resumes the live analysis (the source stays
	// open): the window stops it while a file is shown.
	SetPaused(paused bool)
	Apply(s live.Settings)
	UseEngine(name string) // "gpu" or "cpu"
	HasGPU() bool
	// GPUOnCPU: the GPU engine's OpenCL device is a CPU (no GPU here).
	GPUOnCPU() bool
	SetSource(spec session.SourceSpec) (notice string, err error)
	Source() session.SourceSpec
	InputDevices() ([]string, error)
	// InputRates lists the standard rates an input device takes (it may
	// block while the device is asked).
	InputRates(device string, channels int) ([]int, error)
	// SetPlaythrough plays the input to the default output device,
	// band-filtered by band (the zero value: none), or stops (blocks while
	// the device opens); PlaythroughStatus describes it.
	SetPlaythrough(on bool, band dsp.BandSpec) error
	PlaythroughStatus() string
}
