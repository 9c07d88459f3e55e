// Package playback plays a file's samples to an output device: from a
// position, once or looping a selection, band-filtered as the live
// "Play it" output is, and says which sample is being heard (the file
// view's cursor).
package playback

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Config says where and how a Player plays.
type Config struct {
	Device  string       // the output device: "" for the default
	Band    dsp.BandSpec // the band filter (the zero BandSpec: none)
	Engines engine.Pair  // run the band filter (GPU first, the CPU if it fails)
}

// Player plays interleaved samples. Its methods may be called from any
// goroutine; the samples play on a goroutine of its own, which owns the
// output device while playing.
type Player struct {
	samples  []float32 // interleaved, never written
	rate, ch int
	frames   int
	cfg      Config
	taps     []float32
	delay    int // the filter's delay, frames ((taps−1)/2; 0 without a band)

	mu        sync.Mutex
	next      int // the file frame to play next when (re)started
	loopOn    bool
	loop0     int // the loop's first frame
	loop1     int // the loop's end (exclusive)
	playing   bool
	opening   bool // Play is opening the device
	stop      chan struct{}
	done      chan struct{}
	status    string
	heard     atomic.Int64 // the file frame being heard
	outName   string
	underflow uint64
}

// New makes a player of samples (interleaved, ch channels at rate Hz),
// stopped at the start. It checks the band but opens no device yet.
func New(samples []float32, rate, ch int, cfg Config) (*Player, error) {
	if rate <= 0 || ch <= 0 {
		return nil, fmt.Errorf("playback: %d Hz × %d channels", rate, ch)
	}
	p := &Player{samples: samples, rate: rate, ch: ch, frames: len(samples) / ch, cfg: cfg}
	if !cfg.Band.IsZero() {
		var err error
		if p.taps, err = dsp.BandTaps(cfg.Band, rate, dsp.DefaultTransitionOct); err != nil {
			return nil, fmt.Errorf("playback: %w", err)
		}
		p.delay = (len(p.taps) - 1) / 2
	}
	return p, nil
}

// Open reads the whole of path and makes a player of it.
func Open(path string, cfg Config) (*Player, error) {
	chans, f, _, err := audio.ReadChannels(path, nil)
	if err != nil {
		return nil, fmt.Errorf("playback: %w", err)
	}
	n := 0
	if len(chans) > 0 {
		n = len(chans[0])
	}
	x := make([]float32, n*len(chans))
	for c, s := range chans {
		for i, v := range s {
			x[i*len(chans)+c] = v
		}
	}
	return New(x, f.SampleRate, len(chans), cfg)
}

// SampleRate is the samples' rate in Hz; Channels their channel count.
func (p *Player) SampleRate() int { return p.rate }

// Channels is the samples' channel count.
func (p *Player) Channels() int { return p.ch }

// Duration is the samples' length in seconds.
func (p *Player) Duration() float64 { return float64(p.frames) / float64(p.rate) }

// Position is the time (seconds) of the sample being heard: while
// playing, the one leaving the output now (the frames written less those
// the output still holds and the filter's delay); stopped, where it
// will start.
func (p *Player) Position() float64 { return float64(p.heard.Load()) / float64(p.rate) }

// Playing says whether it plays.
func (p *Player) Playing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.playing
}

// Status describes the output: its device, band and underflows, or the
// error that stopped it.
func (p *Player) Status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status != "" {
		return p.status
	}
	if p.outName == "" {
		return ""
	}
	s := "playing to " + p.outName
	if !p.cfg.Band.IsZero() {
		s += ", " + p.cfg.Band.String()
	}
	if p.underflow > 0 {
		s += fmt.Sprintf(", %d underflows", p.underflow)
	}
	return s
}

// SetLoop loops t0…t1 seconds while on (t1 > t0); a player outside the
// loop jumps into it at its start.
func (p *Player) SetLoop(on bool, t0, t1 float64) {
	p.mu.Lock()
	p.loop0, p.loop1 = p.frameAt(t0), p.frameAt(t1)
	p.loopOn = on && p.loop1 > p.loop0
	restart := p.playing && p.loopOn
	if p.loopOn {
		p.next = p.loop0
	}
	p.mu.Unlock()
	if restart {
		p.Seek(t0)
	}
}

// Looping says whether a loop is on.
func (p *Player) Looping() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loopOn
}

func (p *Player) frameAt(t float64) int {
	return min(p.frames, max(0, int(t*float64(p.rate)+0.5)))
}

// Seek moves the position to t seconds (heard at once while playing).
func (p *Player) Seek(t float64) {
	playing := p.Playing()
	if playing {
		p.Pause()
	}
	p.mu.Lock()
	p.next = p.frameAt(t)
	p.heard.Store(int64(p.next))
	p.mu.Unlock()
	if playing {
		p.Play()
	}
}

// Play opens the output and starts playing from the position (from the
// start at the end; from the loop's start outside the loop). It
// returns the reason when the device does not open. It blocks while the
// device opens; Position and Playing answer meanwhile.
func (p *Player) Play() error {
	p.mu.Lock()
	if p.playing || p.opening {
		p.mu.Unlock()
		return nil
	}
	if p.next >= p.frames {
		p.next = 0
	}
	if p.loopOn && (p.next < p.loop0 || p.next >= p.loop1) {
		p.next = p.loop0
	}
	p.opening = true
	p.mu.Unlock()
	out, err := audio.OpenPlayback(audio.PlaybackConfig{Device: p.cfg.Device, Rate: p.rate, Channels: p.ch})
	var f *BlockFilter
	if err == nil && p.taps != nil {
		if f, err = p.newFilter(p.cfg.Engines); err != nil {
			out.Close()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opening = false
	if err != nil {
		p.status = "playback: " + err.Error()
		return fmt.Errorf("playback: %w", err)
	}
	p.status, p.outName, p.underflow = "", out.Name(), 0
	p.playing = true
	p.heard.Store(int64(p.next))
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.run(out, f, p.next, p.stop, p.done)
	return nil
}

// Pause stops playing (what the output still holds is dropped) and
// keeps the position at the sample heard last.
func (p *Player) Pause() {
	p.mu.Lock()
	if !p.playing || p.stop == nil {
		p.mu.Unlock()
		return
	}
	stop, done := p.stop, p.done
	p.stop = nil // a second Pause meanwhile finds nothing to stop
	p.mu.Unlock()
	close(stop)
	<-done
}

// Close stops playing. Calling it twice is harmless.
func (p *Player) Close() error {
	p.Pause()
	return nil
}

// segment maps frames written to the output to the file's frames.
type segment struct {
	out  int64 // the first output frame
	file int   // its file frame
	n    int
	hold bool // silence after the end: every frame is file
}

// segments is how many written blocks the player remembers: more than
// an output's buffer holds (512 blocks of 10 ms).
const segments = 512

// run is the output goroutine: it owns out and f.
func (p *Player) run(out *audio.Playback, f *BlockFilter, next int, stop, done chan struct{}) {
	step := max(64, p.rate/100) // 10 ms blocks
	if f != nil {
		step = f.Step()
	}
	var ring [segments]segment
	nseg := 0
	var written int64
	block := make([]float32, step*p.ch)
	silent := make([]float32, step*p.ch)
	tail := int64(-1) // the output frame after the file's last: heard there, it has ended
	var runErr error
	defer func() { p.finish(out, f, runErr, done) }()
	for {
		select {
		case <-stop:
			return
		default:
		}
		p.mu.Lock()
		loopOn, l0, l1 := p.loopOn, p.loop0, p.loop1
		p.underflow = out.Underflows()
		p.mu.Unlock()
		end := p.frames
		if loopOn {
			end = l1
			if next >= l1 || next < l0 {
				next = l0
			}
		}
		seg := segment{out: written, file: next}
		src := silent
		if next < end {
			n := min(step, end-next)
			copy(block, p.samples[next*p.ch:(next+n)*p.ch])
			clear(block[n*p.ch:])
			seg.n = n
			next += n
			src = block
		} else {
			seg.file, seg.n, seg.hold = p.frames, step, true
			if tail < 0 {
				tail = written + int64(p.delay)
			}
		}
		if f != nil {
			var err error
			if src, err = f.Filter(src); err != nil {
				runErr = err
				return
			}
		}
		if err := out.Write(src); err != nil {
			runErr = err
			return
		}
		ring[nseg%segments] = seg
		nseg++
		written += int64(step)
		heardOut := written - int64(out.Queued()) - int64(p.delay)
		p.heard.Store(int64(fileFrame(ring[:], nseg, heardOut)))
		if tail >= 0 && heardOut >= tail {
			p.heard.Store(int64(p.frames))
			return
		}
	}
}

// finish closes the output and the filter after playing and keeps the
// position heard last and the error that stopped it.
func (p *Player) finish(out *audio.Playback, f *BlockFilter, runErr error, done chan struct{}) {
	out.Close()
	if f != nil {
		f.Conv.Close()
	}
	p.mu.Lock()
	p.playing = false
	p.next = int(p.heard.Load())
	if runErr != nil {
		p.status = "playback: " + runErr.Error()
	}
	p.underflow = out.Underflows()
	p.mu.Unlock()
	close(done)
}

// fileFrame is the file frame written as output frame h, from the last
// nseg segments of ring.
func fileFrame(ring []segment, nseg int, h int64) int {
	oldest := max(0, nseg-len(ring))
	for i := nseg - 1; i >= oldest; i-- {
		s := ring[i%len(ring)]
		if h >= s.out {
			d := int(min(h-s.out, int64(s.n)))
			if s.hold {
				return s.file
			}
			return s.file + d
		}
	}
	return ring[oldest%len(ring)].file
}

// newFilter makes the band filter's convolver on the preferred engine,
// or on the CPU if that fails.
func (p *Player) newFilter(engines engine.Pair) (*BlockFilter, error) {
	size := 1024
	for size < 2*len(p.taps) {
		size *= 2
	}
	if size > gpufft.MaxSize {
		return nil, fmt.Errorf("band %s: a %d-tap filter is too long to play", p.cfg.Band, len(p.taps))
	}
	conv, _, err := engine.WithFallback(context.Background(), engines, func(eng gpufft.Engine) (gpufft.ConvolvePlan, error) {
		c, err := eng.NewConvolver(p.taps, size, p.ch)
		if err != nil {
			return nil, &engine.Error{Err: err}
		}
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	return NewBlockFilter(conv, len(p.taps), size, p.ch), nil
}
