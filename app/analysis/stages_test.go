package analysis

import (
	"testing"
	"time"
)

// TestBusyOf: overlapping, nested, touching and disjoint spans of two
// kinds against unions and sums counted by hand.
func TestBusyOf(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	spans := []Span{
		{SpanRead, at(10), at(20)},
		{SpanEncode, at(100), at(130)},
		{SpanRead, at(15), at(30)}, // overlaps the first: union 10…30
		{SpanRead, at(12), at(18)}, // nested
		{SpanRead, at(30), at(35)}, // touches: union 10…35
		{SpanRead, at(50), at(60)}, // disjoint
		{SpanEncode, at(5), at(6)},
		{SpanRead, at(40), at(39)}, // ends before it starts: ignored
	}
	busy, first, last := BusyOf(spans)
	if !first.Equal(at(5)) || !last.Equal(at(130)) {
		t.Errorf("covered %v…%v, want 5 ms…130 ms", first.Sub(t0), last.Sub(t0))
	}
	want := []Busy{
		{SpanRead, 35 * time.Millisecond, (10 + 15 + 6 + 5 + 10) * time.Millisecond},
		{SpanEncode, 31 * time.Millisecond, 31 * time.Millisecond},
	}
	if len(busy) != len(want) {
		t.Fatalf("busy %+v, want %+v", busy, want)
	}
	for i := range want {
		if busy[i] != want[i] {
			t.Errorf("busy[%d] = %+v, want %+v", i, busy[i], want[i])
		}
	}
	if b, _, _ := BusyOf(nil); len(b) != 0 {
		t.Errorf("no spans: %+v", b)
	}
}
