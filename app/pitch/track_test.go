package pitch

import (
	"math"
	"testing"
)

// A stream fed in blocks of odd sizes makes the points Track makes of the
// same samples (hop shorter and longer than a frame), and Push and Read
// do not allocate.
func TestStreamEqualsTrack(t *testing.T) {
	x := harmonic(rate/2/raceScale, 5, func(t float64) float64 { return 180 * (1 + 0.3*t) })
	cfg := Config{SampleRate: rate, MinHz: 100, MaxHz: 1000}
	for _, hop := range []int{240, 1500} {
		want, err := Track(x, cfg, hop)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewStream(cfg, hop, len(want)+5)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := 0, 1; i < len(x); k = k*7%1009 + 1 {
			end := min(len(x), i+k)
			s.Push(x[i:end])
			i = end
		}
		got := s.Read(make([]Point, 0, len(want)+5))
		if len(got) != len(want) {
			t.Fatalf("hop %d: %d points, Track %d", hop, len(got), len(want))
		}
		for i := range got {
			if math.Abs(got[i].TimeS-want[i].TimeS) > 1e-12 || got[i].F0Hz != want[i].F0Hz && !(math.IsNaN(got[i].F0Hz) && math.IsNaN(want[i].F0Hz)) {
				t.Fatalf("hop %d point %d: %+v, Track %+v", hop, i, got[i], want[i])
			}
		}
		last := s.Read(make([]Point, 0, 3))
		if len(last) != 3 || last[2] != got[len(got)-1] {
			t.Errorf("Read into 3: %+v, want the newest 3 ending %+v", last, got[len(got)-1])
		}
		dst := make([]Point, 0, 16)
		if n := testing.AllocsPerRun(5, func() { s.Push(x[:4000]); dst = s.Read(dst) }); n != 0 {
			t.Errorf("Push and Read: %v allocs, want 0", n)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{SampleRate: 0, MinHz: 50, MaxHz: 500},
		{SampleRate: rate, MinHz: 500, MaxHz: 50},
		{SampleRate: rate, MinHz: 0, MaxHz: 50},
		{SampleRate: rate, MinHz: 50, MaxHz: 20000},
		{SampleRate: rate, MinHz: 50, MaxHz: 500, Threshold: 1.5},
		{SampleRate: rate, MinHz: 0.1, MaxHz: 500},
	} {
		if _, err := NewDetector(cfg); err == nil {
			t.Errorf("NewDetector(%+v): no error", cfg)
		}
	}
}

// BenchmarkDetector/fmin=50: one frame's estimate at 48 kHz, 50…2000 Hz
// (a 10 ms hop makes 100 of them per second of audio).
func BenchmarkDetector(b *testing.B) {
	d, err := NewDetector(Config{SampleRate: rate, MinHz: 50, MaxHz: 2000})
	if err != nil {
		b.Fatal(err)
	}
	x := harmonic(d.FrameLen(), 1, func(float64) float64 { return 220 })
	b.ReportAllocs()
	for b.Loop() {
		d.Estimate(x)
	}
}

// After Gap(n) the points go on timed n samples later, the partial frame
// dropped: pushing x[:a], Gap(b−a), x[b:] makes Track's points of x whose
// frames lie wholly in x[:a] or wholly in x[b:] (on the hop grid from b).
func TestStreamGap(t *testing.T) {
	x := harmonic(rate/2, 7, func(float64) float64 { return 300 })
	cfg := Config{SampleRate: rate, MinHz: 100, MaxHz: 1000}
	const hop, a, b = 480, 7000, 12345
	s, _ := NewStream(cfg, hop, 1000)
	s.Push(x[:a])
	s.Gap(b - a)
	s.Push(x[b:])
	got := s.Read(make([]Point, 0, 1000))
	before, _ := Track(x[:a], cfg, hop)
	after, _ := Track(x[b:], cfg, hop)
	if len(got) != len(before)+len(after) {
		t.Fatalf("%d points, want %d + %d", len(got), len(before), len(after))
	}
	for i, p := range got {
		want := func() Point {
			if i < len(before) {
				return before[i]
			}
			q := after[i-len(before)]
			q.TimeS += float64(b) / rate
			return q
		}()
		if math.Abs(p.TimeS-want.TimeS) > 1e-9 || p.F0Hz != want.F0Hz {
			t.Fatalf("point %d: %+v, want %+v", i, p, want)
		}
	}
}
