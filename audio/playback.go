//go:build cgo

package audio

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gordonklaus/portaudio"
)

// Playback is a PortAudio output stream written with the blocking API from
// the caller's goroutine (no Go code in PortAudio's real-time callback).
type Playback struct {
	name       string
	rate, ch   int
	stream     *portaudio.Stream
	buf        []float32 // one PortAudio buffer, interleaved
	fill       int       // samples of buf filled
	capacity   int       // frames PortAudio's buffer holds (free when the stream starts)
	underflows atomic.Uint64
	closeOnce  sync.Once
}

// OpenPlayback opens an output device: cfg.Device is "" (the default
// output), an index from Devices, or a case-insensitive substring of a
// device name; cfg.Rate and cfg.Channels are required. It returns an error
// wrapping ErrNoOutputDevice when there is none.
func OpenPlayback(cfg PlaybackConfig) (*Playback, error) {
	paMu.Lock()
	defer paMu.Unlock()
	if err := portaudio.Initialize(); err != nil {
		return nil, fmt.Errorf("%w: PortAudio: %v", ErrNoOutputDevice, err)
	}
	p, err := openPlaybackLocked(cfg)
	if err != nil {
		portaudio.Terminate()
		return nil, err
	}
	return p, nil
}

func openPlaybackLocked(cfg PlaybackConfig) (*Playback, error) {
	dev, err := pickDevice(cfg.Device, false)
	if err != nil {
		return nil, err
	}
	if cfg.Rate <= 0 || cfg.Channels <= 0 {
		return nil, fmt.Errorf("audio: playback needs a rate and channels (%d Hz × %d)", cfg.Rate, cfg.Channels)
	}
	if cfg.Channels > dev.MaxOutputChannels {
		return nil, fmt.Errorf("audio: %s has %d output channels, %d asked for", dev.Name, dev.MaxOutputChannels, cfg.Channels)
	}
	fpb := cfg.FramesPerBuffer
	if fpb == 0 {
		fpb = max(64, cfg.Rate/100) // 10 ms
	}
	p := &Playback{name: dev.Name, rate: cfg.Rate, ch: cfg.Channels, buf: make([]float32, fpb*cfg.Channels)}
	sp := portaudio.StreamParameters{
		Output:          portaudio.StreamDeviceParameters{Device: dev, Channels: cfg.Channels, Latency: dev.DefaultHighOutputLatency},
		SampleRate:      float64(cfg.Rate),
		FramesPerBuffer: fpb,
	}
	if err := portaudio.IsFormatSupported(sp, p.buf); err != nil {
		return nil, fmt.Errorf("audio: %s does not take %d Hz × %d channels: %w", dev.Name, cfg.Rate, cfg.Channels, err)
	}
	if p.stream, err = portaudio.OpenStream(sp, p.buf); err != nil {
		return nil, fmt.Errorf("audio: open %s: %w", dev.Name, err)
	}
	if err := p.stream.Start(); err != nil {
		p.stream.Close()
		return nil, fmt.Errorf("audio: start %s: %w", dev.Name, err)
	}
	p.capacity, _ = p.stream.AvailableToWrite()
	return p, nil
}

func (p *Playback) Name() string       { return p.name }
func (p *Playback) SampleRate() int    { return p.rate }
func (p *Playback) Channels() int      { return p.ch }
func (p *Playback) Underflows() uint64 { return p.underflows.Load() }

// Write plays interleaved samples (a whole number of frames), blocking
// while PortAudio's buffers are full. An output underflow (the device ran
// dry before this write) is counted, not an error.
func (p *Playback) Write(x []float32) error {
	for len(x) > 0 {
		n := copy(p.buf[p.fill:], x)
		p.fill += n
		x = x[n:]
		if p.fill < len(p.buf) {
			return nil
		}
		p.fill = 0
		err := p.stream.Write()
		if errors.Is(err, portaudio.OutputUnderflowed) {
			p.underflows.Add(1)
		} else if err != nil {
			return fmt.Errorf("audio: write %s: %w", p.name, err)
		}
	}
	return nil
}

// Queued is how many frames written are not yet heard: those in this
// Playback's own buffer and those PortAudio's buffer still holds. Only
// the goroutine that writes may call it.
func (p *Playback) Queued() int {
	avail, err := p.stream.AvailableToWrite()
	if err != nil {
		avail = p.capacity
	}
	return p.fill/p.ch + max(0, p.capacity-avail)
}

// Close aborts and closes the stream and terminates this user of
// PortAudio. Calling it twice is harmless.
func (p *Playback) Close() error {
	var err error
	p.closeOnce.Do(func() {
		paMu.Lock()
		defer paMu.Unlock()
		p.stream.Abort()
		err = p.stream.Close()
		portaudio.Terminate()
	})
	return err
}
