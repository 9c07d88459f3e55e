package session

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/playback"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Playthrough plays the analyzed input to an output device, band-filtered
// by the same linear-phase FIR as `prism filter` (Kaiser design, applied
// by overlap-save FFT convolution on the engine: the GPU when there is
// one, the CPU if it fails), or unfiltered without a band. The analyzer
// copies each block it reads into the output's own ring (Live.SetTee);
// the output's goroutine filters whole blocks and writes them to
// PortAudio. Its latency is one block plus the FIR's delay (half its
// length): the price of a linear-phase filter, stated by Latency.
type Playthrough struct {
	ring    *audio.Ring
	out     *audio.Playback
	band    dsp.BandSpec
	rate    int
	ch      int
	taps    []float32
	size    int // FFT size; 0: no filter
	step    int // frames per block
	latency time.Duration
	stop    chan struct{}
	done    chan struct{}

	mu     sync.Mutex
	status string
	engine string
}

// outRingSeconds is how much input the output's ring holds: slack for the
// output device's clock against the input's.
const outRingSeconds = 2

// StartPlaythrough opens the output device (device: "" for the default)
// for rate and ch and starts playing what is written to Ring(), filtered
// by band (the zero BandSpec for none).
func StartPlaythrough(device string, rate, ch int, band dsp.BandSpec, engines engine.Pair) (*Playthrough, error) {
	m := &Playthrough{band: band, rate: rate, ch: ch, stop: make(chan struct{}), done: make(chan struct{})}
	var conv gpufft.ConvolvePlan
	if !band.IsZero() {
		var err error
		if m.taps, err = dsp.BandTaps(band, rate, dsp.DefaultTransitionOct); err != nil {
			return nil, err
		}
		taps := len(m.taps)
		m.size = 1024
		for m.size < 2*taps {
			m.size *= 2
		}
		if m.size > gpufft.MaxSize {
			return nil, fmt.Errorf("band %s: a %d-tap filter is too long to monitor live", band, taps)
		}
		m.step = m.size - taps + 1
		conv, m.engine, err = newConvolver(engines, m.taps, m.size, ch)
		if err != nil {
			return nil, err
		}
		m.latency = time.Duration(float64(m.step+(taps-1)/2) / float64(rate) * float64(time.Second))
	} else {
		m.step = max(64, rate/100) // 10 ms blocks
		m.latency = time.Duration(float64(m.step) / float64(rate) * float64(time.Second))
	}
	out, err := audio.OpenPlayback(audio.PlaybackConfig{Device: device, Rate: rate, Channels: ch})
	if err != nil {
		if conv != nil {
			conv.Close()
		}
		return nil, err
	}
	m.out = out
	m.ring = audio.NewRing(outRingSeconds*rate, ch)
	go m.run(conv, engines)
	return m, nil
}

// newConvolver makes the convolver on the preferred engine, or on the CPU
// if that fails (engine.WithFallback).
func newConvolver(engines engine.Pair, taps []float32, size, ch int) (gpufft.ConvolvePlan, string, error) {
	var name string
	c, _, err := engine.WithFallback(context.Background(), engines, func(eng gpufft.Engine) (gpufft.ConvolvePlan, error) {
		name = eng.Name()
		c, err := eng.NewConvolver(taps, size, ch)
		if err != nil {
			return nil, &engine.Error{Err: err}
		}
		return c, nil
	})
	return c, name, err
}

// Ring is where the input goes (Live.SetTee).
func (m *Playthrough) Ring() *audio.Ring { return m.ring }

// Latency is the delay from input to output added here (one block and
// the filter's delay), not counting the devices' buffers.
func (m *Playthrough) Latency() time.Duration { return m.latency }

// Band is the band filter applied (the zero BandSpec: none).
func (m *Playthrough) Band() dsp.BandSpec { return m.band }

// Status describes the output: device, band, engine, latency, and any
// error or fallback.
func (m *Playthrough) Status() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := fmt.Sprintf("monitor → %s", m.out.Name())
	if !m.band.IsZero() {
		s += fmt.Sprintf(", %s on %s (%d taps)", m.band, engineName(m.engine), len(m.taps))
	}
	s += fmt.Sprintf(", %.0f ms", m.latency.Seconds()*1e3)
	if n := m.out.Underflows(); n > 0 {
		s += fmt.Sprintf(", %d underflows", n)
	}
	if m.status != "" {
		s += ": " + m.status
	}
	return s
}

func engineName(e string) string {
	if e == "opencl" {
		return "GPU"
	}
	return "CPU"
}

func (m *Playthrough) setStatus(s string) {
	m.mu.Lock()
	m.status = s
	m.mu.Unlock()
}

// run is the output goroutine: it owns conv and the block buffers.
func (m *Playthrough) run(conv gpufft.ConvolvePlan, engines engine.Pair) {
	defer close(m.done)
	var f *playback.BlockFilter
	if conv != nil {
		f = playback.NewBlockFilter(conv, len(m.taps), m.size, m.ch)
		defer func() {
			if f.Conv != nil {
				f.Conv.Close()
			}
		}()
	}
	in := make([]float32, m.step*m.ch)
	have := 0
	for {
		select {
		case <-m.stop:
			return
		default:
		}
		have += m.ring.Read(in[have*m.ch:])
		if have < m.step {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		have = 0
		out := in // without a band the block plays as it came
		if f != nil {
			var gpuErr error
			if out, gpuErr = f.Filter(in); gpuErr != nil {
				// the GPU failed: go on with a CPU convolver
				f.Conv.Close()
				var eng string
				var err error
				f.Conv, eng, err = newConvolver(engine.Pair{Preferred: engines.CPU, CPU: engines.CPU}, m.taps, m.size, m.ch)
				m.mu.Lock()
				m.engine = eng
				m.mu.Unlock()
				if err != nil {
					m.setStatus(fmt.Sprintf("filter failed: %v", err))
					return
				}
				m.setStatus(engine.FallbackNotice(gpuErr))
				continue
			}
		}
		if err := m.out.Write(out); err != nil {
			m.setStatus(err.Error())
			return
		}
	}
}

// Close stops the output and closes the device. Calling it twice is
// harmless.
func (m *Playthrough) Close() {
	select {
	case <-m.stop:
		return
	default:
	}
	close(m.stop)
	<-m.done
	m.out.Close()
}
