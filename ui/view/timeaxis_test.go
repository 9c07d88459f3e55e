package view

import (
	"testing"
	"time"
)

// TestFormatDuration: durations as people write them, and Go durations in
// messages rewritten.
func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{371519272 * time.Nanosecond, "372 ms"},
		{2400 * time.Millisecond, "2.4 s"},
		{3700 * time.Microsecond, "3.7 ms"},
		{850 * time.Microsecond, "850 µs"},
		{12 * time.Second, "12 s"},
		{65 * time.Second, "1 m 05 s"},
		{500, "500 ns"},
	} {
		if got := FormatDuration(c.d); got != c.want {
			t.Errorf("%v: %q, want %q", c.d, got, c.want)
		}
	}
	if got := HumanDurations("no data for 371.519272ms; stalled 2.4s (1m5s total) at 3 dB"); got != "no data for 372 ms; stalled 2.4 s (1 m 05 s total) at 3 dB" {
		t.Errorf("humanDurations: %q", got)
	}
}
