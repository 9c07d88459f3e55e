package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/levelhist"
	"github.com/prismaudio/prism/app/live/scopetap"
	"github.com/prismaudio/prism/app/meter"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
)

// Source kinds.
const (
	SourceDevice    = "device"
	SourceGenerator = "generator"
	SourceFile      = "file"
)

// SourceSpec chooses what a Session analyzes.
type SourceSpec struct {
	Kind      string // SourceDevice, SourceGenerator or SourceFile
	Device    string // SourceDevice: "", an index or a name substring (see `prism devices`)
	Generator string // SourceGenerator: a generator spec (sine:F:DB, …); "" = DefaultGenerator
	File      string // SourceFile: a WAV, FLAC or MP3 file, played in real time and looped
	Rate      int    // Hz; 0: the device's (or 48000 for the generator)
	Channels  int    // 0: the device's, up to 2 (or 2 for the generator)
}

// MixNoiseNote says how to read the generator's noise in the mix of
// channels (all false): its level is the RMS of each channel (AES17), and
// channels of independent noise average to 1/C of the power, 10·log10(C)
// dB lower ("" where the view does not mislead).
func (s SourceSpec) MixNoiseNote(channels int, all bool) string {
	g := s.Generator
	noise := strings.HasPrefix(g, "white") || strings.HasPrefix(g, "pink")
	if s.Kind != SourceGenerator || !noise || channels < 2 || all {
		return ""
	}
	return fmt.Sprintf("generator noise: %s dBFS RMS per channel; the mix of %d independent channels reads %.1f dB lower",
		strings.TrimPrefix(strings.TrimPrefix(g, "white:"), "pink:"), channels, 10*math.Log10(float64(channels)))
}

// String describes the spec for a status line.
func (s SourceSpec) String() string {
	switch s.Kind {
	case SourceGenerator:
		return "generator " + s.Generator
	case SourceFile:
		return "file " + s.File
	}
	if s.Device == "" {
		return "default input"
	}
	return "input " + s.Device
}

// Session is the live analyzer as a desktop window uses it: engines, a
// recorder on the chosen source, and a Live analyzer on its own engine
// goroutine, with the inactive engine timed in the background. Every
// method may be called from any goroutine.
type Session struct {
	engines engine.Pair
	live    *live.Live
	tap     *scopetap.Tap // the input's newest blocks (scope.go)
	stop    chan struct{}
	done    chan struct{}

	mu      sync.Mutex
	rec     *audio.Recorder
	spec    SourceSpec
	closed  bool
	out     *Playthrough // nil: playthrough off
	outOn   bool
	outBand dsp.BandSpec
	outErr  string
	xfer    transferState // the transfer analyzer (transfer.go)

	measuring atomic.Bool   // a sweep measurement runs (measure.go)
	stim      stimulusState // the stimulus played to the output (stimulus.go)
	mode      modeState     // an analysis mode beside the live analysis (modes.go)
}

// New opens src (falling back to the default generator, with a
// notice, when the default input device is asked for and there is none)
// and starts analyzing it with s on engines. The Session owns neither the
// engines nor their closing.
func New(src SourceSpec, s live.Settings, engines engine.Pair) (*Session, string, error) {
	rec, spec, notice, err := startSource(src)
	if err != nil {
		return nil, "", err
	}
	l, err := live.New(rec, engines, s)
	if err != nil {
		rec.Stop()
		return nil, "", err
	}
	m := &Session{engines: engines, live: l, rec: rec, spec: spec, stop: make(chan struct{}), done: make(chan struct{}), tap: scopetap.New(tapSeconds)}
	l.OnBlock(m.tap.Write)
	l.MeasureOther()
	go func() {
		defer close(m.done)
		l.Run(m.stop)
		l.Close()
	}()
	return m, notice, nil
}

// startSource starts a recorder on spec and returns the spec actually used.
func startSource(spec SourceSpec) (*audio.Recorder, SourceSpec, string, error) {
	var (
		open   func() (audio.Source, error)
		notice string
		err    error
	)
	switch spec.Kind {
	case SourceFile:
		if spec.File == "" {
			return nil, spec, "", errors.New("no file chosen")
		}
		path := spec.File
		src, ferr := audio.OpenFileSource(path, true)
		if ferr != nil {
			return nil, spec, "", ferr
		}
		src.Close()
		open = func() (audio.Source, error) { return audio.OpenFileSource(path, true) }
	case SourceGenerator:
		if spec.Generator == "" {
			spec.Generator = live.DefaultGenerator
		}
		open, _, err = live.OpenSource("", spec.Rate, spec.Channels, spec.Generator)
	case SourceDevice, "":
		spec.Kind = SourceDevice
		open, notice, err = live.OpenSource(spec.Device, spec.Rate, spec.Channels, "")
		if notice != "" {
			spec = SourceSpec{Kind: SourceGenerator, Generator: live.DefaultGenerator, Rate: spec.Rate, Channels: spec.Channels}
		}
	default:
		return nil, spec, "", fmt.Errorf("unknown source kind %q", spec.Kind)
	}
	if err != nil {
		return nil, spec, "", err
	}
	rec, err := audio.StartRecorder(open, 2)
	if err != nil {
		return nil, spec, "", err
	}
	return rec, spec, notice, nil
}

// Source is the spec in use (after any fallback to the generator).
func (m *Session) Source() SourceSpec {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spec
}

// SetSource switches to another source between batches. It returns once
// the switch is made, or with the reason it could not be (the current
// source then carries on) and the notice of any fallback.
func (m *Session) SetSource(spec SourceSpec) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", errors.New("monitor closed")
	}
	rec, used, notice, err := startSource(spec)
	if err != nil {
		return "", fmt.Errorf("%s: %w", spec, err)
	}
	res := make(chan error, 1)
	m.live.SwitchSource(rec, func(err error) { res <- err })
	if err := <-res; err != nil {
		rec.Stop()
		return "", err
	}
	m.rec.Stop()
	m.rec, m.spec = rec, used
	if m.outOn { // the output follows the new rate and channels
		m.startOutLocked()
	}
	m.restartTransferLocked() // so does the transfer analyzer
	if err := m.restartModeLocked(); err != nil {
		notice = strings.TrimSpace(notice + " analysis mode: " + err.Error())
	}
	return notice, nil
}

// SetPlaythrough turns the playthrough (the input played to the
// default output device, band-filtered by band, the zero BandSpec for
// none) on or off.
// With no output device it returns the reason and stays off.
func (m *Session) SetPlaythrough(on bool, band dsp.BandSpec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("monitor closed")
	}
	m.outOn, m.outBand = on, band
	if !on {
		m.stopOutLocked()
		m.outErr = ""
		return nil
	}
	return m.startOutLocked()
}

func (m *Session) startOutLocked() error {
	m.stopOutLocked()
	out, err := StartPlaythrough("", m.rec.SampleRate(), m.rec.Channels(), m.outBand, m.engines)
	if err != nil {
		m.outOn = false
		m.outErr = "monitor output: " + err.Error()
		return fmt.Errorf("monitor output: %w", err)
	}
	m.outErr = ""
	m.out = out
	m.live.SetTee(out.Ring())
	return nil
}

func (m *Session) stopOutLocked() {
	if m.out == nil {
		return
	}
	m.live.SetTee(nil)
	m.out.Close()
	m.out = nil
}

// PlaythroughStatus describes the playthrough ("" when off and no error).
func (m *Session) PlaythroughStatus() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.out != nil {
		return m.out.Status()
	}
	return m.outErr
}

// Latest is Live.Latest, or the analysis mode's while one runs (SetMode).
func (m *Session) Latest(c int, dst *live.Spectrum) {
	if run := m.mode.cur.Load(); run != nil {
		run.r.Latest(c, dst)
		return
	}
	m.live.Latest(c, dst)
}

// Columns is Live.Columns, or the analysis mode's while one runs.
func (m *Session) Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry) {
	if run := m.mode.cur.Load(); run != nil {
		return run.r.Columns(c, dst, after)
	}
	return m.live.Columns(c, dst, after)
}

// ExportHistory is Live.ExportHistory.
func (m *Session) ExportHistory(paths []string, chans []int, img plot.ImageOptions) (live.HistoryInfo, error) {
	return m.live.ExportHistory(paths, chans, img)
}

// StartRecording is Live.StartRecording.
func (m *Session) StartRecording(path string, c int, done func(error)) error {
	return m.live.StartRecording(path, c, done)
}

// StopRecording is Live.StopRecording.
func (m *Session) StopRecording(done func(live.RecordStatus, error)) { m.live.StopRecording(done) }

// RecordStatus is Live.RecordStatus.
func (m *Session) RecordStatus() live.RecordStatus { return m.live.RecordStatus() }

// StartAudioRecording is Live.StartAudioRecording.
func (m *Session) StartAudioRecording(path string, done func(error)) error {
	return m.live.StartAudioRecording(path, done)
}

// StopAudioRecording is Live.StopAudioRecording.
func (m *Session) StopAudioRecording(done func(live.AudioRecordStatus, error)) {
	m.live.StopAudioRecording(done)
}

// AudioRecordStatus is Live.AudioRecordStatus.
func (m *Session) AudioRecordStatus() live.AudioRecordStatus { return m.live.AudioRecordStatus() }

// SetPaused is Live.SetPaused: the window pauses the analysis while it
// shows a file.
func (m *Session) SetPaused(paused bool) { m.live.SetPaused(paused) }

// Frames is Live.Frames, or the analysis mode's while one runs.
func (m *Session) Frames() uint64 {
	if run := m.mode.cur.Load(); run != nil {
		return run.r.Frames()
	}
	return m.live.Frames()
}

// ReadStats is Live.ReadStats, or the analysis mode's while one runs.
func (m *Session) ReadStats(dst *live.Stats) {
	if run := m.mode.cur.Load(); run != nil {
		run.r.ReadStats(dst)
	} else {
		m.live.ReadStats(dst)
	}
	if msg := m.mode.err.Load(); msg != nil && dst.Status == "" {
		dst.Status = *msg
	}
}

// LevelHistory is Live.LevelHistory.
func (m *Session) LevelHistory() *levelhist.History { return m.live.LevelHistory() }

// ReadMeters is Live.ReadMeters.
func (m *Session) ReadMeters(dst *meter.Meters) { m.live.ReadMeters(dst) }

// ResetMeters is Live.ResetMeters.
func (m *Session) ResetMeters() { m.live.ResetMeters() }

// MeasureCalibrator is Live.MeasureCalibrator.
func (m *Session) MeasureCalibrator(c int, toneHz, referenceDBSPL float64) (dsp.LevelCal, error) {
	return m.live.MeasureCalibrator(c, toneHz, referenceDBSPL)
}

// Apply is Live.Apply.
func (m *Session) Apply(s live.Settings) { m.live.Apply(s) }

// UseEngine is Live.UseEngine ("gpu" or "cpu").
func (m *Session) UseEngine(name string) { m.live.UseEngine(name) }

// HasGPU says whether a GPU engine is there to switch to.
func (m *Session) HasGPU() bool { return m.engines.HasGPU() }

// GPUOnCPU says whether that GPU engine's OpenCL device is a CPU
// (engine.Pair.GPUOnCPU).
func (m *Session) GPUOnCPU() bool { return m.engines.GPUOnCPU() }

// InputDevices lists the input devices' names and the sound server's
// monitor sources' ("Monitor of …", opened by that name), or says why
// there are none.
func (m *Session) InputDevices() ([]string, error) {
	devs, err := audio.Devices()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range devs {
		if d.MaxInputChannels > 0 {
			names = append(names, strings.TrimSpace(d.Name))
		}
	}
	// what the sound server's outputs play, by their names
	if mons, err := audio.Monitors(); err == nil {
		for _, m := range mons {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return nil, audio.ErrNoInputDevice
	}
	return names, nil
}

// InputRates lists the standard rates (audio.StandardRates, 8 kHz…768
// kHz) the input device takes with channels channels (0: up to 2), by
// PortAudio's format check; device is as SourceSpec.Device has it.
func (m *Session) InputRates(device string, channels int) ([]int, error) {
	return audio.SupportedRates(device, channels)
}

// Close stops the analysis and the recorder. Calling it twice is harmless.
func (m *Session) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	m.stopOutLocked()
	m.stopTransferLocked()
	m.stopModeLocked()
	m.StopStimulus() // it takes no session lock
	close(m.stop)
	<-m.done
	m.rec.Stop()
}

// AnalyzeView is analysis.AnalyzeView on the session's engines.
func (m *Session) AnalyzeView(ctx context.Context, path string, o analysis.ViewOptions, progress analysis.Progress) (*analysis.FileSpectrogram, error) {
	return analysis.AnalyzeView(ctx, path, o, m.engines, progress)
}

// AnalyzeSpectrum is a file's long-term (Welch) spectrum exactly as
// `prism spectrum` computes it, on the session's engines.
func (m *Session) AnalyzeSpectrum(ctx context.Context, path string, o analysis.SpectrumOptions) (analysis.SpectrumResult, error) {
	return analysis.AnalyzeSpectrum(ctx, path, o, m.engines)
}

// ExportSpectrogram writes a file's spectrogram to out (npy, csv or png,
// by format) exactly as `prism analyze` does, on the session's engines.
func (m *Session) ExportSpectrogram(ctx context.Context, in, out string, format encode.Format, o analysis.ViewOptions, img plot.ImageOptions, progress analysis.Progress) error {
	opts := analysis.AnalyzeOptions{FFT: o.FFT, Hop: o.Hop, Window: o.Window, Channel: o.Channel, Image: img}
	_, err := analysis.AnalyzeFile(ctx, in, out, format, opts, m.engines, progress)
	return err
}

// ParseGeneratorSpec checks a signal generator spec (sine:F:DB,
// tones:F1,F2:DB, sweep:F0:F1:DB[:S], white:DB, pink:DB) for the UI.
func ParseGeneratorSpec(s string) (string, error) {
	g, err := audio.ParseGenerator(s)
	if err != nil {
		return "", err
	}
	return g.String(), nil
}
