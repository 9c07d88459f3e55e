package live

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live/levelhist"
	"github.com/prismaudio/prism/app/meter"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// Settings configure the real-time analysis. New settings take
// effect whole (Apply); FFT 0 means 4096, Hop 0 means FFT/4, AvgFrames
// below 1 means 1, History 0 means 2048 and a negative History keeps none;
// every other field is used as given (a zero AvgTau or PeakHold means
// none).
type Settings struct {
	FFT, Hop  int
	Window    window.Func
	AvgTau    time.Duration // exponential averaging time constant
	AvgFrames int           // linear average over this many frames
	PeakHold  time.Duration // how long a peak is held before it decays
	PeakDecay float64       // dB/s once the hold time is over
	History   int           // spectrogram columns kept, per output channel
	// Band, if set, filters what is shown: the band filter's response
	// |H(f)|² multiplies every bin's power on the engine, after the FFT.
	Band dsp.BandSpec
	// Fraction (1, 2, 3, 6, 12, 24 or 48; 0 = off) and Weighting give
	// fractional-octave band levels (the RTA), averaged like ExpAvg.
	Fraction  int
	Weighting dsp.Weighting
	// Columns is the spectrogram history's column grid over the stream's
	// frames (folded by maximum on the engine); nil: one column per frame,
	// or per several frames above 500 frames/s (the columns' Geometry
	// says how far apart they are). ColumnChannel c+1 keeps the columns
	// of output channel c only (0: every channel's).
	Columns       gpufft.ColumnGrid
	ColumnChannel int
}

// DefaultSettings are 4096-point Hann frames every 1024 samples, 1 s
// exponential averaging, 8-frame linear average, 2 s peak hold decaying at
// 20 dB/s, and 2048 history columns.
func DefaultSettings() Settings {
	return Settings{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, AvgTau: time.Second,
		AvgFrames: 8, PeakHold: 2 * time.Second, PeakDecay: 20, History: 2048}
}

// withDefaults fills the fields whose zero value means a default.
func (s Settings) withDefaults() Settings {
	d := DefaultSettings()
	if s.FFT == 0 {
		s.FFT = d.FFT
	}
	if s.Hop == 0 {
		s.Hop = s.FFT / 4
	}
	s.AvgFrames = max(1, s.AvgFrames)
	if s.History == 0 {
		s.History = d.History
	}
	return s
}

// Geometry is what a spectrum or a column was computed from: it travels
// with the data, so a reader never pairs levels with the wrong bins.
type Geometry struct {
	Rate, FFT, Hop int
}

// Bins is N/2+1.
func (g Geometry) Bins() int { return g.FFT/2 + 1 }

// BinHz is the width of one bin.
func (g Geometry) BinHz() float64 { return float64(g.Rate) / float64(g.FFT) }

// HopSeconds is the time between frames.
func (g Geometry) HopSeconds() float64 { return float64(g.Hop) / float64(g.Rate) }

// Live analyzes a Recorder's stream in real time. Its engine goroutine
// calls Step (or Run); other goroutines copy results out with Latest,
// Columns and ReadStats, and change settings with Apply, UseEngine and
// SwitchSource, which take effect between batches.
type Live struct {
	engines engine.Pair
	cmds    chan func(*Live) error

	// the engine goroutine's own
	run  runState
	post postState
	// onBatch is a sink's hook, called on the engine goroutine after each
	// batch with the plan's output: the columns the batch completed (in
	// dBFS, numbered in the settings' Columns grid over the timeline,
	// whose frames count the frames lost to overwritten input too). The
	// output is valid during the call.
	onBatch func(out *gpufft.LiveOutput)
	// traceAt is when the traces last crossed back from the engine;
	// traceEvery how often they do (traceInterval, for these settings)
	traceAt    time.Time
	traceEvery time.Duration

	pub    published  // copies for other goroutines, under their own lock
	recd   *recording // the full-resolution recording (record.go), nil: none
	recPub recordPub
	// the input's recording's status (audiorec.go; the recording itself
	// is run.audio)
	audioPub audioPub
	stats    StatsKeeper
	shadow   shadowState
	tee      teeRing
	paused   atomic.Bool
	meters   meter.Bank                                            // the level meters, fed every block of input read
	levels   *levelhist.History                                    // the level history, fed as the meters
	band     bandState                                             // the band-limit check (stats.go)
	onBlock  func(block []float32, channels, rate int, pos uint64) // OnBlock's hook
}

// SetPaused stops (true) or resumes the analysis without closing the
// source: while paused, Step analyzes nothing, the input goes on to a
// playthrough (SetTee) and is otherwise dropped, and the results stay
// as they were. Any goroutine may call it.
func (l *Live) SetPaused(paused bool) { l.paused.Store(paused) }

// New starts analysis on rec's stream with the preferred engine.
func New(rec *audio.Recorder, engines engine.Pair, s Settings) (*Live, error) {
	l := &Live{engines: engines, cmds: make(chan func(*Live) error, 16), levels: levelhist.New()}
	l.stats.Init()
	l.run.onRead = l.tapAudio
	l.setSource(rec)
	l.setEngine(engines.Preferred)
	if err := l.configure(s); err != nil {
		return nil, err
	}
	// start from the newest input: what piled up while starting is not live
	rec.Ring().Drain(0)
	l.run.pos = rec.Ring().Position()
	return l, nil
}

// configure (re)builds the plan and state for settings s; on failure the
// old configuration stays.
func (l *Live) configure(s Settings) error {
	s = s.withDefaults()
	if err := engine.CheckFFT(s.FFT, s.Hop); err != nil {
		return err
	}
	r := &l.run
	geo := Geometry{Rate: r.rate, FFT: s.FFT, Hop: s.Hop}
	gains, err := dsp.BandGains(s.Band, r.rate, s.FFT)
	if err != nil {
		return err
	}
	rta, err := newRTA(s, r.rate)
	if err != nil {
		return err
	}
	var post postState
	post.reset(s, geo, rta)
	plan, cfg, err := newLivePlan(r.eng, &post, s, r.rate, r.outCh, gains)
	if err != nil {
		return err
	}
	if r.plan != nil {
		r.plan.Close()
	}
	r.plan, r.cfg, r.set = plan, cfg.Spectrogram, s
	r.out = cfg.NewOutput()
	prev := l.timeline() // a recording goes on from here
	r.reset(l.run.rec.Ring().Position())
	r.lostFrames, r.lostSamples = 0, 0
	l.shadow.gen++
	l.shadow.cfg = cfg
	l.post = post
	l.traceAt, l.traceEvery = time.Time{}, traceInterval(geo.Bins(), r.outCh)
	l.pub.reset(geo, r.outCh, s.History, columnFrames(geo), s.Columns == nil)
	l.stats.SetGeometry(geo)
	l.reconfigureRecording(prev)
	return nil
}

// liveBytes caps one batch's |X|² on the engine: 8 MiB on the CPU, so
// the post-processing's working set stays in cache; 256 MiB on a GPU,
// where it stays in device memory.
func liveBytes(eng gpufft.Engine) int {
	if eng.Name() == "cpu" {
		return 8 << 20
	}
	return 256 << 20
}

// newLivePlan makes the engine's live plan for settings s on outCh
// channels (each input channel and the mix), |X|² with the band's gains,
// post-processed on the engine (post.liveConfig); and runs it once on
// silence, so kernel compilation (PoCL compiles at the first launch) does
// not land on a live batch (the plan it returns is a fresh one, its state
// untouched). A batch is whatever frames are complete when Step runs (a
// few in steady state); after a hiccup it may take up to 100 ms of frames
// at once (within liveBytes), so catching up costs fewer, larger engine
// calls.
func newLivePlan(eng gpufft.Engine, post *postState, s Settings, rate, outCh int, gains []float32) (gpufft.LivePlan, gpufft.LiveConfig, error) {
	maxFrames := max(1, min(rate/10/s.Hop+2, liveBytes(eng)/(4*outCh*(s.FFT/2+1))))
	spec := gpufft.SpectrogramConfig{Size: s.FFT, Hop: s.Hop, Window: s.Window, Channels: outCh,
		MaxSamples: s.FFT + (maxFrames-1)*s.Hop, Output: gpufft.Power, BinGain: gains}
	cfg := post.liveConfig(spec)
	warm := cfg
	warm.Grid = gpufft.FixedColumns{Frames: 1}
	wp, err := eng.NewLive(warm)
	if err != nil {
		return nil, cfg, err
	}
	_, err = wp.Execute(warm.NewOutput(), make([]float32, outCh*s.FFT), 0, true)
	wp.Close()
	if err != nil {
		return nil, cfg, err
	}
	plan, err := eng.NewLive(cfg)
	return plan, cfg, err
}

// Apply queues a settings change; it takes effect between batches,
// without losing the stream.
func (l *Live) Apply(s Settings) {
	l.cmds <- func(l *Live) error {
		if err := l.configure(s); err != nil {
			l.run.settingsErr = true
			return fmt.Errorf("settings not applied: %w", err)
		}
		if l.run.settingsErr { // the last settings error no longer holds
			l.run.settingsErr = false
			l.stats.SetStatus("")
		}
		return nil
	}
}

// UseEngine switches between the GPU ("gpu") and CPU ("cpu") engines
// between batches.
func (l *Live) UseEngine(name string) {
	l.cmds <- func(l *Live) error {
		next := l.engines.CPU
		if name == engine.GPU {
			if !l.engines.HasGPU() {
				return errors.New("no GPU engine: OpenCL is not usable here")
			}
			next = l.engines.Preferred
		}
		prev := l.run.eng
		l.setEngine(next)
		if err := l.configure(l.run.set); err != nil {
			l.setEngine(prev)
			return fmt.Errorf("switch to %s: %w", name, err)
		}
		return nil
	}
}

// SwitchSource switches the analysis to another recorder (a different
// device, rate or channel count) between batches; the analyzer, its engine
// and settings carry on. done (if not nil) is called on the engine
// goroutine once the switch is made (err nil: the old recorder is no
// longer read; the caller stops it) or has failed (the old recorder stays
// in use).
func (l *Live) SwitchSource(rec *audio.Recorder, done func(err error)) {
	l.cmds <- func(l *Live) error {
		prev := l.run.rec
		l.setSource(rec)
		err := l.configure(l.run.set)
		if err != nil {
			l.setSource(prev)
			err = fmt.Errorf("switch source: %w", err)
		} else {
			rec.Ring().Drain(0)
			l.run.pos = rec.Ring().Position()
		}
		if done != nil {
			done(err)
		}
		return err
	}
}

// SetTee makes the engine goroutine copy every block of input it reads
// into r (a playthrough's ring; nil stops it): SetTeeAt(TeePlaythrough, r).
// Any goroutine may call it.
func (l *Live) SetTee(r Tee) { l.SetTeeAt(TeePlaythrough, r) }

// SetTeeAt makes the engine goroutine copy every block of input it reads
// to t in slot (TeePlaythrough, TeeTransfer, TeeMeasure; nil empties the slot). Blocks
// whose channel count is not t's are not copied. It panics if slot is out
// of range. Any goroutine may call it.
func (l *Live) SetTeeAt(slot int, t Tee) {
	if t == nil {
		l.tee[slot].Store(nil)
		return
	}
	l.tee[slot].Store(&teeBox{t})
}

// setEngine and setSource change what the engine goroutine uses; the
// statistics show it.
func (l *Live) setEngine(e gpufft.Engine) {
	l.run.eng = e
	l.stats.SetEngine(e)
}

func (l *Live) setSource(rec *audio.Recorder) {
	l.run.rec, l.run.ch, l.run.rate, l.run.outCh = rec, rec.Channels(), rec.SampleRate(), rec.Channels()+1
	l.stats.SetSource(rec)
}

// Run calls Step until stop is closed, waiting about a millisecond when
// no frame is complete.
func (l *Live) Run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		n, _ := l.Step()
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// applyCommands runs the queued settings changes.
func (l *Live) applyCommands() {
	for {
		select {
		case cmd := <-l.cmds:
			if err := cmd(l); err != nil {
				l.stats.SetStatus(err.Error())
			}
		default:
			return
		}
	}
}

// Step applies pending commands, then analyzes every complete frame of
// every channel in one engine batch and publishes the results. It returns
// the frames analyzed per channel. Only the engine goroutine calls it; in
// steady state it does not allocate.
func (l *Live) Step() (int, error) {
	l.applyCommands()
	r := &l.run
	if l.paused.Load() {
		from := r.pos
		r.skip(&l.tee)
		if l.recd != nil { // a recording keeps real time: the pause is a gap
			r.lostSamples += r.pos - from
			r.lostFrames += r.lostSamples / uint64(r.set.Hop)
			r.lostSamples %= uint64(r.set.Hop)
		}
		return 0, nil
	}
	if n := r.keepUp(); n > 0 {
		l.stats.skip(n)
	}
	got := r.take(&l.tee)
	l.meters.Write(r.tmp[:got*r.ch], r.ch, r.rate, r.rec.Ring().Position()-uint64(got))
	l.levels.Write(r.tmp[:got*r.ch], r.ch, r.rate)
	if l.onBlock != nil {
		l.onBlock(r.tmp[:got*r.ch], r.ch, r.rate, r.rec.Ring().Position()-uint64(got))
	}
	if r.have < r.set.FFT {
		return 0, nil
	}
	frames := (r.have-r.set.FFT)/r.set.Hop + 1
	samples := r.set.FFT + (frames-1)*r.set.Hop
	start := time.Now()
	src := r.packed(samples)
	traces := start.Sub(l.traceAt) >= l.traceEvery
	first := r.lostFrames + l.post.frames
	if _, err := r.plan.Execute(r.out, src, int64(first), traces); err != nil {
		return 0, l.engineFailed(err)
	}
	took := time.Since(start)
	if traces {
		l.traceAt = start
	}
	l.offerShadow(src, samples, start)
	l.post.frames += uint64(frames)
	l.pub.pushColumns(r.out)
	l.recordBatch(src, samples, first)
	if l.onBatch != nil {
		l.onBatch(r.out)
	}
	l.pub.publish(r.out, l.post.rta, r.set.Window, frames, traces)
	// the newest sample of the last frame: its arrival to now is the latency
	arrived, ok := r.rec.Ring().ArrivalOf(r.pos + uint64(samples-1))
	l.stats.BatchDone(r.eng.Name(), frames, took, time.Now(), arrived, ok)
	r.consume(frames * r.set.Hop)
	return frames, nil
}

// engineFailed handles a failed batch: on the GPU, the analysis carries on
// on the CPU (and says so), unless the engines are Strict.
func (l *Live) engineFailed(err error) error {
	if l.run.eng == l.engines.CPU || l.engines.Strict {
		l.stats.SetStatus(err.Error())
		return err
	}
	l.stats.SetStatus(engine.FallbackNotice(err))
	l.setEngine(l.engines.CPU)
	return l.configure(l.run.set)
}

// Frames is the number of frames analyzed per channel so far: a display
// that sees it unchanged has nothing new to draw. Any goroutine may call
// it; it does not allocate.
func (l *Live) Frames() uint64 { return l.pub.frameCount() }

// traceInterval is how often the traces (latest spectrum, averages,
// holds) of bins bins on outCh output channels cross back from the
// engine: a display's frame rate (every 15 ms), or less often where they
// are large, so that at most traceBytesPerSecond of them cross a second.
// The state they show is updated on the engine with every frame in
// between. At 2^20 points, 8 channels and the mix, a crossing is 113 MB;
// every 15 ms that was 7.5 GB/s of copies (H200, 192 kHz × 8, hop 1024:
// batches of 17-19 ms and latency p50 45-50 ms, against 6-7 ms and 11-15
// ms every 105 ms).
func traceInterval(bins, outCh int) time.Duration {
	bytes := float64(gpufft.NumTraces * 4 * bins * outCh)
	return max(15*time.Millisecond, time.Duration(bytes/traceBytesPerSecond*float64(time.Second)))
}

// traceBytesPerSecond bounds the traces' crossings (traceInterval).
const traceBytesPerSecond = 1 << 30

// OnBatch sets a sink's hook (package capture's rowsink.Sink.Batch),
// called on the engine goroutine after each batch with the plan's output
// (onBatch). Call it before the first Step.
func (l *Live) OnBatch(fn func(out *gpufft.LiveOutput)) { l.onBatch = fn }

// Close stops the background timing and releases the plan (not the
// recorder or the engines). The engine goroutine calls it, after Run has
// returned.
func (l *Live) Close() {
	l.stopShadow()
	if l.recd != nil {
		l.endRecording(errors.New("live: record: stopped: the analysis closed"), nil)
	}
	if l.run.audio != nil {
		l.endAudio(errors.New("live: record audio: stopped: the analysis closed"), nil)
	}
	l.recPub.finishing.Wait() // every recording's file is complete before Close returns
	l.audioPub.finishing.Wait()
	if l.run.plan != nil {
		l.run.plan.Close()
		l.run.plan = nil
	}
}
