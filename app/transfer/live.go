package transfer

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/live"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// Live dual-channel measurement (Live): a reference channel and M
// measurement channels of a Recorder's stream, framed at N and hop H,
// their cross- and auto-spectra averaged on the engine's transfer plan
// (gpufft.TransferPlan, GPU or CPU; a failing GPU falls back to the CPU
// by package engine's rule and the status says so), the averages copied
// back after every batch and turned into magnitude, phase and coherence
// by dsp's transfer rules when a consumer asks (Latest), so the engine
// goroutine only moves numbers. With Track, each channel's delay is
// re-found from its averaged cross-spectrum every TrackEvery frames (the
// GCC-PHAT impulse response's peak found on the engine, TransferPlan's
// Peaks, and placed between samples on the host, dual.DelayFinder's
// Refine, all channels at once: live_track.go) and applied: the
// measurement's frames are taken that many samples later than the
// reference's (the reference is delayed), the averages start again when
// the whole-sample part changes, and the rest is taken out of the phase. Without a clear peak the last
// good delay stays and the result says "no clear peak".

// LiveSettings configure a live transfer analyzer.
type LiveSettings struct {
	FFT, Hop   int         // frame length (a power of two, engine.CheckFFT) and step, samples
	Window     window.Func // both channels' window (the zero value is Rect: set Hann, or Rect for a periodic stimulus)
	RefChannel int         // the reference, a 0-based input channel
	Channels   []int       // measurement channels (0-based; nil: every other channel)
	Average    dual.TransferAverage
	// Frames is the FIFO average's length, 1…gpufft.MaxTransferFrames;
	// 0 selects the exponential average of weight ExpAlpha (0 < α ≤ 1).
	Frames   int
	ExpAlpha float64
	// Track finds each channel's delay every TrackEvery frames (0: every
	// max(Frames, 1) frames; at most once a batch) and applies it.
	Track      bool
	TrackEvery int
	// BatchFrames caps the frames per engine call (0: a default sized to
	// the engine).
	BatchFrames int
}

// TrackedDelay is one measurement channel's delay as the tracker keeps it.
type TrackedDelay struct {
	// Delay is the delay applied: the last clear peak's (Found false
	// until one was seen; Samples at the input's rate, positive when the
	// measurement lags).
	Delay dual.Delay
	// NoPeak is set when the latest find saw no clear peak: Delay is then
	// the last good one, kept, not a new number.
	NoPeak bool
	Finds  uint64 // finds run so far
}

// LiveResult is what Latest copies out: per measurement channel (in
// Channels order) and bin, magnitude, phase and coherence.
type LiveResult struct {
	Geometry live.Geometry
	Channels []int  // the measurement channels' input indices
	Frames   uint64 // frames analyzed per channel since the start
	Averaged int    // frames in the current average (FIFO: up to Frames)
	Tracked  bool   // Track is on
	// MagnitudeDB[c][k] is 20·log10|H| (dsp.FloorDB without reference
	// power), PhaseDeg[c][k] arg H wrapped to (−180, 180] with the delay
	// taken out, Coherence[c][k] γ² in 0…1.
	MagnitudeDB, PhaseDeg, Coherence [][]float64
	Delays                           []TrackedDelay
}

// Live is a live transfer analyzer. Step (or Run) belongs to the
// engine goroutine; Latest, ImpulseResponse, ReadStats and live.Stats may be
// called from any goroutine.
type Live struct {
	engines engine.Pair
	set     LiveSettings
	stats   live.StatsKeeper
	rec     *audio.Recorder // nil: fed by Feed
	inputs  int             // the input's channels
	eng     gpufft.Engine
	plan    gpufft.TransferPlan
	cfg     gpufft.TransferConfig
	geo     live.Geometry

	// the engine goroutine's input: per input channel used (reference
	// first) a block holding `hist` samples before pos, then `have` more
	hist, have int
	pos        uint64
	chans      []int       // input channel of each block
	blocks     [][]float32 // 1+M blocks of hist + MaxSamples + hist
	tmp        []float32   // interleaved frames from the ring
	pack       []float32   // the plan's input
	shift      []int       // per measurement channel, whole samples applied
	avg        []float32   // the plan's Read
	averaged   int
	sinceFind  int
	find       *finders // nil until the first find
	peaks      []gpufft.TransferPeak
	delays     []TrackedDelay
	frames     uint64

	mu      sync.Mutex // guards pub, pubDel, pubFr, pubAvg and the consumers' scratch (spectra, h, irFind)
	pub     []float32
	pubDel  []TrackedDelay
	pubFr   uint64
	pubAvg  int
	spectra dual.CrossSpectra
	h       []complex128
	irFind  *dual.DelayFinder
}

// NewLive starts a transfer analyzer on rec's stream with the
// preferred engine.
func NewLive(rec *audio.Recorder, engines engine.Pair, s LiveSettings) (*Live, error) {
	t, err := newTransfer(rec.SampleRate(), rec.Channels(), engines, s, rec)
	if err != nil {
		return nil, err
	}
	rec.Ring().Drain(0)
	t.pos = rec.Ring().Position()
	return t, nil
}

// newTransfer makes the analyzer of inputs channels at rate Hz; rec is
// nil for one fed by Feed.
func newTransfer(rate, inputs int, engines engine.Pair, s LiveSettings, rec *audio.Recorder) (*Live, error) {
	if err := checkTransfer(&s, inputs); err != nil {
		return nil, err
	}
	t := &Live{engines: engines, set: s, rec: rec, inputs: inputs}
	t.stats.Init()
	if rec != nil {
		t.stats.SetSource(rec)
	}
	t.geo = live.Geometry{Rate: rate, FFT: s.FFT, Hop: s.Hop}
	t.stats.SetGeometry(t.geo)
	t.chans = append([]int{s.RefChannel}, s.Channels...)
	m, bins := len(s.Channels), s.FFT/2+1
	t.shift = make([]int, m)
	t.delays = make([]TrackedDelay, m)
	t.pubDel = make([]TrackedDelay, m)
	t.peaks = make([]gpufft.TransferPeak, m)
	t.spectra = dual.NewCrossSpectra(bins)
	t.h = make([]complex128, bins)
	if err := t.useEngine(engines.Preferred); err != nil {
		if !engines.HasGPU() || engines.Strict {
			return nil, err
		}
		t.stats.SetStatus(engine.FallbackNotice(err))
		if err := t.useEngine(engines.CPU); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func checkTransfer(s *LiveSettings, inputs int) error {
	if err := engine.CheckFFT(s.FFT, s.Hop); err != nil {
		return fmt.Errorf("live: transfer: %w", err)
	}
	if s.RefChannel < 0 || s.RefChannel >= inputs {
		return fmt.Errorf("live: transfer: reference channel %d of %d", s.RefChannel, inputs)
	}
	if s.Channels == nil {
		for c := range inputs {
			if c != s.RefChannel {
				s.Channels = append(s.Channels, c)
			}
		}
	}
	if len(s.Channels) == 0 {
		return errors.New("live: transfer: no measurement channel")
	}
	for _, c := range s.Channels {
		if c < 0 || c >= inputs || c == s.RefChannel {
			return fmt.Errorf("live: transfer: measurement channel %d (of %d inputs, reference %d)", c, inputs, s.RefChannel)
		}
	}
	switch {
	case s.Frames < 0 || s.Frames > gpufft.MaxTransferFrames:
		return fmt.Errorf("live: transfer: average of %d frames (want 1…%d, or 0 for exponential)", s.Frames, gpufft.MaxTransferFrames)
	case s.Frames == 0 && !(s.ExpAlpha > 0 && s.ExpAlpha <= 1):
		return fmt.Errorf("live: transfer: exponential weight %v (want 0 < α ≤ 1)", s.ExpAlpha)
	case s.TrackEvery < 0 || s.BatchFrames < 0:
		return fmt.Errorf("live: transfer: TrackEvery %d, BatchFrames %d (want ≥ 0)", s.TrackEvery, s.BatchFrames)
	}
	if s.TrackEvery == 0 {
		s.TrackEvery = max(s.Frames, 1)
	}
	return nil
}

// batchFrames is the most frames one engine call takes: what fits 8 MiB
// of input on the CPU (the spectra stay in cache); on a GPU what arrives
// in gpuBatchInput (at least 8 frames); at most gpufft.MaxTransferFrames.
func (t *Live) batchFrames(eng gpufft.Engine) int {
	if t.set.BatchFrames > 0 {
		return t.set.BatchFrames
	}
	if eng != t.engines.CPU {
		return max(8, min(gpufft.MaxTransferFrames, int(gpuBatchInput.Seconds()*float64(t.geo.Rate))/t.set.Hop))
	}
	budget := 8 << 20
	perFrame := 4 * (1 + len(t.set.Channels)) * t.set.Hop
	return max(1, min(gpufft.MaxTransferFrames, (budget/4/(1+len(t.set.Channels))-t.set.FFT)/t.set.Hop+1, budget/perFrame))
}

// gpuBatchInput is the most input one GPU batch holds, half the 50-ms
// latency the live measurement is held to (issue 27): in steady state a
// batch holds what arrived while the last one ran (a few ms' worth), and
// after a stall the backlog is worked off in batches each published within
// the budget. Sized by throughput instead (256 MiB of input, 256 frames:
// 170 ms at 192 kHz and hop 128), one catching-up batch held its newest
// sample for its whole run.
const gpuBatchInput = 25 * time.Millisecond

// useEngine makes the plan on eng and sizes the buffers; the stream
// starts again (nothing held, averages empty).
func (t *Live) useEngine(eng gpufft.Engine) error {
	te, ok := eng.(gpufft.TransferEngine)
	if !ok {
		return &engine.Error{Err: fmt.Errorf("live: transfer: the %s engine has no transfer plans", eng.Name())}
	}
	s := t.set
	alpha := float32(s.ExpAlpha)
	if s.Frames > 0 {
		alpha = 0
	}
	f := t.batchFrames(eng)
	cfg := gpufft.TransferConfig{Size: s.FFT, Hop: s.Hop, Window: s.Window, Channels: len(s.Channels),
		MaxSamples: (f-1)*s.Hop + s.FFT, Frames: s.Frames, ExpAlpha: alpha}
	plan, err := te.NewTransfer(cfg)
	if err != nil {
		return &engine.Error{Err: err}
	}
	if t.plan != nil {
		t.plan.Close()
	}
	t.plan, t.cfg, t.eng = plan, cfg, eng
	t.stats.SetEngine(eng)
	t.hist = s.FFT / 2
	t.blocks = make([][]float32, len(t.chans))
	for i := range t.blocks {
		t.blocks[i] = make([]float32, 2*t.hist+cfg.MaxSamples)
	}
	t.tmp = make([]float32, cfg.MaxSamples*t.inputs)
	t.pack = make([]float32, len(t.chans)*cfg.MaxSamples)
	t.avg = make([]float32, cfg.DstLen())
	t.mu.Lock()
	if t.pub == nil {
		t.pub = make([]float32, cfg.DstLen())
	}
	t.mu.Unlock()
	t.have, t.averaged, t.sinceFind = 0, 0, 0
	return nil
}

// Run calls Step until stop is closed, waiting about a millisecond when
// no frame is complete.
func (t *Live) Run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		if n, _ := t.Step(); n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// Step reads the input the ring holds, up to the room the blocks have,
// and runs every complete frame through the plan (several batches when
// one does not take them all), tracks the delays when due, and publishes
// the averages. It returns the frames analyzed per channel, and returns
// after one read however much more input has arrived meanwhile, so its
// caller keeps control (a deadline, a stop) when the analysis is slower
// than the input. Only the engine goroutine calls it; in steady state it
// does not allocate.
func (t *Live) Step() (int, error) {
	t.take()
	return t.run()
}

// run analyzes the complete frames held, in batches, and returns the
// frames per channel.
func (t *Live) run() (int, error) {
	total := 0
	for {
		lead := 0
		for _, d := range t.shift {
			lead = max(lead, d)
		}
		usable := t.have - lead
		if usable < t.set.FFT {
			return total, nil
		}
		n, err := t.batch(min((usable-t.set.FFT)/t.set.Hop+1, t.cfg.MaxFrames()))
		total += n
		if err != nil {
			return total, err
		}
	}
}

// take reads what the ring holds, up to the room left, into the blocks.
// Input the ring lost (overwritten before it was read) breaks the
// stream: what was held is dropped and the history is silence.
func (t *Live) take() {
	ring, ch := t.rec.Ring(), t.rec.Channels()
	room := len(t.blocks[0]) - t.hist - t.have
	if room <= 0 {
		return
	}
	lostBefore := ring.Lost()
	got := ring.Read(t.tmp[:min(room, t.cfg.MaxSamples)*ch])
	if ring.Lost() != lostBefore {
		for _, b := range t.blocks {
			clear(b[:t.hist])
		}
		t.have, t.pos = 0, ring.Position()-uint64(got)
	}
	t.deinterleave(t.tmp[:got*ch])
}

// deinterleave appends the frames of src (interleaved, all input
// channels) to the blocks.
func (t *Live) deinterleave(src []float32) {
	got := len(src) / t.inputs
	for i, c := range t.chans {
		b := t.blocks[i][t.hist+t.have:]
		for j := range got {
			b[j] = src[j*t.inputs+c]
		}
	}
	t.have += got
}

// batch runs frames frames, tracks and publishes.
func (t *Live) batch(frames int) (int, error) {
	n, hop := t.set.FFT, t.set.Hop
	samples := (frames-1)*hop + n
	src := t.pack[:len(t.chans)*samples]
	copy(src[:samples], t.blocks[0][t.hist:t.hist+samples])
	for c, d := range t.shift {
		from := t.hist + d
		copy(src[(1+c)*samples:(2+c)*samples], t.blocks[1+c][from:from+samples])
	}
	start := time.Now()
	if _, err := t.plan.Execute(src); err != nil {
		return 0, t.engineFailed(err)
	}
	if err := t.plan.Read(t.avg); err != nil {
		return 0, t.engineFailed(err)
	}
	took := time.Since(start)
	t.frames += uint64(frames)
	t.averaged += frames
	if t.set.Frames > 0 {
		t.averaged = min(t.averaged, t.set.Frames)
	}
	t.sinceFind += frames
	if t.set.Track && t.sinceFind >= t.set.TrackEvery {
		t.sinceFind = 0
		if err := t.track(); err != nil {
			return frames, err
		}
	}
	t.publish()
	var arrived time.Time
	ok := false
	if t.rec != nil {
		arrived, ok = t.rec.Ring().ArrivalOf(t.pos + uint64(samples-1))
	}
	t.stats.BatchDone(t.eng.Name(), frames, took, time.Now(), arrived, ok)
	t.consume(frames * hop)
	return frames, nil
}

// consume drops the first used samples, keeping hist before the next
// frame.
func (t *Live) consume(used int) {
	for _, b := range t.blocks {
		copy(b, b[used:t.hist+t.have])
	}
	t.have -= used
	t.pos += uint64(used)
}

// track re-finds each channel's delay from its averaged cross-spectrum
// (the residual after the shift applied) and applies it; a changed
// whole-sample shift starts the averages again.
func (t *Live) track() error {
	if t.find == nil {
		t.find = newFinders(len(t.shift), t.set.FFT/2+1)
		// a Live dropped without Close stops its workers
		runtime.AddCleanup(t, func(f *finders) { f.stop() }, t.find)
	}
	if err := t.plan.Peaks(t.peaks); err != nil {
		return t.engineFailed(err)
	}
	found := t.find.find(t.avg, t.peaks)
	reset := false
	for c := range t.shift {
		d := found[c]
		td := &t.delays[c]
		td.Finds++
		if !d.Found {
			td.NoPeak = true
			continue
		}
		d.Samples += float64(t.shift[c])
		if d.Samples < float64(-t.hist) || d.Samples > float64(t.hist) {
			td.NoPeak = true // out of the lags the history covers
			continue
		}
		td.Delay, td.NoPeak = d, false
		if s := int(math.Round(d.Samples)); s != t.shift[c] {
			t.shift[c], reset = s, true
		}
	}
	if reset {
		t.averaged = 0
		if err := t.plan.Reset(); err != nil {
			return t.engineFailed(err)
		}
		clear(t.avg)
	}
	return nil
}

// publish hands the averages to consumers (the buffers swap: the next
// Read overwrites the whole of the one the consumers had; a copy of
// 8 MiB at 16 channels and N = 65536 took 3 ms a batch) and copies the
// delays out.
func (t *Live) publish() {
	t.mu.Lock()
	t.pub, t.avg = t.avg, t.pub
	copy(t.pubDel, t.delays)
	t.pubFr, t.pubAvg = t.frames, t.averaged
	t.mu.Unlock()
}

// engineFailed handles a failed batch: on the GPU the analysis carries on
// on the CPU (and says so), unless the engines are Strict.
func (t *Live) engineFailed(err error) error {
	if t.eng == t.engines.CPU || t.engines.Strict {
		t.stats.SetStatus(err.Error())
		return err
	}
	t.stats.SetStatus(engine.FallbackNotice(err))
	held := t.have
	if ferr := t.useEngine(t.engines.CPU); ferr != nil {
		return ferr
	}
	t.pos += uint64(held) // the held input is dropped with the GPU's plan
	return err
}

// Close releases the plan. Call it after the engine goroutine stopped.
func (t *Live) Close() {
	if t.find != nil {
		t.find.stop()
	}
	if t.plan != nil {
		t.plan.Close()
		t.plan = nil
	}
}

// Stats returns the current statistics.
func (t *Live) Stats() live.Stats {
	var s live.Stats
	t.ReadStats(&s)
	return s
}

// ReadStats writes the current statistics into dst, reusing its EngineMs
// map. Any goroutine may call it.
// An analyzer fed by Feed has no input statistics: only the engine's
// (frames, time per batch, frames/s) are set.
func (t *Live) ReadStats(dst *live.Stats) {
	if t.rec == nil {
		t.stats.Snapshot(dst)
		dst.Engine, dst.Device = t.eng.Name(), t.eng.Device()
		return
	}
	t.stats.Read(dst)
}
