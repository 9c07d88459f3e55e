// Package tfrlive runs one of package tfr's analysis modes (multi-
// resolution, variable-Q, reassigned) live: a Runner reads a copy of the
// live analysis's input (it is Live's Tee), runs a tfr.Transform on it
// frame by frame, keeps the averages, holds and the dominant peak on the
// transform's output bins and publishes spectra and spectrogram columns in
// live.Spectrum's form, with the bins' centre frequencies (Freqs) beside
// them, since a mode's bins are not uniform. It knows nothing of windows,
// flags or files.
//
// The Runner's goroutine (Run, or whoever calls Step) owns the transform
// and every buffer; other goroutines copy results out (Latest, Columns,
// ReadStats). Step does not allocate (TestStepDoesNotAllocate).
package tfrlive

import (
	"fmt"
	"math"
	"time"

	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Settings configure a Runner beside the transform's own tfr.Config (whose
// Rate and Channels New fills in).
type Settings struct {
	TFR       tfr.Config
	AvgTau    time.Duration // exponential averaging time constant (0: none)
	AvgFrames int           // linear average over this many frames (< 1: 1)
	PeakHold  time.Duration // how long a peak is held before it decays
	PeakDecay float64       // dB/s once the hold time is over
	History   int           // spectrogram columns kept per output channel (0: 2048)
}

// SettingsFrom takes the averaging, holds and history of the live
// analysis's settings s, so a mode averages as the STFT does.
func SettingsFrom(s live.Settings, cfg tfr.Config) Settings {
	return Settings{TFR: cfg, AvgTau: s.AvgTau, AvgFrames: s.AvgFrames, PeakHold: s.PeakHold,
		PeakDecay: s.PeakDecay, History: s.History}
}

// maxColumnsPerSecond bounds the columns published: above it, each
// column is the maximum of several frames (as Live folds its own).
const maxColumnsPerSecond = 500

// historyBytes caps the history's memory, as Live's does.
const historyBytes = 256 << 20

// Runner runs a transform on a live stream. See the package doc for who
// calls what.
type Runner struct {
	tr      tfr.Transform
	in      *audio.Ring // the tee: interleaved frames of ch channels
	ch      int
	outCh   int // ch + 1: every channel and the mix
	hop     int
	span    int
	maxLen  int // samples per channel per Execute
	tmp     []float32
	planar  []float32 // outCh blocks of maxLen
	pack    []float32
	have    int
	out     []float32 // Execute's dst
	bins    int
	geo     live.Geometry
	post    post
	pub     published
	stats   live.StatsKeeper
	engName string
}

// spanOf is the samples one frame of cfg reads: the FFT size of the STFT
// and the reassigned spectrogram, the largest size of the multi-
// resolution spectrum; for the others a transform is made for blocks of
// 2^16, 2^17, … samples until one is long enough for a frame, and asked.
func spanOf(e gpufft.Engine, cfg tfr.Config) (int, error) {
	switch {
	case (cfg.Mode == tfr.STFT || cfg.Mode == tfr.Reassigned) && cfg.Size > 0 && cfg.Sizes == nil:
		return cfg.Size, nil
	case cfg.Mode == tfr.MultiRes:
		sizes := cfg.Sizes
		if sizes == nil {
			sizes = tfr.DefaultSizes(cfg.Rate)
		}
		if len(sizes) > 0 {
			return sizes[0], nil
		}
	}
	var err error
	for n := 1 << 16; n <= 1<<24; n *= 2 {
		var probe tfr.Transform
		if probe, err = tfr.New(e, withMax(cfg, n)); err == nil {
			span := probe.Span()
			probe.Close()
			return span, nil
		}
	}
	return 0, err
}

// ringSeconds is how much input the tee's ring holds.
const ringSeconds = 2

// New makes a Runner for rec's stream (rate and channel count) running
// s.TFR on e, with batches of up to 100 ms of frames. The Runner's input
// is In(): hand it to Live.SetTeeAt.
func New(rec *audio.Recorder, e gpufft.Engine, s Settings) (*Runner, error) {
	rate, ch := rec.SampleRate(), rec.Channels()
	cfg := s.TFR
	cfg.Rate, cfg.Channels = float64(rate), ch+1
	if cfg.Hop < 1 {
		return nil, fmt.Errorf("tfrlive: hop %d: want ≥ 1", cfg.Hop)
	}
	span, err := spanOf(e, cfg)
	if err != nil {
		return nil, err
	}
	maxFrames := max(1, rate/10/cfg.Hop+1)
	tr, err := tfr.New(e, withMax(cfg, span+(maxFrames-1)*cfg.Hop))
	if err != nil {
		return nil, err
	}
	r, err := NewWith(rec, tr, e, s)
	if err != nil {
		tr.Close()
	}
	return r, err
}

// NewWith makes a Runner for rec's stream running tr (made for rec's
// rate and Channels()+1 channels: every channel and the mix), which the
// Runner owns from then on; e is the engine tr runs on.
// s.TFR is not used.
func NewWith(rec *audio.Recorder, tr tfr.Transform, e gpufft.Engine, s Settings) (*Runner, error) {
	rate, ch := rec.SampleRate(), rec.Channels()
	cfg := tr.Config()
	if int(cfg.Rate) != rate || cfg.Channels != ch+1 || cfg.MaxSamples < tr.Span() {
		return nil, fmt.Errorf("tfrlive: transform for %g Hz, %d channels, %d samples: want %d Hz, %d channels, ≥ %d samples",
			cfg.Rate, cfg.Channels, cfg.MaxSamples, rate, ch+1, tr.Span())
	}
	r := &Runner{tr: tr, ch: ch, outCh: ch + 1, hop: cfg.Hop, span: tr.Span(), maxLen: cfg.MaxSamples, engName: e.Name()}
	maxFrames := (r.maxLen-r.span)/r.hop + 1
	r.in = audio.NewRing(max(ringSeconds*rate, 2*r.maxLen), ch)
	r.tmp = make([]float32, r.maxLen*ch)
	r.planar = make([]float32, r.outCh*r.maxLen)
	r.pack = make([]float32, r.outCh*r.maxLen)
	r.bins = len(tr.Freqs())
	r.out = make([]float32, r.outCh*maxFrames*r.bins)
	r.geo = live.Geometry{Rate: rate, FFT: r.span, Hop: cfg.Hop}
	fold := max(1, int(math.Ceil(float64(rate)/float64(cfg.Hop)/maxColumnsPerSecond)))
	r.post.reset(s, r.outCh, r.bins, float64(cfg.Hop)/float64(rate))
	history := s.History
	if history == 0 {
		history = 2048
	}
	history = max(1, min(history, historyBytes/(4*r.bins*r.outCh)))
	colGeo := r.geo
	colGeo.Hop *= fold
	r.pub.reset(r.outCh, r.bins, history, fold, r.geo, colGeo, tr.Freqs(), tr.ENBW())
	r.stats.Init()
	r.stats.SetSource(rec)
	r.stats.SetEngine(e)
	r.stats.SetGeometry(r.geo)
	return r, nil
}

func withMax(cfg tfr.Config, n int) tfr.Config {
	cfg.MaxSamples = n
	return cfg
}

// In is the Runner's input: Live copies every block it reads into it
// (live.Live.SetTeeAt); it never blocks.
func (r *Runner) In() live.Tee { return r.in }

// Transform is the transform the Runner runs (its Freqs and ENBW).
func (r *Runner) Transform() tfr.Transform { return r.tr }

// Run calls Step until stop is closed, waiting about a millisecond when no
// frame is complete.
func (r *Runner) Run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		n, err := r.Step()
		if err != nil {
			r.stats.SetStatus(err.Error())
		}
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// Step reads what the input holds and transforms every complete frame in
// one Execute, then updates the averages, holds and history and publishes.
// It returns the frames analyzed per channel. Only the Runner's goroutine
// calls it; it does not allocate.
func (r *Runner) Step() (int, error) {
	lostBefore := r.in.Lost()
	got := r.in.Read(r.tmp[:(r.maxLen-r.have)*r.ch])
	if r.in.Lost() != lostBefore {
		r.have = 0 // the held samples no longer continue the stream
	}
	live.Deinterleave(r.planar, r.tmp, r.ch, r.maxLen, r.have, got)
	r.have += got
	if r.have < r.span {
		return 0, nil
	}
	frames := (r.have-r.span)/r.hop + 1
	samples := r.span + (frames-1)*r.hop
	start := time.Now()
	src := r.packed(samples)
	n, err := r.tr.Execute(r.out[:r.outCh*frames*r.bins], src)
	if err != nil {
		return 0, err
	}
	took := time.Since(start)
	for i := range n {
		r.post.frame(r.out, frames, i, &r.pub)
	}
	r.pub.publish(&r.post, n)
	arrived, ok := r.in.ArrivalOf(r.in.Position() - 1)
	r.stats.BatchDone(r.engName, n, took, time.Now(), arrived, ok)
	r.consume(n * r.hop)
	return n, nil
}

// packed copies the first `samples` of each planar block back to back.
func (r *Runner) packed(samples int) []float32 {
	buf := r.pack[:r.outCh*samples]
	for c := range r.outCh {
		copy(buf[c*samples:(c+1)*samples], r.planar[c*r.maxLen:c*r.maxLen+samples])
	}
	return buf
}

// consume drops the first used samples, keeping those later frames need.
func (r *Runner) consume(used int) {
	for c := range r.outCh {
		copy(r.planar[c*r.maxLen:], r.planar[c*r.maxLen+used:c*r.maxLen+r.have])
	}
	r.have -= used
}

// ReadStats writes the mode's analysis statistics into dst: the source's
// losses plus the input the Runner itself lost (its input overwritten
// before it read it), its frames, latency (from Live's read of a block to
// the Runner's publication of its frames) and engine times. Any goroutine
// may call it.
func (r *Runner) ReadStats(dst *live.Stats) {
	r.stats.Read(dst)
	lost := r.in.Lost()
	dst.DroppedFrames += lost
	dst.DroppedOverflowFrames += lost
	dst.FFT = r.span
}

// Frames is the number of frames analyzed per channel so far.
func (r *Runner) Frames() uint64 { return r.pub.frameCount() }

// Close releases the transform. The Runner's goroutine calls it after Run
// has returned; calling it twice is harmless.
func (r *Runner) Close() error {
	if r.tr == nil {
		return nil
	}
	err := r.tr.Close()
	r.tr = nil
	return err
}
