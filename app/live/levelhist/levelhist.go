// Package levelhist is the live level history: package soundlevel's
// rows (LAeq, LCeq, LAFmax, LASmax, LCpeak, sample and true peak per
// interval) of one input channel, kept for the last Capacity intervals,
// for the window's level-history strip, its CSV export and `prism
// capture --levels-every`. Package live feeds a History every block it
// reads (the engine goroutine); any goroutine reads it. It knows nothing
// of devices, engines or windows.
package levelhist

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/meter/soundlevel"
)

// DefaultInterval is a History's interval until SetInterval.
const DefaultInterval = time.Second

// Capacity is the most rows a History keeps (12 h of 1-s rows); older
// rows are dropped.
const Capacity = 12 * 3600

// History measures one channel of a stream in intervals and keeps the
// rows. Write is called by one goroutine (live's engine goroutine); the
// others any goroutine may call. A mutex guards everything; Write holds
// it for one block's measuring (a few hundred microseconds at most).
type History struct {
	mu       sync.Mutex
	m        *soundlevel.Meter // nil until a block comes, or after a change
	ch, rate int               // of the stream the meter was made for
	channel  int
	every    time.Duration
	rows     []soundlevel.Row // ring of Capacity, made with the first row
	first    int              // index in rows of the oldest kept row
	n        int              // rows kept
	next     int64            // sequence number of the next row (0 after Reset)
}

// New makes a history of channel 0 in DefaultInterval rows. Its rows'
// memory (Capacity rows, 3 MB) is taken with the first row.
func New() *History {
	return &History{every: DefaultInterval}
}

// Write measures an interleaved block of ch channels at rate Hz. A new
// channel count or rate starts the history over (the meter is remade:
// the only time Write allocates). A channel the stream lacks is measured
// as channel 0. It panics if len(x) is not a multiple of ch.
func (h *History) Write(x []float32, ch, rate int) {
	if len(x) == 0 || ch < 1 || rate < 1 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || ch != h.ch || rate != h.rate {
		if !h.remake(ch, rate) {
			return
		}
	}
	for len(x) > 0 {
		k, done := h.m.Write(x)
		x = x[k:]
		if done {
			h.take()
		}
	}
}

// remake starts over on a stream of ch channels at rate Hz.
func (h *History) remake(ch, rate int) bool {
	c := h.channel
	if c >= ch {
		c = 0
	}
	iv := max(1, int64(h.every.Seconds()*float64(rate)+0.5))
	m, err := soundlevel.NewMeter(soundlevel.Config{SampleRate: rate, Channels: ch, Channel: c, IntervalSamples: iv})
	if err != nil {
		return false
	}
	h.m, h.ch, h.rate = m, ch, rate
	h.first, h.n, h.next = 0, 0, 0
	return true
}

// take appends the meter's current interval, if it holds samples.
func (h *History) take() {
	r, ok := h.m.Take()
	if !ok {
		return
	}
	if h.rows == nil {
		h.rows = make([]soundlevel.Row, Capacity)
	}
	i := (h.first + h.n) % len(h.rows)
	h.rows[i] = r
	if h.n < len(h.rows) {
		h.n++
	} else {
		h.first = (h.first + 1) % len(h.rows)
	}
	h.next++
}

// SetInterval sets the rows' interval (> 0; others are ignored) and
// starts the history over.
func (h *History) SetInterval(d time.Duration) {
	if d <= 0 {
		return
	}
	h.mu.Lock()
	h.every, h.m = d, nil
	h.first, h.n, h.next = 0, 0, 0
	h.mu.Unlock()
}

// Interval is the rows' interval.
func (h *History) Interval() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.every
}

// SetChannel sets the channel measured (0-based) and starts the history
// over.
func (h *History) SetChannel(c int) {
	h.mu.Lock()
	h.channel, h.m = max(0, c), nil
	h.first, h.n, h.next = 0, 0, 0
	h.mu.Unlock()
}

// Reset forgets every row; the next block starts at 0 s.
func (h *History) Reset() {
	h.mu.Lock()
	h.m = nil
	h.first, h.n, h.next = 0, 0, 0
	h.mu.Unlock()
}

// Flush closes the interval in progress as a (short) row, as at the end
// of a capture.
func (h *History) Flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m != nil {
		h.take()
	}
}

// Rows copies into dst the kept rows whose sequence number is at least
// after (rows are numbered from 0 since the history started over), oldest
// first, as many as fit, and returns how many it copied and the sequence
// number after the last one copied: call again with it to get only newer
// rows. A next below after means the history started over: read from 0.
// It does not allocate.
func (h *History) Rows(dst []soundlevel.Row, after int64) (n int, next int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	oldest := h.next - int64(h.n)
	if after > h.next {
		return 0, h.next // started over since: the caller reads from 0
	}
	after = max(after, oldest)
	for n < len(dst) && after+int64(n) < h.next {
		dst[n] = h.rows[(h.first+int(after-oldest)+n)%len(h.rows)]
		n++
	}
	return n, after + int64(n)
}

// WriteCSV writes the kept rows as a level log (soundlevel.CSVHeader),
// the sound levels plus offsetDB (a calibration's; 0 for dB re full scale).
func (h *History) WriteCSV(w io.Writer, offsetDB float64) error {
	rows := make([]soundlevel.Row, Capacity)
	n, _ := h.Rows(rows, 0)
	b := make([]byte, 0, 64*(n+2))
	b = append(b, soundlevel.CSVHeader+"\n"...)
	for _, r := range rows[:n] {
		b = soundlevel.AppendCSV(b, r.Calibrated(offsetDB))
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("levelhist: %w", err)
	}
	return nil
}
