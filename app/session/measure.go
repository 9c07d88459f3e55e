package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/room"
	"github.com/prismaudio/prism/app/sweep"
	"github.com/prismaudio/prism/audio"
)

// The window's sweep measurement: the sweep (package sweep's, as `prism
// sweep` writes it) plays through an output device while the live
// analysis copies the session's input into a recording of the
// measurement's own (live.TeeMeasure, also while the analysis is
// paused); the recordings of several sweeps are aligned by the response's
// peak (or the loopback reference's) and averaged, and the average is
// deconvolved on the session's engines (sweep.Analyze, with the harmonic
// distortion) and its room parameters computed (room.Analyze, octave
// bands).

// MeasureSettings are one measurement's.
type MeasureSettings struct {
	Output     string  // the output device: "" the default, an index or a name substring
	Channel    int     // the measured input channel, from 0
	RefChannel int     // the loopback reference's input channel, −1: none
	FromHz     float64 // the sweep's start
	ToHz       float64 // and end
	Seconds    float64 // the sweep's length, without its silences
	LevelDB    float64 // its peak level, dBFS
	Sweeps     int     // how many are played and averaged, 1…MaxSweeps
}

// MaxSweeps bounds the sweeps one measurement averages.
const MaxSweeps = 16

// DefaultMeasureSettings are the Measure panel's first settings: a 5-s
// 20 Hz–20 kHz sweep at −12 dBFS on the default output into channel 1.
func DefaultMeasureSettings() MeasureSettings {
	return MeasureSettings{RefChannel: -1, FromHz: 20, ToHz: 20000, Seconds: 5, LevelDB: -12, Sweeps: 1}
}

// Measurement is a finished measurement.
type Measurement struct {
	Settings MeasureSettings
	Spec     sweep.Spec   // the sweep played
	Result   sweep.Result // the deconvolution of the averaged recording, with its distortion
	// Room is the response's room parameters in octave bands; RoomErr
	// says why there are none (a response too short to decay, say).
	Room    room.Result
	RoomErr string
	// LatencyMs is each sweep's latency, in the order played: with a
	// reference, after the reference's; without one, from earlySeconds
	// before the sweep's nominal start in the recording (the devices' and
	// the live analysis's timing: only a loopback reference times the
	// system itself).
	LatencyMs []float64
	Output    string // the output device's name
	// Replayed counts the sweeps played again because the output ran dry
	// or the input lost samples while they played (a gap in the sweep).
	Replayed int
	Notice   string // the engine's fallback, if any
}

// ErrNoOutputDevice is audio.ErrNoOutputDevice, for the window (which
// never sees package audio): Measure's error wraps it when there is no
// output to play the sweep through.
var ErrNoOutputDevice = audio.ErrNoOutputDevice

// ErrMeasureBusy is a measurement asked for while one runs.
var ErrMeasureBusy = errors.New("session: a measurement is running")

// The input's recording starts when the output opens, but where the
// sweep lands in it depends on the devices' buffers and on how far the
// live analysis's reading of the input is behind: the sweep may come
// tens of milliseconds "early" (before the output's own first block was
// heard). The output therefore plays prerollSeconds of silence before
// the sweep, and the recording is taken from earlySeconds before the
// sweep's nominal start (with its own lead-in silence); it runs
// slackSeconds longer than the sweep with its silences: room for the
// latency.
const (
	prerollSeconds      = 0.3
	earlySeconds        = 0.1
	measureSlackSeconds = prerollSeconds + 1
)

// measureFeed is the Tee the live analysis copies its input into while a
// sweep plays: it keeps the first frames, up to its capacity, and says
// when it is full.
type measureFeed struct {
	ch   int
	mu   sync.Mutex
	buf  []float32 // interleaved, capacity: the frames wanted
	full chan struct{}
}

// Write implements live.Tee: it copies what fits and never blocks.
func (f *measureFeed) Write(p []float32, _ time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	room := cap(f.buf) - len(f.buf)
	if room == 0 {
		return
	}
	f.buf = append(f.buf, p[:min(room, len(p))]...)
	if len(f.buf) == cap(f.buf) {
		close(f.full)
	}
}

// Channels implements live.Tee.
func (f *measureFeed) Channels() int { return f.ch }

// recorded is a copy of channel c of what the feed holds.
func (f *measureFeed) recorded(c int) []float32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]float32, len(f.buf)/f.ch)
	for i := range out {
		out[i] = f.buf[i*f.ch+c]
	}
	return out
}

// Measure plays s's sweeps through the output while recording the
// session's input, and returns the deconvolution of their average. It
// blocks for the sweeps' length and the analysis (call it off the
// window's goroutine); progress, if not nil, is told each step in a few
// words. Cancelling ctx stops it between blocks of output. An output
// that cannot be opened is an error wrapping audio.ErrNoOutputDevice.
func (m *Session) Measure(ctx context.Context, s MeasureSettings, progress func(string)) (*Measurement, error) {
	if !m.measuring.CompareAndSwap(false, true) {
		return nil, ErrMeasureBusy
	}
	defer m.measuring.Store(false)
	if progress == nil {
		progress = func(string) {}
	}
	m.mu.Lock()
	closed, rate, ch, kind := m.closed, m.rec.SampleRate(), m.rec.Channels(), m.spec.Kind
	m.mu.Unlock()
	if closed {
		return nil, errors.New("monitor closed")
	}
	if kind != SourceDevice {
		return nil, fmt.Errorf("session: the input is the %s, which cannot hear the sweep: choose an input device in the Live tab's Source", kind)
	}
	if err := s.check(ch); err != nil {
		return nil, err
	}
	spec := sweep.NewSpec(s.FromHz, s.ToHz, s.Seconds, rate)
	spec.LevelDB = s.LevelDB
	if err := spec.Check(); err != nil {
		return nil, err
	}
	res := &Measurement{Settings: s, Spec: spec}
	sig := spec.Signal()
	var recs, refs [][]float32
	for i := range s.Sweeps {
		progress(fmt.Sprintf("sweep %d of %d: playing", i+1, s.Sweeps))
		var feed *measureFeed
		for try := 1; ; try++ {
			before := m.inputLoss()
			f, under, name, err := m.playSweep(ctx, s.Output, sig, rate, ch, spec.Samples()+int(measureSlackSeconds*float64(rate)))
			res.Output = name
			if err != nil {
				return nil, err
			}
			lost := m.inputLoss() != before
			if !lost && under == 0 {
				feed = f
				break
			}
			// a gap in the sweep or in its recording shifts the rest of
			// it: the deconvolution would smear it
			what := "the input lost samples"
			if !lost {
				what = "the output ran dry"
			}
			if try == measureTries {
				return nil, fmt.Errorf("session: %s in each of %d tries of sweep %d (a busy machine or a device dropping out)", what, measureTries, i+1)
			}
			res.Replayed++
			progress(fmt.Sprintf("sweep %d of %d: %s, playing it again", i+1, s.Sweeps, what))
		}
		trim := int((prerollSeconds - earlySeconds) * float64(rate))
		recs = append(recs, feed.recorded(s.Channel)[trim:])
		if s.RefChannel >= 0 {
			refs = append(refs, feed.recorded(s.RefChannel)[trim:])
		}
	}
	progress("analyzing")
	rec, ref, lat, err := m.averageSweeps(ctx, spec, recs, refs)
	if err != nil {
		return nil, err
	}
	res.LatencyMs = lat
	r, notice, err := sweep.Analyze(ctx, m.engines, spec, rec, ref, sweep.Options{Distortion: true})
	if err != nil {
		return nil, err
	}
	res.Result, res.Notice = r, notice
	if res.Room, err = room.Analyze(r.IR, rate, room.Options{Fraction: 1}); err != nil {
		res.RoomErr = err.Error()
	}
	return res, nil
}

func (s MeasureSettings) check(ch int) error {
	switch {
	case s.Channel < 0 || s.Channel >= ch:
		return fmt.Errorf("session: the input has %d channel%s, no channel %d to measure", ch, plural(ch), s.Channel+1)
	case s.RefChannel >= ch:
		return fmt.Errorf("session: the input has %d channel%s, no channel %d for the reference", ch, plural(ch), s.RefChannel+1)
	case s.RefChannel == s.Channel:
		return errors.New("session: the reference channel is the measured channel")
	case s.Sweeps < 1 || s.Sweeps > MaxSweeps:
		return fmt.Errorf("session: %d sweeps (want 1…%d)", s.Sweeps, MaxSweeps)
	}
	return nil
}

// measureTries is how often a sweep is played when the input keeps
// losing samples while it plays.
const measureTries = 5

// inputLoss counts the input's losses so far (frames lost before the
// live analysis read them, device overflows, stalls, outage frames): a
// change says the recording has a gap.
func (m *Session) inputLoss() uint64 {
	m.mu.Lock()
	rec := m.rec
	m.mu.Unlock()
	st := rec.Stats()
	return st.RingLost + st.Overflows + st.Stalls + st.OutageFrames
}

// playSweep opens the output (2 channels, else 1), starts recording
// frames frames of the input, plays sig (then silence until the
// recording is full) and returns the recording and the output's
// underflows while the sweep played.
func (m *Session) playSweep(ctx context.Context, device string, sig []float32, rate, ch, frames int) (*measureFeed, uint64, string, error) {
	// 100-ms buffers: a loaded machine starves short ones, and every
	// underflow is a gap in the sweep
	cfg := audio.PlaybackConfig{Device: device, Rate: rate, Channels: 2, FramesPerBuffer: rate / 10}
	out, err := audio.OpenPlayback(cfg)
	if err != nil && !errors.Is(err, audio.ErrNoOutputDevice) {
		cfg.Channels = 1
		out, err = audio.OpenPlayback(cfg)
	}
	if err != nil {
		return nil, 0, "", err
	}
	defer out.Close()
	feed := &measureFeed{ch: ch, buf: make([]float32, 0, frames*ch), full: make(chan struct{})}
	m.live.SetTeeAt(live.TeeMeasure, feed)
	defer m.live.SetTeeAt(live.TeeMeasure, nil)
	block := make([]float32, cfg.FramesPerBuffer*cfg.Channels)
	// the output plays until the recording is full (silence after the
	// sweep), or 5 s of silence more: an input that stopped
	silence := 5 * rate
	preroll := int(prerollSeconds * float64(rate))
	var under uint64
	for pos := 0; ; pos += cfg.FramesPerBuffer {
		select {
		case <-ctx.Done():
			return nil, under, out.Name(), ctx.Err()
		case <-feed.full:
			return feed, under, out.Name(), nil
		default:
		}
		if pos >= len(sig)+silence+preroll {
			return nil, under, out.Name(), errors.New("session: the input stopped while the sweep played")
		}
		for i := range cfg.FramesPerBuffer {
			v := float32(0)
			if j := pos + i - preroll; j >= 0 && j < len(sig) {
				v = sig[j]
			}
			for c := range cfg.Channels {
				block[i*cfg.Channels+c] = v
			}
		}
		u := out.Underflows()
		if err := out.Write(block); err != nil {
			return nil, under, out.Name(), err
		}
		// an underflow this write reports is a gap before this block:
		// one that falls in the sweep (or right after it) counts
		if pos+cfg.FramesPerBuffer > preroll && pos <= preroll+len(sig) {
			under += out.Underflows() - u
		}
	}
}

// averageSweeps aligns the recordings (and the references) on the first
// one's by each one's lag — the reference's impulse with one, else the
// response's — and averages them; it returns each sweep's latency.
func (m *Session) averageSweeps(ctx context.Context, spec sweep.Spec, recs, refs [][]float32) (rec, ref []float32, latMs []float64, err error) {
	lags := make([]int, len(recs))
	latMs = make([]float64, len(recs))
	for i := range recs {
		var r []float32
		if refs != nil {
			r = refs[i]
		}
		n := min(len(recs[i]), len(recs[0]))
		if r != nil {
			r = r[:n]
		}
		res, _, err := sweep.Analyze(ctx, m.engines, spec, recs[i][:n], r, sweep.Options{})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("sweep %d: %w", i+1, err)
		}
		latMs[i] = res.LatencyMs()
		lags[i] = int(math.Round(res.LatencySamples + res.RefLatencySamples))
		if r != nil {
			lags[i] = int(math.Round(res.RefLatencySamples))
		}
		if len(recs) == 1 {
			break
		}
	}
	rec = average(recs, lags)
	if refs != nil {
		ref = average(refs, lags)
	}
	return rec, ref, latMs, nil
}

// average is the mean of xs, each shifted by lags[i]−lags[0] samples
// earlier, over xs[0]'s length (zeros past an end).
func average(xs [][]float32, lags []int) []float32 {
	if len(xs) == 1 {
		return xs[0]
	}
	out := make([]float32, len(xs[0]))
	for i, x := range xs {
		d := lags[i] - lags[0]
		for j := range out {
			if k := j + d; k >= 0 && k < len(x) {
				out[j] += x[k]
			}
		}
	}
	for j := range out {
		out[j] /= float32(len(xs))
	}
	return out
}

// OutputDevices lists the output devices' names, or says why there are
// none (an error wrapping audio.ErrNoOutputDevice).
func (m *Session) OutputDevices() ([]string, error) {
	devs, err := audio.Devices()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", audio.ErrNoOutputDevice, err)
	}
	var names []string
	for _, d := range devs {
		if d.MaxOutputChannels > 0 {
			names = append(names, strings.TrimSpace(d.Name))
		}
	}
	if len(names) == 0 {
		return nil, audio.ErrNoOutputDevice
	}
	return names, nil
}
