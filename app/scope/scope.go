// Package scope is the oscilloscope's rules: where a trigger (a rising
// or falling crossing of a level, to a fraction of a sample) fires, and
// which trace a scope shows in each trigger mode (auto: the newest
// triggered span, or the newest span free-running when nothing triggers
// for a while; normal: the newest triggered span, held until the next;
// single: the first triggered span after arming, held until re-armed).
// It reads samples through Source (package scopetap's Tap in the window,
// a file's samples in the file view) and knows nothing of devices, files
// or drawing. A Scope's trace is its own; one goroutine uses it.
package scope

import (
	"fmt"
)

// Edge is the direction of a trigger crossing.
type Edge int

// The edges.
const (
	Rising Edge = iota
	Falling
)

func (e Edge) String() string { return [...]string{"rising", "falling"}[e] }

// Mode is when a scope redraws.
type Mode int

// The trigger modes.
const (
	Auto   Mode = iota // triggered when it can, free-running when nothing triggers
	Normal             // only on a trigger: the last triggered trace stays
	Single             // once after Arm, then held
)

func (m Mode) String() string { return [...]string{"auto", "normal", "single"}[m] }

// Trigger is where a trace starts: the signal crossing Level (full scale
// 1) in the direction Edge, after having been Hysteresis beyond it on the
// other side (0: any amount).
type Trigger struct {
	Edge       Edge
	Level      float64
	Hysteresis float64
	Mode       Mode
}

// Find returns the position, in samples from x[0] (fractional, by linear
// interpolation between the samples either side), of the first crossing
// of tr in x at or after index from (the crossing lies between x[i−1] and
// x[i] with i ≥ from, i ≥ 1). ok is false when there is none.
func Find(x []float32, from int, tr Trigger) (at float64, ok bool) {
	level, armAt := float32(tr.Level), float32(tr.Level-tr.Hysteresis)
	sign := float32(1)
	if tr.Edge == Falling {
		level, armAt, sign = -level, float32(-tr.Level-tr.Hysteresis), -1
	}
	armed := false
	for i := max(1, from) - 1; i < len(x); i++ {
		v := sign * x[i]
		if armed && v >= level && i >= max(1, from) {
			prev := sign * x[i-1]
			frac := 0.0
			if v != prev {
				frac = float64((level - prev) / (v - prev))
			}
			return float64(i-1) + frac, true
		}
		if v < armAt || (tr.Hysteresis == 0 && v < level) {
			armed = true
		}
	}
	return 0, false
}

// Source is what a scope reads: the positions held (from…end, end
// exclusive) and a copy of len(dst) samples of channel ch (−1: the mix)
// from position start, false where they are not all held.
type Source interface {
	Span() (from, end uint64, channels, rate int)
	ReadAt(dst []float32, ch int, start uint64) bool
}

// Config is what a scope shows: Span samples, the trigger point Pre
// samples into them, of channel Channel (−1: the mix; the trigger looks
// at it), the trigger's rule, and after how many samples without a
// trigger auto mode free-runs (AutoAfter; 0: Span).
type Config struct {
	Span, Pre int
	Channel   int
	Trigger   Trigger
	AutoAfter int
}

// Scope picks the trace to show from a Source, by Config's trigger.
type Scope struct {
	cfg      Config
	search   []float32 // the samples searched for a trigger
	trace    []float32
	traceAt  uint64  // the position of trace[0]
	fired    float64 // the trigger's position in trace, samples; NaN-free
	have     bool    // a trace is held
	trigged  bool    // the trace held was triggered
	held     bool    // single: captured, waiting for Arm
	rearmed  bool    // Arm was called: the next Update starts at the newest sample
	searched uint64  // triggers before this position were seen already
	lastAt   uint64  // the end of the last trace
	trigEnd  uint64  // the end of the last triggered trace
}

// New makes a scope; it panics on Span < 2 or Pre outside 0…Span−1.
func New(cfg Config) *Scope {
	if cfg.Span < 2 || cfg.Pre < 0 || cfg.Pre >= cfg.Span {
		panic(fmt.Sprintf("scope: span %d, pre %d", cfg.Span, cfg.Pre))
	}
	if cfg.AutoAfter <= 0 {
		cfg.AutoAfter = cfg.Span
	}
	return &Scope{cfg: cfg, trace: make([]float32, cfg.Span), search: make([]float32, 0, 4*cfg.Span+2)}
}

// Config is the scope's configuration.
func (s *Scope) Config() Config { return s.cfg }

// Arm starts a single-shot capture again (and, in the other modes, drops
// the trace held, so the next trigger redraws).
func (s *Scope) Arm() { s.held, s.have, s.rearmed = false, false, true }

// Held reports a single-shot capture waiting for Arm.
func (s *Scope) Held() bool { return s.held }

// Trace is the trace held: Span samples, the position of the first, the
// trigger point in samples from the first (Pre plus the crossing's
// fraction; Pre when free-running) and whether it was triggered. ok is
// false before the first trace. The slice is the scope's and changes with
// the next Update that returns true.
func (s *Scope) Trace() (x []float32, start uint64, trigger float64, triggered, ok bool) {
	return s.trace, s.traceAt, s.fired, s.trigged, s.have
}

// Update looks at the samples src gained since the last call and reports
// whether the trace changed. It does not allocate.
func (s *Scope) Update(src Source) bool {
	if s.held {
		return false
	}
	from, end, _, rate := src.Span()
	if rate == 0 || end-from < uint64(s.cfg.Span) {
		return false
	}
	post := uint64(s.cfg.Span - s.cfg.Pre)
	if s.rearmed { // only what comes after Arm
		s.rearmed, s.searched, s.lastAt, s.trigEnd = false, end, end, end
		return false
	}
	// a trigger at t (the sample before the crossing) needs t−Pre ≥ from and
	// t+post ≤ end; look at most 4 spans back
	lo := max(from+uint64(s.cfg.Pre)+1, s.searched, s.lastAt+uint64(s.cfg.Pre), end-min(end-from, uint64(cap(s.search))))
	if lo+post <= end {
		start := lo // and one sample before it, for the crossing into lo
		if start > from {
			start--
		}
		n := int(end - post + 1 - start)
		buf := s.search[:n]
		if src.ReadAt(buf, s.cfg.Channel, start) {
			if s.latest(buf, start, src) {
				return true
			}
			s.searched = end - post + 1
		}
	}
	// auto: free-run AutoAfter samples after the last triggered trace, then
	// with every new span
	quiet := end - max(s.trigEnd, from)
	if s.cfg.Trigger.Mode == Auto && quiet >= uint64(s.cfg.AutoAfter)+post && end-s.lastAt >= uint64(s.cfg.Span) {
		if src.ReadAt(s.trace, s.cfg.Channel, end-uint64(s.cfg.Span)) {
			s.traceAt, s.fired, s.trigged, s.have = end-uint64(s.cfg.Span), float64(s.cfg.Pre), false, true
			s.lastAt = end
			return true
		}
	}
	return false
}

// latest takes the newest trigger in buf (the first after arming, for
// single) whose trace src holds, copying it into the trace.
func (s *Scope) latest(buf []float32, start uint64, src Source) bool {
	best, found := 0.0, false
	for i := 1; ; {
		at, ok := Find(buf, i, s.cfg.Trigger)
		if !ok {
			break
		}
		best, found = at, true
		if s.cfg.Trigger.Mode == Single {
			break
		}
		i = int(at) + 2
	}
	if !found {
		return false
	}
	whole := uint64(best)
	t := start + whole
	if !src.ReadAt(s.trace, s.cfg.Channel, t-uint64(s.cfg.Pre)) {
		return false
	}
	s.traceAt, s.fired, s.trigged, s.have = t-uint64(s.cfg.Pre), float64(s.cfg.Pre)+best-float64(whole), true, true
	s.lastAt = s.traceAt + uint64(s.cfg.Span)
	s.searched, s.trigEnd = s.lastAt, s.lastAt
	s.held = s.cfg.Trigger.Mode == Single
	return true
}
