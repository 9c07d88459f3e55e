package live

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/dsp/bandlimit"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Stats describe the analysis at any time.
type Stats struct {
	Engine         string             `json:"engine"`
	Device         string             `json:"device"`
	Source         string             `json:"source"`
	SampleRate     int                `json:"sample_rate"`
	Channels       int                `json:"channels"`
	FFT            int                `json:"fft"`
	Hop            int                `json:"hop"`
	MsPerBatch     float64            `json:"ms_per_batch"` // latest engine call, all channels
	BatchP50Ms     float64            `json:"batch_p50_ms"` // engine call (upload, kernels, download), recent batches
	BatchP99Ms     float64            `json:"batch_p99_ms"`
	FramesPerBatch float64            `json:"frames_per_batch"`    // per channel, mean
	EngineMs       map[string]float64 `json:"engine_ms_per_batch"` // each engine's recent mean (the inactive one measured on copies of the same batches, see MeasureOther)
	FramesPerSec   float64            `json:"frames_per_s"`        // per channel
	Frames         uint64             `json:"frames"`              // per channel, analyzed
	LatencyP50Ms   float64            `json:"latency_p50_ms"`      // sample arrival → spectrum published
	LatencyP99Ms   float64            `json:"latency_p99_ms"`
	LatencyMaxMs   float64            `json:"latency_max_ms"`
	DroppedFrames  uint64             `json:"dropped_input_frames"` // input frames (one sample per channel) the timeline lost: overflow + outage
	Overflows      uint64             `json:"input_overflows"`      // device buffers dropped by PortAudio
	Stalls         uint64             `json:"stalls"`
	Reopens        uint64             `json:"reopens"`
	Status         string             `json:"status,omitempty"` // errors and fallbacks, e.g. "GPU failed: … — using the CPU"

	// Of DroppedFrames: overflow, input lost because something fell behind
	// (the analysis: overwritten in the ring before it read them; or the
	// reader: dropped by the device, PortAudio's input overflow, measured on
	// the arrival times), and outages (no input while the source was gone
	// or reopened; in a capture, the outage still going on at its deadline
	// too); Outages counts the latter.
	DroppedOverflowFrames uint64 `json:"dropped_overflow_frames"`
	DroppedOutageFrames   uint64 `json:"dropped_outage_frames"`
	Outages               uint64 `json:"outages"`
	GapFrames             uint64 `json:"gap_frames,omitempty"`            // Capture only: output frames (rows) that are gaps
	DroppedOutputFrames   uint64 `json:"dropped_output_frames,omitempty"` // Capture only: of GapFrames, analyzed but dropped because the writer fell behind

	// The captured channel's dominant tone in its last spectrum (Capture
	// only): frequency and level refined on the window's exact response
	// (dsp.WindowKernel), and the nearest note (A4 = 440 Hz).
	PeakHz   float64 `json:"peak_hz,omitempty"`
	PeakDBFS float64 `json:"peak_dbfs,omitempty"`
	PeakNote string  `json:"peak_note,omitempty"`

	// BandLimitHz, for an input above 48 kHz, is the standard Nyquist
	// frequency above which its long-term spectrum carries nothing
	// (bandlimit.Detect): it may be upsampled from twice that rate. 0 when
	// it uses its band.
	BandLimitHz float64 `json:"band_limit_hz,omitempty"`
}

// BandLimitNotice is what a user reads when BandLimitHz is set.
func (s *Stats) BandLimitNotice() string {
	if s.BandLimitHz <= 0 {
		return ""
	}
	return fmt.Sprintf("this %g kHz input carries nothing above %g kHz: it may be upsampled", float64(s.SampleRate)/1000, s.BandLimitHz/1000)
}

// StatsKeeper measures an analyzer fed from a recorder (Live, and the
// transfer analyzer of package transfer): engine time per batch (both
// engines'), latency, frame rate, the source's losses and the status
// line. Init before use; its methods may be called from any goroutine.
type StatsKeeper struct {
	mu       sync.Mutex
	s        Stats
	rec      *audio.Recorder
	eng      gpufft.Engine
	lat      []float64 // recent latencies, ms (ring)
	latN     int
	batch    []float64 // recent engine call times, ms (ring)
	batchN   int
	engMs    map[string][2]float64 // recent mean ms per batch (exponential), batches measured
	fpsMark  time.Time
	fpsCount uint64
	sortBuf  []float64 // read's scratch
	skipped  uint64    // input frames the analysis skipped to keep up (runState.keepUp), this source's
}

// statsWindow is how many recent batches the percentiles cover.
const statsWindow = 4096

// Init sizes the keeper's windows; call it once, before the other methods.
func (t *StatsKeeper) Init() {
	t.lat = make([]float64, statsWindow)
	t.batch = make([]float64, statsWindow)
	t.engMs = map[string][2]float64{}
}

// SetGeometry records the analysis's rate, FFT size and hop.
func (t *StatsKeeper) SetGeometry(g Geometry) {
	t.mu.Lock()
	t.s.FFT, t.s.Hop, t.s.SampleRate = g.FFT, g.Hop, g.Rate
	t.mu.Unlock()
}

// SetEngine records the engine now analyzing.
func (t *StatsKeeper) SetEngine(e gpufft.Engine) {
	t.mu.Lock()
	t.eng = e
	t.mu.Unlock()
}

// SetSource records the recorder whose losses and source the statistics report.
func (t *StatsKeeper) SetSource(rec *audio.Recorder) {
	t.mu.Lock()
	t.rec, t.s.SampleRate, t.s.Channels = rec, rec.SampleRate(), rec.Channels()
	t.skipped = 0
	t.mu.Unlock()
}

// skip counts input frames the analysis skipped to keep up: dropped
// input, of the overflow kind (lost because the analysis fell behind).
func (t *StatsKeeper) skip(frames uint64) {
	t.mu.Lock()
	t.skipped += frames
	t.mu.Unlock()
}

// SetStatus sets the status line (errors, fallbacks).
func (t *StatsKeeper) SetStatus(s string) {
	t.mu.Lock()
	t.s.Status = s
	t.mu.Unlock()
}

// BatchDone records a batch of frames that took `took` on engine name,
// published at now, whose newest sample arrived at arrived (if known).
func (t *StatsKeeper) BatchDone(name string, frames int, took time.Duration, now, arrived time.Time, arrivedOK bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.s.Frames += uint64(frames)
	ms := took.Seconds() * 1e3
	t.s.MsPerBatch = ms
	t.batch[t.batchN%len(t.batch)] = ms
	t.batchN++
	t.recordEngineMsLocked(name, ms)
	if arrivedOK {
		t.lat[t.latN%len(t.lat)] = now.Sub(arrived).Seconds() * 1e3
		t.latN++
	}
	if t.fpsMark.IsZero() {
		t.fpsMark = now
	}
	t.fpsCount += uint64(frames)
	if d := now.Sub(t.fpsMark); d >= time.Second {
		t.s.FramesPerSec = float64(t.fpsCount) / d.Seconds()
		t.fpsMark, t.fpsCount = now, 0
	}
}

// engineAlpha is the weight of the newest time in an engine's running
// mean time per batch.
const engineAlpha = 0.05

// recordEngineMs adds one engine call's time to that engine's running
// mean (a plain mean until 1/engineAlpha calls).
func (t *StatsKeeper) recordEngineMs(name string, v float64) {
	t.mu.Lock()
	t.recordEngineMsLocked(name, v)
	t.mu.Unlock()
}

func (t *StatsKeeper) recordEngineMsLocked(name string, v float64) {
	e, ok := t.engMs[name]
	if !ok {
		t.engMs[name] = [2]float64{v, 1}
		return
	}
	a := max(engineAlpha, 1/(e[1]+1))
	t.engMs[name] = [2]float64{e[0] + a*(v-e[0]), e[1] + 1}
}

// Stats returns the current statistics.
func (l *Live) Stats() Stats {
	var s Stats
	l.ReadStats(&s)
	return s
}

// ReadStats writes the current statistics into dst, reusing its EngineMs
// map: a display polling it does not allocate. Any goroutine may call it.
func (l *Live) ReadStats(dst *Stats) {
	l.stats.Read(dst)
	dst.BandLimitHz = l.bandLimit(dst.SampleRate)
}

// bandState is the band-limit check's copy of the first channel's
// long-term spectrum and its scratch, made once.
type bandState struct {
	mu      sync.Mutex
	sp      Spectrum
	scratch []float32
	// the last check's result, its time and rate: the long-term spectrum
	// changes slowly and a check sorts the bins a dozen times, so a
	// display polling the statistics four times a second checks every
	// bandEvery
	last   float64
	at     time.Time
	atRate int
}

// bandEvery is how often the band-limit check runs at most.
const bandEvery = 2 * time.Second

// bandLimit runs bandlimit.Detect on the first channel's long-term
// average, for inputs above 48 kHz that have analyzed a second or more.
func (l *Live) bandLimit(rate int) float64 {
	if rate <= 48000 {
		return 0
	}
	b := &l.band
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if b.atRate == rate && now.Sub(b.at) < bandEvery {
		return b.last
	}
	b.sp.Want = WantLongAvg
	l.Latest(0, &b.sp)
	g := b.sp.Geometry
	if len(b.sp.LongAvg) == 0 || g.Hop <= 0 || b.sp.LongFrames*uint64(g.Hop) < uint64(rate) {
		return 0
	}
	if len(b.scratch) < len(b.sp.LongAvg) {
		b.scratch = make([]float32, len(b.sp.LongAvg))
	}
	b.last, b.at, b.atRate = bandlimit.Detect(b.scratch, b.sp.LongAvg, b.sp.BinHz, rate), now, rate
	return b.last
}

// Snapshot writes the statistics as they stand into dst without the
// source's counters or percentiles: for an analyzer fed from memory.
func (t *StatsKeeper) Snapshot(dst *Stats) {
	t.mu.Lock()
	*dst = t.s
	t.mu.Unlock()
}

// Read writes the statistics into dst, reusing its EngineMs map.
func (t *StatsKeeper) Read(dst *Stats) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rs := t.rec.Stats()
	engMs := dst.EngineMs
	*dst = t.s
	s := dst
	s.Engine, s.Device = t.eng.Name(), t.eng.Device()
	s.Source = rs.Source
	s.DroppedFrames, s.Overflows, s.Stalls, s.Reopens = rs.RingLost, rs.Overflows, rs.Stalls, rs.Reopens
	// the ring's gaps are outages and device overflows; outages first
	s.DroppedOutageFrames, s.Outages = min(rs.OutageFrames, rs.RingGaps), rs.Outages
	s.DroppedOverflowFrames = rs.RingLost - s.DroppedOutageFrames
	s.DroppedFrames += t.skipped
	s.DroppedOverflowFrames += t.skipped
	if rs.LastError != "" && s.Status == "" {
		s.Status = rs.LastError
	}
	if engMs == nil {
		engMs = map[string]float64{}
	}
	clear(engMs)
	for k, v := range t.engMs {
		engMs[k] = v[0]
	}
	s.EngineMs = engMs
	if n := min(t.latN, len(t.lat)); n > 0 {
		lat := append(t.sortBuf[:0], t.lat[:n]...)
		slices.Sort(lat)
		s.LatencyP50Ms, s.LatencyP99Ms, s.LatencyMaxMs = lat[n/2], lat[min(n-1, n*99/100)], lat[n-1]
		t.sortBuf = lat
	}
	if n := min(t.batchN, len(t.batch)); n > 0 {
		b := append(t.sortBuf[:0], t.batch[:n]...)
		slices.Sort(b)
		s.BatchP50Ms, s.BatchP99Ms = b[n/2], b[min(n-1, n*99/100)]
		s.FramesPerBatch = float64(s.Frames) / float64(t.batchN)
		t.sortBuf = b
	}
}

// source names the recorder's source (for exports' metadata).
func (t *StatsKeeper) source() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rec.Stats().Source
}
