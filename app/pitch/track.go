package pitch

import (
	"fmt"
	"sync"
)

// Point is one estimate of a track: TimeS is the centre of its frame, in
// seconds from the first sample.
type Point struct {
	TimeS float64
	Estimate
}

// Track runs a detector over x (one channel) with frames hopSamples apart,
// the first starting at sample 0 and the last the last that fits: x
// shorter than a frame gives no points. It allocates the result.
func Track(x []float32, cfg Config, hopSamples int) ([]Point, error) {
	d, err := NewDetector(cfg)
	if err != nil {
		return nil, err
	}
	if hopSamples < 1 {
		return nil, fmt.Errorf("pitch: hop of %d samples", hopSamples)
	}
	n := d.FrameLen()
	if len(x) < n {
		return nil, nil
	}
	pts := make([]Point, 0, (len(x)-n)/hopSamples+1)
	for start := 0; start+n <= len(x); start += hopSamples {
		pts = append(pts, Point{TimeS: frameCentre(start, n, cfg.SampleRate), Estimate: d.Estimate(x[start : start+n])})
	}
	return pts, nil
}

func frameCentre(start, n, rate int) float64 { return (float64(start) + float64(n)/2) / float64(rate) }

// Stream is a detector over a live stream: the engine goroutine pushes
// samples of one channel (Push), an estimate is made every hop samples,
// and the newest Keep points are kept for any goroutine to copy (Read).
type Stream struct {
	det       *Detector
	hop, have int
	skip      int    // samples still to drop before the next frame (hop > FrameLen)
	consumed  uint64 // samples shifted out of buf or dropped so far
	buf       []float32

	mu   sync.Mutex
	ring []Point // the newest points, oldest first from head once full
	head int
	n    int
}

// NewStream makes a stream of keep points, an estimate every hopSamples.
func NewStream(cfg Config, hopSamples, keep int) (*Stream, error) {
	d, err := NewDetector(cfg)
	if err != nil {
		return nil, err
	}
	if hopSamples < 1 || keep < 1 {
		return nil, fmt.Errorf("pitch: hop of %d samples, %d points kept", hopSamples, keep)
	}
	return &Stream{det: d, hop: hopSamples, buf: make([]float32, d.FrameLen()), ring: make([]Point, keep)}, nil
}

// Config is the stream's detector configuration.
func (s *Stream) Config() Config { return s.det.Config() }

// Push feeds samples of one channel. Only one goroutine pushes; it does
// not allocate.
func (s *Stream) Push(samples []float32) {
	for len(samples) > 0 {
		if s.skip > 0 {
			k := min(s.skip, len(samples))
			samples, s.skip, s.consumed = samples[k:], s.skip-k, s.consumed+uint64(k)
			continue
		}
		k := copy(s.buf[s.have:], samples)
		s.have += k
		samples = samples[k:]
		if s.have < len(s.buf) {
			return
		}
		e := s.det.Estimate(s.buf)
		t := frameCentre(0, len(s.buf), s.det.cfg.SampleRate) + float64(s.consumed)/float64(s.det.cfg.SampleRate)
		s.add(Point{TimeS: t, Estimate: e})
		shift := min(s.hop, len(s.buf))
		copy(s.buf, s.buf[shift:])
		s.have -= shift
		s.consumed += uint64(shift)
		s.skip = s.hop - shift
	}
}

func (s *Stream) add(p Point) {
	s.mu.Lock()
	s.ring[s.head] = p
	s.head = (s.head + 1) % len(s.ring)
	s.n = min(s.n+1, len(s.ring))
	s.mu.Unlock()
}

// Read copies the newest points, oldest first, into dst[:0] (up to
// cap(dst) of them) and returns it. Any goroutine may call it; it does
// not allocate when dst has the capacity.
func (s *Stream) Read(dst []Point) []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := min(s.n, cap(dst))
	dst = dst[:k]
	for i := range k {
		dst[i] = s.ring[(s.head-k+i+len(s.ring))%len(s.ring)]
	}
	return dst
}

// Gap says the next sample pushed comes samples after the last one
// pushed (input lost): the partial frame held is dropped, the points are
// kept and the next ones are timed after the gap. Only the pushing
// goroutine calls it.
func (s *Stream) Gap(samples uint64) {
	s.consumed += uint64(s.have) + samples
	s.have, s.skip = 0, 0
}

// Reset forgets the pushed samples and the points (a new source).
func (s *Stream) Reset() {
	s.have, s.skip, s.consumed = 0, 0, 0
	s.mu.Lock()
	s.n, s.head = 0, 0
	s.mu.Unlock()
}
