package ui

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"sync"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/levelhist"
	"github.com/prismaudio/prism/app/live/scopetap"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/meter"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/app/transfer"
)

// fakeEngine is a deterministic analysis: every channel shows a 1 kHz
// tone at −6 dBFS over a floor falling 3 dB per octave from −70 dBFS at
// 100 Hz, and Columns hands out the frames the test queues.
type fakeEngine struct {
	mu       sync.Mutex
	levels   *levelhist.History // LevelHistory's
	rate, ch int
	fft, hop int
	engine   string
	hasGPU   bool
	gpuOnCPU bool
	applied  []live.Settings
	modes    []tfrlive.Settings // SetMode's
	source   session.SourceSpec
	frames   [][]float32 // queued columns (dB)
	next     uint64
	file     *analysis.FileSpectrogram
	views    []analysis.ViewOptions
	exported []string
	bands    []dsp.Band

	monitorOn   bool
	monitorBand string
	paused      bool   // SetPaused
	status      string // LiveStats.Status, e.g. a GPU fallback
	fileErr     error  // what AnalyzeView returns
	framesN     uint64
	frozen      bool                    // Frames stops counting
	latestN     int                     // Latest calls
	onLatest    func()                  // if set, called by every Latest first
	spectrum    []float32               // if set, every trace of Latest is this (dB, bins 0…N/2) plus its offset
	offset      float32                 // added to every level of Latest
	holdAnalyze bool                    // AnalyzeSpectrum waits for its context to end
	meterResets int                     // ResetMeters calls
	calErr      error                   // what MeasureCalibrator returns
	settle      func()                  // waits until the window has applied what it posted
	longFrames  uint64                  // the frames the long-term average holds: Apply restarts it
	longStep    uint64                  // added to longFrames by every Latest
	history     []historyCall           // ExportHistory calls
	record      live.RecordStatus       // what RecordStatus says
	recordErr   error                   // what StartRecording's done gets
	xfer        []transfer.LiveSettings // StartTransfer calls
	xferOn      bool
	xferFrames  uint64
	measures    []session.MeasureSettings // Measure calls
	measureRes  *session.Measurement      // what Measure returns (nil: it waits for the cancel)
	measureErr  error
	tap         *scopetap.Tap // ScopeSource (scope_test.go)
	pitchCalls  []string      // FilePitch's paths
}

func newFakeEngine() *fakeEngine {
	bands, _ := dsp.Bands(3, 20, 20000, 24000)
	return &fakeEngine{rate: 48000, ch: 2, fft: 4096, hop: 1024, engine: "opencl", hasGPU: true,
		source: session.SourceSpec{Kind: session.SourceGenerator, Generator: "sine:1000:-6"}, bands: bands}
}

// fakeLongOffset is the fake's long-term average less its current
// spectrum (dB): far from the other traces, so a plot shows which is drawn.
const fakeLongOffset = -20

// level is the fake spectrum's level at f.
func fakeLevel(f float64) float32 {
	floor := -70 - 10*math.Log10(math.Max(f, 1)/100)
	d := (f - 1000) / (48000.0 / 4096)
	tone := -6 - 6*d*d // a parabola in dB around the peak Latest reports
	return float32(math.Max(floor, math.Max(tone, -140)))
}

func (e *fakeEngine) Latest(c int, dst *live.Spectrum) {
	if e.onLatest != nil {
		e.onLatest()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.latestN++
	bins := e.fft/2 + 1
	if e.spectrum != nil {
		bins = len(e.spectrum)
	}
	binHz := float64(e.rate) / float64(2*(bins-1))
	fill := func(s []float32, off float32) []float32 {
		s = s[:0]
		for k := range bins {
			v := fakeLevel(float64(k) * binHz)
			if e.spectrum != nil {
				v = e.spectrum[k]
			}
			s = append(s, v+off+e.offset)
		}
		return s
	}
	dst.Current = fill(dst.Current, 0)
	dst.ExpAvg = fill(dst.ExpAvg, -3)
	dst.LinAvg = fill(dst.LinAvg, -4)
	dst.PeakHold = fill(dst.PeakHold, 3)
	dst.MinHold = fill(dst.MinHold, -10)
	dst.LongAvg = fill(dst.LongAvg, fakeLongOffset)
	e.longFrames += e.longStep
	dst.LongFrames = e.longFrames
	dst.BinHz = binHz
	dst.Geometry = live.Geometry{Rate: e.rate, FFT: 2 * (bins - 1), Hop: e.hop}
	note, cents := dsp.NoteName(1000) // the tone fakeLevel draws, read exactly
	dst.Peak = dsp.Peak{Freq: 1000, LevelDB: -6, Note: note, Cents: cents}
	dst.Bands = dst.Bands[:0]
	for _, b := range e.bands {
		dst.Bands = append(dst.Bands, dsp.BandLevel{Band: b, LevelDB: float64(fakeLevel(b.Exact))})
	}
	// only the traces asked for, as Live.Latest does
	want := dst.Want
	if want == 0 {
		want = live.WantAll
	}
	for i, t := range []*[]float32{&dst.Current, &dst.ExpAvg, &dst.LinAvg, &dst.LongAvg, &dst.PeakHold, &dst.MinHold} {
		if want&(1<<i) == 0 {
			*t = (*t)[:0]
		}
	}
	if want&live.WantCurrent == 0 {
		dst.Peak = dsp.Peak{}
	}
}

// fakeMeters are the fake's level meters: fixed values, different per
// channel, so a view that mixes them up shows it.
func fakeMeters(ch int) meter.Meters {
	m := meter.Meters{Channels: ch, Rate: 48000, Momentary: -18.24, ShortTerm: -19.43, MomentaryMax: -16.02,
		ShortTermMax: -18.31, Integrated: -20.07, Range: 4.52, Seconds: 65.4}
	for c := range ch {
		d := -3 * float64(c)
		m.Ch[c] = meter.Channel{SamplePeak: -12.5 + d, TruePeak: -11.9 + d, SamplePeakHold: -6.0 + d,
			TruePeakHold: -0.5 + d, TruePeakMax: -0.44 + d, RMS: -24.26 + d}
	}
	return m
}

// LevelHistory is an empty history of the fake's own (the strip's tests feed it).
func (e *fakeEngine) LevelHistory() *levelhist.History {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.levels == nil {
		e.levels = levelhist.New()
	}
	return e.levels
}

func (e *fakeEngine) ReadMeters(dst *meter.Meters) {
	e.mu.Lock()
	defer e.mu.Unlock()
	*dst = fakeMeters(e.ch)
}

func (e *fakeEngine) ResetMeters() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.meterResets++
}

// MeasureCalibrator finds the calibrator 26 dB below full scale: a 94 dB
// SPL calibrator makes the offset 120 dB.
func (e *fakeEngine) MeasureCalibrator(c int, toneHz, ref float64) (dsp.LevelCal, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.calErr != nil {
		return dsp.LevelCal{}, e.calErr
	}
	return dsp.CalFromRecording(-26, ref)
}

func (e *fakeEngine) Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	total := e.next + uint64(len(e.frames))
	if after > total {
		after = 0
	}
	n := 0
	for col := max(after, e.next); col < total && n < len(dst); col++ {
		dst[n] = append(dst[n][:0], e.frames[col-e.next]...)
		n++
	}
	var geo live.Geometry // of the newest column: the fake's columns may change size
	if len(e.frames) > 0 {
		geo = live.Geometry{Rate: 48000, FFT: 2 * (len(e.frames[len(e.frames)-1]) - 1), Hop: 1024}
	}
	return n, max(after, e.next) + uint64(n), geo
}

// queue adds frames for Columns.
func (e *fakeEngine) queue(frames ...[]float32) {
	e.mu.Lock()
	e.frames = append(e.frames, frames...)
	e.mu.Unlock()
}

// Frames counts up by one per call, so every Pull finds something new
// unless the test holds it (frozen).
func (e *fakeEngine) SetPaused(paused bool) {
	e.mu.Lock()
	e.paused = paused
	e.mu.Unlock()
}

func (e *fakeEngine) Frames() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.frozen {
		e.framesN++
	}
	return e.framesN
}

func (e *fakeEngine) ReadStats(dst *live.Stats) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := dst.EngineMs
	if m == nil {
		m = map[string]float64{}
	}
	*dst = live.Stats{Engine: e.engine, Device: "fake device", Source: e.source.String(), SampleRate: e.rate,
		Channels: e.ch, FFT: e.fft, Hop: e.hop, MsPerBatch: 0.5, FramesPerBatch: 4, FramesPerSec: 187.5, Frames: e.framesN, LatencyP99Ms: 2, Status: e.status}
	m["opencl"], m["cpu"] = 0.25, 2.0
	dst.EngineMs = m
}

// SetMode records the analysis modes asked for (session.Session.SetMode).
func (e *fakeEngine) SetMode(s tfrlive.Settings) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.modes = append(e.modes, s)
}

func (e *fakeEngine) Apply(s live.Settings) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.applied = append(e.applied, s)
	e.fft, e.hop = s.FFT, s.Hop
	e.longFrames = 0
}

func (e *fakeEngine) lastApplied() live.Settings {
	if e.settle != nil {
		e.settle()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.applied[len(e.applied)-1]
}

func (e *fakeEngine) UseEngine(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if name == "gpu" {
		name = "opencl"
	}
	e.engine = name
}

func (e *fakeEngine) HasGPU() bool   { return e.hasGPU }
func (e *fakeEngine) GPUOnCPU() bool { return e.gpuOnCPU }

func (e *fakeEngine) SetSource(spec session.SourceSpec) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.source = spec
	return "", nil
}

func (e *fakeEngine) Source() session.SourceSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.source
}

func (e *fakeEngine) InputDevices() ([]string, error) { return []string{"Null Input"}, nil }

// InputRates: the fake's input takes 44.1, 48, 96 and 384 kHz.
func (e *fakeEngine) InputRates(device string, channels int) ([]int, error) {
	return []int{44100, 48000, 96000, 384000}, nil
}

func (e *fakeEngine) SetPlaythrough(on bool, band dsp.BandSpec) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.monitorOn, e.monitorBand = on, band.String()
	return nil
}

func (e *fakeEngine) PlaythroughStatus() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.monitorOn {
		return ""
	}
	return "monitor → fake output, " + e.monitorBand
}

func (e *fakeEngine) AnalyzeView(_ context.Context, path string, o analysis.ViewOptions, _ analysis.Progress) (*analysis.FileSpectrogram, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.views = append(e.views, o)
	if e.fileErr != nil {
		return nil, e.fileErr
	}
	return e.file, nil
}

// AnalyzeSpectrum is the real long-term spectrum, on the CPU engine.
func (e *fakeEngine) AnalyzeSpectrum(ctx context.Context, path string, o analysis.SpectrumOptions) (analysis.SpectrumResult, error) {
	e.mu.Lock()
	hold := e.holdAnalyze
	e.mu.Unlock()
	if hold {
		<-ctx.Done()
		return analysis.SpectrumResult{}, ctx.Err()
	}
	eng, _, err := engine.Open(engine.CPU, "")
	if err != nil {
		return analysis.SpectrumResult{}, err
	}
	defer eng.Close()
	return analysis.AnalyzeSpectrum(ctx, path, o, eng)
}

func (e *fakeEngine) ExportSpectrogram(_ context.Context, in, out string, format encode.Format, o analysis.ViewOptions, img plot.ImageOptions, _ analysis.Progress) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.exported = append(e.exported, out)
	return nil
}

// syntheticFile is a 4 s file spectrogram: a tone rising from 500 Hz to
// 4 kHz over a −90 dBFS floor, with a 10 ms click (broadband) at 2 s.
func syntheticFile() *analysis.FileSpectrogram {
	const rate, n, hop = 48000, 1024, 256
	frames := (4*rate-n)/hop + 1
	fs := &analysis.FileSpectrogram{Path: "synthetic.wav", Rate: rate, Channels: 1, Samples: 4 * rate, Duration: 4,
		FFT: n, Hop: hop, Channel: -1, Frames: frames, FramesPerColumn: 1, Engine: "fake"}
	bins := n/2 + 1
	binHz := float64(rate) / n
	for i := range frames {
		t := (float64(i*hop) + n/2) / rate
		f := 500 * math.Pow(8, t/4)
		col := make([]float32, bins)
		for k := range col {
			d := math.Abs(float64(k)*binHz-f) / binHz
			col[k] = float32(math.Max(-90, -10-20*d))
		}
		if math.Abs(t-2) < 0.005 {
			for k := range col {
				col[k] = -30
			}
		}
		fs.Columns = append(fs.Columns, col)
	}
	return fs
}

// historyCall is one ExportHistory call of the fake.
type historyCall struct {
	paths []string
	chans []int
}

// ExportHistory records the call and says the columns fold 3 frames.
func (e *fakeEngine) ExportHistory(paths []string, chans []int, _ plot.ImageOptions) (live.HistoryInfo, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.history = append(e.history, historyCall{paths, chans})
	geo := live.Geometry{Rate: e.rate, FFT: e.fft, Hop: e.hop}
	cg := geo
	cg.Hop *= 3
	return live.HistoryInfo{Geometry: geo, ColumnGeometry: cg, FramesPerColumn: 3, Columns: 10}, nil
}

// StartRecording refuses a .png at once, else starts (or fails with
// recordErr) in the background, as live.Live's engine goroutine does.
func (e *fakeEngine) StartRecording(path string, c int, done func(error)) error {
	if filepath.Ext(path) == ".png" {
		return errors.New("live: record: record as .npy or .csv")
	}
	go func() {
		e.mu.Lock()
		err := e.recordErr
		if err == nil {
			e.record = live.RecordStatus{Active: true, Path: path, Channel: c,
				Geometry: live.Geometry{Rate: e.rate, FFT: e.fft, Hop: e.hop}, Frames: 42, Gaps: 2}
		}
		e.mu.Unlock()
		done(err)
	}()
	return nil
}

// StopRecording ends the fake's recording, its file saved.
func (e *fakeEngine) StopRecording(done func(live.RecordStatus, error)) {
	go func() {
		e.mu.Lock()
		e.record.Active, e.record.Saved = false, true
		st := e.record
		e.mu.Unlock()
		done(st, nil)
	}()
}

func (e *fakeEngine) RecordStatus() live.RecordStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.record
}

// The fake's transfer analyzer: StartTransfer records the settings; the
// result is one 1-kHz-peaked channel per measurement channel, each 3 dB
// under the one before, coherence 1, the delay 2.5 ms (120 samples).
func (e *fakeEngine) StartTransfer(s transfer.LiveSettings) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.Channels == nil || s.RefChannel >= e.ch {
		return errors.New("live: transfer: no measurement channel")
	}
	e.xfer = append(e.xfer, s)
	e.xferOn = true
	return nil
}

func (e *fakeEngine) StopTransfer() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.xferOn = false
}

func (e *fakeEngine) TransferStatus() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.xferOn {
		return ""
	}
	return "transfer: fake"
}

func (e *fakeEngine) PlayStimulus(spec string) error {
	return errors.New("audio: no output device (fake)")
}
func (e *fakeEngine) StopStimulus()          {}
func (e *fakeEngine) StimulusStatus() string { return "" }

func (e *fakeEngine) FindDelays(dst []dual.Delay, phat bool) int {
	for c := range dst {
		dst[c] = dual.Delay{Found: true, Samples: 120, Polarity: 1, PeakRatio: 50}
	}
	return len(dst)
}

// lastTransfer is the last StartTransfer's settings.
func (e *fakeEngine) lastTransfer() (transfer.LiveSettings, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.xfer) == 0 {
		return transfer.LiveSettings{}, false
	}
	return e.xfer[len(e.xfer)-1], e.xferOn
}

func (e *fakeEngine) LatestTransfer(dst *transfer.LiveResult) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.xferOn {
		return false
	}
	s := e.xfer[len(e.xfer)-1]
	m, bins := len(s.Channels), s.FFT/2+1
	if len(dst.MagnitudeDB) != m || len(dst.MagnitudeDB[0]) != bins {
		dst.MagnitudeDB, dst.PhaseDeg, dst.Coherence = make([][]float64, m), make([][]float64, m), make([][]float64, m)
		for c := range m {
			dst.MagnitudeDB[c], dst.PhaseDeg[c], dst.Coherence[c] = make([]float64, bins), make([]float64, bins), make([]float64, bins)
		}
		dst.Delays = make([]transfer.TrackedDelay, m)
	}
	dst.Channels = append(dst.Channels[:0], s.Channels...)
	dst.Geometry = live.Geometry{Rate: e.rate, FFT: s.FFT, Hop: s.Hop}
	dst.Tracked, dst.Averaged = s.Track, max(s.Frames, 1)
	e.xferFrames++
	dst.Frames = e.xferFrames
	binHz := float64(e.rate) / float64(s.FFT)
	for c := range m {
		dst.Delays[c] = transfer.TrackedDelay{Delay: dual.Delay{Found: true, Samples: 120, Polarity: 1}, Finds: 1}
		for k := range bins {
			x := math.Log2(math.Max(float64(k)*binHz, 1) / 1000)
			dst.MagnitudeDB[c][k] = 6*math.Exp(-x*x*8) - 3*float64(c)
			dst.PhaseDeg[c][k] = 60 * math.Exp(-x*x*8) * math.Copysign(1, x)
			dst.Coherence[c][k] = 1
		}
	}
	return true
}

func (e *fakeEngine) TransferImpulse(ch int, ir, etc []float64) (dual.Delay, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.xferOn || len(e.xfer) == 0 || len(ir) < e.xfer[len(e.xfer)-1].FFT {
		return dual.Delay{}, false
	}
	n := e.xfer[len(e.xfer)-1].FFT
	for i := range n {
		ir[i], etc[i] = 0, -100
	}
	ir[n/2], etc[n/2] = 1, 0
	return dual.Delay{Found: true, Samples: 0, Polarity: 1}, true
}

// The fake's sweep measurement: Measure records the settings, reports
// one step and returns measureRes and measureErr, or without a result
// waits until it is cancelled.
func (e *fakeEngine) Measure(ctx context.Context, s session.MeasureSettings, progress func(string)) (*session.Measurement, error) {
	e.mu.Lock()
	e.measures = append(e.measures, s)
	res, err := e.measureRes, e.measureErr
	e.mu.Unlock()
	progress("sweep 1 of 1: playing")
	if res == nil && err == nil {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return res, err
}

func (e *fakeEngine) OutputDevices() ([]string, error) { return []string{"Null Output"}, nil }
