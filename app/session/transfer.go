package session

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/audio"
)

// The window's transfer mode: a transfer.Live fed from the session's
// input. The recorder's ring has one reader, the live analysis's engine
// goroutine; it copies every block it reads to a Tee (live.TeeTransfer)
// also while paused (the window pauses the spectrum analysis while the
// Transfer tab is shown), here a ring of the transfer analyzer's own that
// wakes its goroutine, which feeds the analyzer (transfer.Live.Feed).
// The analyzer's results are read from any goroutine (LatestTransfer,
// TransferImpulse); a new source restarts it on the new rate and channels,
// or stops it with the reason when its channels are no longer there.

// transferRingSeconds is how much input the analyzer's ring holds: slack
// for an analysis batch that takes longer than the blocks arrive.
const transferRingSeconds = 2

// transferFeed is the Tee the live analysis copies its input into: a
// ring, and a wake-up for the transfer goroutine after each block.
type transferFeed struct {
	ring  *audio.Ring
	ready chan struct{}
}

// Write implements live.Tee: it never blocks.
func (f *transferFeed) Write(p []float32, t time.Time) {
	f.ring.Write(p, t)
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// Channels implements live.Tee.
func (f *transferFeed) Channels() int { return f.ring.Channels() }

// transferRun is one running transfer analyzer and its goroutine, which
// owns tr's Feed and buf.
type transferRun struct {
	tr       *transfer.Live
	set      transfer.LiveSettings // as given (Channels nil: every other)
	rate, ch int
	feed     *transferFeed
	stop     chan struct{}
	done     chan struct{}
	lost     atomic.Uint64 // input frames the ring overwrote before they were analyzed
}

func (r *transferRun) loop() {
	defer close(r.done)
	// 50 ms of input a Feed: batches of many frames, and a stop is
	// seen between them (a Feed analyzes all it is given)
	buf := make([]float32, max(r.rate/20, 256)*r.ch)
	ring := r.feed.ring
	for {
		select {
		case <-r.stop:
			return
		case <-r.feed.ready:
		}
		for {
			before := ring.Lost()
			n := ring.Read(buf)
			if d := ring.Lost() - before; d > 0 {
				r.lost.Add(d)
			}
			if n == 0 {
				break
			}
			// an error is in the analyzer's statistics (a GPU failure
			// carries on on the CPU and says so); the next block retries
			_, _ = r.tr.Feed(buf[:n*r.ch])
			select {
			case <-r.stop:
				return
			default:
			}
		}
	}
}

// close stops the goroutine, leaves the live analysis's tee and releases
// the analyzer's plan.
func (r *transferRun) close(l *live.Live) {
	l.SetTeeAt(live.TeeTransfer, nil)
	close(r.stop)
	<-r.done
	r.tr.Close()
}

// transferState is the Session's transfer mode. run is read without the
// Session's lock (the window's per-frame pull must not wait while a
// source opens): a stopped analyzer's results stay readable.
type transferState struct {
	run    atomic.Pointer[transferRun]
	msg    atomic.Pointer[string] // why it stopped, for the status (nil: nothing to say)
	findMu sync.Mutex
	finder *dual.DelayFinder
	res    transfer.LiveResult
	h      []complex128
}

// StartTransfer starts (or restarts, with new settings) the transfer
// analyzer on the session's input with the preferred engine (falling
// back to the CPU, which TransferStatus says). Changing any setting,
// Track included, restarts the averages.
func (m *Session) StartTransfer(s transfer.LiveSettings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("monitor closed")
	}
	m.xfer.msg.Store(nil)
	return m.startTransferLocked(s)
}

func (m *Session) startTransferLocked(s transfer.LiveSettings) error {
	m.stopTransferLocked()
	rate, ch := m.rec.SampleRate(), m.rec.Channels()
	set := s
	set.Channels = append([]int(nil), s.Channels...) // nil stays nil: every other channel
	tr, err := transfer.NewLiveFeed(rate, ch, m.engines, set)
	if err != nil {
		return err
	}
	r := &transferRun{tr: tr, set: set, rate: rate, ch: ch, stop: make(chan struct{}), done: make(chan struct{}),
		feed: &transferFeed{ring: audio.NewRing(transferRingSeconds*rate, ch), ready: make(chan struct{}, 1)}}
	m.xfer.run.Store(r)
	go r.loop()
	m.live.SetTeeAt(live.TeeTransfer, r.feed)
	return nil
}

// StopTransfer stops the transfer analyzer (its last results stay
// readable). Calling it when none runs is harmless.
func (m *Session) StopTransfer() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopTransferLocked()
	m.xfer.run.Store(nil)
	m.xfer.msg.Store(nil)
}

func (m *Session) stopTransferLocked() {
	if r := m.xfer.run.Load(); r != nil {
		select {
		case <-r.stop:
		default:
			r.close(m.live)
		}
	}
}

// restartTransferLocked follows a new source: the analyzer starts again
// on its rate and channels, or stops, saying why, when its reference or
// measurement channels are not there.
func (m *Session) restartTransferLocked() {
	r := m.xfer.run.Load()
	if r == nil {
		return
	}
	select {
	case <-r.stop:
		return // stopped before
	default:
	}
	if err := m.startTransferLocked(r.set); err != nil {
		m.stopTransferLocked()
		msg := fmt.Sprintf("transfer stopped: the new source has %d channels: %v", m.rec.Channels(), err)
		m.xfer.msg.Store(&msg)
	}
}

// TransferRunning says whether a transfer analyzer runs.
func (m *Session) TransferRunning() bool {
	r := m.xfer.run.Load()
	if r == nil {
		return false
	}
	select {
	case <-r.stop:
		return false
	default:
		return true
	}
}

// LatestTransfer is transfer.Live.Latest of the running (or last)
// analyzer: false before its first frame or when there is none. It does
// not allocate when dst has the shape of the last result. Any goroutine
// may call it.
func (m *Session) LatestTransfer(dst *transfer.LiveResult) bool {
	r := m.xfer.run.Load()
	if r == nil {
		return false
	}
	return r.tr.Latest(dst)
}

// TransferImpulse is transfer.Live.ImpulseResponse of measurement
// channel ch (an index into the result's Channels) into ir and etc (FFT
// values each, either nil), with the response's peak; ok is false when
// there is no analyzer, ch is out of range or a slice is shorter than its
// FFT size (the settings changed since the caller sized them).
func (m *Session) TransferImpulse(ch int, ir, etc []float64) (d dual.Delay, ok bool) {
	r := m.xfer.run.Load()
	if r == nil {
		return d, false
	}
	n := r.set.FFT
	chans := len(r.set.Channels)
	if r.set.Channels == nil {
		chans = r.ch - 1
	}
	if ch < 0 || ch >= chans || (ir != nil && len(ir) < n) || (etc != nil && len(etc) < n) {
		return d, false
	}
	return r.tr.ImpulseResponse(ch, ir, etc), true
}

// FindDelays finds each measurement channel's delay once (Find) and
// writes them into dst (one per channel, in the result's Channels
// order), returning how many it wrote: the peak of the impulse response
// of the averaged transfer function (GCC-PHAT weighted if phat), a
// Delay with Found false where there is no clear peak. While tracking,
// it reports the tracker's delays (the average is then of aligned
// frames). 0 before the first frame.
func (m *Session) FindDelays(dst []dual.Delay, phat bool) int {
	r := m.xfer.run.Load()
	if r == nil {
		return 0
	}
	x := &m.xfer
	x.findMu.Lock()
	defer x.findMu.Unlock()
	if !r.tr.Latest(&x.res) {
		return 0
	}
	res := &x.res
	bins := len(res.MagnitudeDB[0])
	if x.finder == nil || len(x.h) != bins {
		x.finder, x.h = dual.NewDelayFinder(bins), make([]complex128, bins)
	}
	n := min(len(dst), len(res.MagnitudeDB))
	for c := range n {
		if res.Tracked {
			dst[c] = res.Delays[c].Delay
			if res.Delays[c].NoPeak {
				dst[c] = dual.Delay{}
			}
			continue
		}
		for k := range x.h {
			a := math.Pow(10, res.MagnitudeDB[c][k]/20)
			s, co := math.Sincos(res.PhaseDeg[c][k] * math.Pi / 180)
			x.h[k] = complex(a*co, a*s)
		}
		dst[c] = x.finder.Find(x.h, phat)
	}
	return n
}

// TransferStatus describes the transfer analyzer for the status bar:
// its channels, size, engine (and any fallback), rate of analysis and
// dropped input; why it stopped; "" when it is off. It never waits for
// a source being opened (the window calls it on its own goroutine).
func (m *Session) TransferStatus() string {
	r := m.xfer.run.Load()
	if !m.TransferRunning() {
		if msg := m.xfer.msg.Load(); msg != nil {
			return *msg
		}
		return ""
	}
	var st live.Stats
	r.tr.ReadStats(&st)
	chans := len(r.set.Channels)
	if r.set.Channels == nil {
		chans = r.ch - 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "transfer: %d channel%s against ch %d, N=%d, hop %d on %s", chans, plural(chans), r.set.RefChannel+1, r.set.FFT, r.set.Hop, engineName(st.Engine))
	if st.FramesPerSec > 0 {
		fmt.Fprintf(&b, ", %.0f frames/s", st.FramesPerSec)
	}
	if lost := r.lost.Load(); lost > 0 {
		fmt.Fprintf(&b, ", %d input frames dropped", lost)
	}
	if st.Status != "" {
		b.WriteString(": " + st.Status)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
