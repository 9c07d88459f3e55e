package apptest

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// StallingSource delivers `blocks` blocks of 240 samples, 5 ms apart,
// then blocks until closed: a device that stops delivering (live's
// watchdog test, capture's outage test).
type StallingSource struct {
	blocks int
	closed chan struct{}
	once   atomic.Bool
	start  time.Time // the first read: blocks are due 5 ms apart from it
	sent   int
}

func (s *StallingSource) Name() string    { return "stalling" }
func (s *StallingSource) SampleRate() int { return 48000 }
func (s *StallingSource) Channels() int   { return 1 }
func (s *StallingSource) Read(dst []float32) (int, time.Time, error) {
	if s.blocks > 0 {
		s.blocks--
		if s.start.IsZero() {
			s.start = time.Now()
		}
		// paced by its own clock, as a device is (5 ms of input every
		// 5 ms): a late wake-up on a loaded machine is caught up, not
		// accumulated into input arriving slower than real time
		// It reports each block's time on that clock too, as a device
		// reports its buffers' capture time: the recorder's hold after a
		// reopening (audio's resync) is done only when its last two blocks
		// came paced, and a late wake-up caught up on the last blocks made
		// them look like a backlog (arrival times from time.Now 0 ms
		// apart), so the ten blocks stayed held, unwritten, until the
		// watchdog's 3-s grace for a fresh source reopened it again
		// (TestWatchdog failed about once in 30 runs under load).
		s.sent++
		due := s.start.Add(time.Duration(s.sent) * 5 * time.Millisecond)
		time.Sleep(time.Until(due))
		return min(len(dst), 240), due, nil
	}
	<-s.closed
	return 0, time.Time{}, errors.New("closed")
}

// Abort makes a blocked Read return, as the watchdog asks.
func (s *StallingSource) Abort() { s.Close() }

func (s *StallingSource) Close() error {
	if s.once.CompareAndSwap(false, true) {
		close(s.closed)
	}
	return nil
}

// NewStallingSource is a StallingSource of blocks blocks.
func NewStallingSource(blocks int) *StallingSource {
	return &StallingSource{blocks: blocks, closed: make(chan struct{})}
}

// SlowEngine's live plans take at least Delay a batch: an engine that
// cannot keep up with its input.
type SlowEngine struct {
	gpufft.Engine
	Delay time.Duration
}

// NewLive is the engine's live plan, slowed.
func (e SlowEngine) NewLive(cfg gpufft.LiveConfig) (gpufft.LivePlan, error) {
	p, err := e.Engine.NewLive(cfg)
	return slowLive{LivePlan: p, delay: e.Delay}, err
}

type slowLive struct {
	gpufft.LivePlan
	delay time.Duration
}

func (p slowLive) Execute(out *gpufft.LiveOutput, src []float32, first int64, traces bool) (int, error) {
	time.Sleep(p.delay)
	return p.LivePlan.Execute(out, src, first, traces)
}
