package scope

import (
	"math"
	"testing"
)

// stream is a Source over a signal that grows as the test advances end;
// it holds the newest hold samples.
type stream struct {
	x         []float32
	end, hold int
}

func (s *stream) Span() (from, end uint64, channels, rate int) {
	return uint64(max(0, s.end-s.hold)), uint64(s.end), 1, 48000
}

func (s *stream) ReadAt(dst []float32, ch int, start uint64) bool {
	from, end, _, _ := s.Span()
	if ch > 0 || start < from || start+uint64(len(dst)) > end {
		return false
	}
	copy(dst, s.x[start:])
	return true
}

const (
	rate = 48000
	hz   = 997.0 // not a divisor of the rate: crossings fall between samples
	amp  = 0.8
)

func sine(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*hz*float64(i)/rate+0.3))
	}
	return x
}

// crossing is the analytic position (samples) of the sine's crossing of
// level in direction edge nearest to pos.
func crossing(pos float64, level float64, edge Edge) float64 {
	phase := math.Asin(level / amp) // rising: sin = level with a positive slope
	if edge == Falling {
		phase = math.Pi - phase
	}
	period := rate / hz
	k := math.Round((pos/period*2*math.Pi + 0.3 - phase) / (2 * math.Pi))
	return (phase - 0.3 + 2*math.Pi*k) / (2 * math.Pi) * period
}

// A triggered sine: for rising and falling edges at several levels, in
// auto and normal mode, every trace's trigger point sits on the
// crossing: trace[⌊trigger⌋] and trace[⌊trigger⌋+1] bracket the level in
// the edge's direction, the trigger point is within one sample of Pre,
// and start+trigger is the analytic crossing within 0.05 samples.
func TestTriggerAtCrossing(t *testing.T) {
	x := sine(rate / 2)
	for _, edge := range []Edge{Rising, Falling} {
		for _, level := range []float64{0, 0.3, -0.5, 0.75} {
			for _, mode := range []Mode{Auto, Normal} {
				src := &stream{x: x, hold: rate / 10}
				sc := New(Config{Span: 960, Pre: 240, Trigger: Trigger{Edge: edge, Level: level, Mode: mode}})
				traces := 0
				for src.end = 0; src.end < len(x); src.end += 512 {
					if !sc.Update(src) {
						continue
					}
					traces++
					tr, start, trig, triggered, ok := sc.Trace()
					if !ok || !triggered {
						t.Fatalf("%v %v %v: a trace not triggered", edge, level, mode)
					}
					i := int(trig)
					a, b := float64(tr[i]), float64(tr[i+1])
					if edge == Falling {
						a, b = -a, -b
						level = -level
					}
					if !(a < level && b >= level) || trig < 240 || trig >= 241 {
						t.Errorf("%v %v %v: trigger at %.3f, samples %v %v around it", edge, level, mode, trig, tr[i], tr[i+1])
					}
					if edge == Falling {
						level = -level
					}
					got := float64(start) + trig
					if want := crossing(got, level, edge); math.Abs(got-want) > 0.05 {
						t.Errorf("%v %v %v: crossing at %.4f, analytic %.4f", edge, level, mode, got, want)
					}
				}
				if traces < 20 {
					t.Errorf("%v %v %v: %d traces in 0.5 s", edge, level, mode, traces)
				}
			}
		}
	}
}

// Single shot: one trace after the first trigger, then no change however
// much triggering signal comes, until Arm; after Arm the next trace is of
// samples that came after it.
func TestSingleShotHolds(t *testing.T) {
	x := sine(rate / 2)
	src := &stream{x: x, hold: rate / 10}
	sc := New(Config{Span: 480, Pre: 48, Trigger: Trigger{Edge: Rising, Level: 0.2, Mode: Single}})
	var first uint64
	updates := 0
	for src.end = 0; src.end < rate/4; src.end += 300 {
		if sc.Update(src) {
			updates++
			_, first, _, _, _ = sc.Trace()
		}
	}
	tr, start, _, _, ok := sc.Trace()
	if updates != 1 || !ok || start != first || !sc.Held() {
		t.Fatalf("%d updates (want 1), held %v, trace at %d (first %d)", updates, sc.Held(), start, first)
	}
	kept := append([]float32(nil), tr...)
	armedAt := uint64(src.end)
	sc.Arm()
	for ; src.end < len(x); src.end += 300 {
		if sc.Update(src) {
			break
		}
	}
	tr, start, _, _, ok = sc.Trace()
	if !ok || start < armedAt || !sc.Held() {
		t.Fatalf("after Arm at %d: trace at %d, ok %v, held %v", armedAt, start, ok, sc.Held())
	}
	same := true
	for i := range tr {
		same = same && tr[i] == kept[i]
	}
	if start == first || (same && (start-first)%uint64(rate) == 0) {
		t.Errorf("the re-armed trace is the first one")
	}
}

// Normal mode holds the last trace when the signal stops crossing the
// level; auto mode free-runs once AutoAfter samples pass without one.
func TestAutoFreeRuns(t *testing.T) {
	x := sine(rate / 4)
	for i := rate / 8; i < len(x); i++ {
		x[i] *= 0.1 // below the level from 1/8 s on
	}
	for _, mode := range []Mode{Normal, Auto} {
		src := &stream{x: x, hold: rate / 10}
		sc := New(Config{Span: 480, Pre: 48, AutoAfter: 2400, Trigger: Trigger{Level: 0.5, Mode: mode}})
		var lastTrig, lastAny uint64
		for src.end = 0; src.end < len(x); src.end += 256 {
			if sc.Update(src) {
				_, start, _, triggered, _ := sc.Trace()
				lastAny = start
				if triggered {
					lastTrig = start
				}
			}
		}
		if lastTrig >= rate/8 || lastTrig < rate/8-2000 {
			t.Errorf("%v: last triggered trace at %d, want just before %d", mode, lastTrig, rate/8)
		}
		if mode == Normal && lastAny != lastTrig {
			t.Errorf("normal: a free-running trace at %d", lastAny)
		}
		if mode == Auto && lastAny < uint64(len(x)-2*480-256) {
			t.Errorf("auto: last trace at %d, want free-running near the end %d", lastAny, len(x))
		}
	}
}

func TestFindHysteresis(t *testing.T) {
	x := []float32{0.45, 0.55, 0.45, 0.55, 0.2, 0.6}
	at, ok := Find(x, 1, Trigger{Level: 0.5, Hysteresis: 0.2})
	if !ok || math.Abs(at-4.75) > 1e-6 {
		t.Errorf("hysteresis 0.2: %v %v, want 4.75 (the rise from 0.2; the wiggles around 0.5 do not arm it)", at, ok)
	}
	at, ok = Find(x, 1, Trigger{Level: 0.5})
	if !ok || math.Abs(at-0.5) > 1e-6 {
		t.Errorf("no hysteresis: %v %v, want 0.5", at, ok)
	}
	at, ok = Find(x, 1, Trigger{Edge: Falling, Level: 0.5})
	if !ok || math.Abs(at-1.5) > 1e-6 {
		t.Errorf("falling: %v %v, want 1.5", at, ok)
	}
	// no allocation per search or update
	src := &stream{x: sine(rate), hold: rate / 10, end: rate / 2}
	sc := New(Config{Span: 480, Pre: 48, Trigger: Trigger{Level: 0.1}})
	if n := testing.AllocsPerRun(20, func() { src.end += 100; sc.Update(src) }); n != 0 {
		t.Errorf("Update: %v allocs, want 0", n)
	}
}
