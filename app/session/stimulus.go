package session

import (
	"fmt"
	"sync"

	"github.com/prismaudio/prism/audio"
)

// The stimulus output: a generator signal (the Transfer workspace's
// periodic pink noise or MLS) played to the default output device while
// the input is measured — the loudspeaker gets the stimulus, a loopback
// cable on one input carries it back as the reference. It runs on a
// goroutine of its own, writing the generator's blocks to the output
// (PortAudio's blocking write paces it), until stopped.

// stimulus is the stimulus being played.
type stimulus struct {
	spec string
	out  *audio.Playback
	stop chan struct{}
	done chan struct{}
}

// stimulusState guards the session's stimulus.
type stimulusState struct {
	mu  sync.Mutex
	cur *stimulus
	err string // why the last one stopped on its own ("" none)
}

// PlayStimulus plays the generator spec (audio.ParseGenerator's syntax)
// to the default output device at the input's rate, two channels,
// replacing any stimulus playing. With no output device it returns an
// error wrapping audio.ErrNoOutputDevice and plays nothing.
func (m *Session) PlayStimulus(spec string) error {
	gs, err := audio.ParseGenerator(spec)
	if err != nil {
		return err
	}
	m.StopStimulus()
	m.mu.Lock()
	rate := m.rec.SampleRate()
	m.mu.Unlock()
	g, err := audio.NewGenerator(gs, rate, 2, false)
	if err != nil {
		return err
	}
	out, err := audio.OpenPlayback(audio.PlaybackConfig{Rate: rate, Channels: 2})
	if err != nil {
		return fmt.Errorf("the stimulus needs an output device: %w", err)
	}
	s := &stimulus{spec: spec, out: out, stop: make(chan struct{}), done: make(chan struct{})}
	st := &m.stim
	st.mu.Lock()
	st.cur, st.err = s, ""
	st.mu.Unlock()
	go s.run(g, rate, st)
	return nil
}

// run writes the generator's blocks of 20 ms to the output until stopped
// or the output fails (then the status says why); it never closes the
// output (StopStimulus does, once it has returned).
func (s *stimulus) run(g *audio.Generator, rate int, st *stimulusState) {
	defer close(s.done)
	block := make([]float32, 2*max(1, rate/50))
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		g.Generate(block)
		if err := s.out.Write(block); err != nil {
			st.mu.Lock()
			st.err = err.Error()
			st.mu.Unlock()
			return
		}
	}
}

// StopStimulus stops the stimulus, if one plays, and waits for its
// goroutine.
func (m *Session) StopStimulus() {
	st := &m.stim
	st.mu.Lock()
	s := st.cur
	st.cur = nil
	st.mu.Unlock()
	if s == nil {
		return
	}
	close(s.stop)
	// the writer ends after its block (20 ms): the stream is closed only
	// then — PortAudio's stream closed under a blocking write corrupts
	// the heap
	<-s.done
	s.out.Close()
}

// StimulusStatus says what plays to the output ("" nothing), or why the
// last stimulus stopped.
func (m *Session) StimulusStatus() string {
	st := &m.stim
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.err != "":
		return "the stimulus stopped: " + st.err
	case st.cur != nil:
		return "playing " + st.cur.spec + " to " + st.cur.out.Name()
	}
	return ""
}
