package audio

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// TestRingStress runs a producer writing a counting sequence, with gaps
// (WriteGap) now and then, against a consumer that is sometimes slow:
// every frame read must be the next one after the last read plus exactly
// the frames counted as lost since, at the end read + lost = written, and
// the frames counted as gaps are exactly those the producer left out.
// Run with -race (make test does).
func TestRingStress(t *testing.T) {
	const channels = 2
	r := NewRing(1000, channels) // 1024 frames
	const total = 2_000_000
	var wg sync.WaitGroup
	var gapFrames uint64
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		block := make([]float32, 4096*channels)
		for next := 0; next < total; {
			if rng.IntN(300) == 0 { // an outage: up to three ring lengths
				g := min(total-next, 1+rng.IntN(3000))
				r.WriteGap(uint64(g))
				gapFrames += uint64(g)
				next += g
				continue
			}
			n := min(total-next, 1+rng.IntN(700))
			if rng.IntN(1000) == 0 {
				n = min(total-next, 1500+rng.IntN(2000)) // larger than the ring
			}
			for i := range n {
				block[i*channels] = float32(next + i)
				block[i*channels+1] = -float32(next + i)
			}
			r.Write(block[:n*channels], time.Now())
			next += n
		}
	})
	rng := rand.New(rand.NewPCG(3, 4))
	dst := make([]float32, 512*channels)
	var read, expect uint64
	for read+r.Lost() < total {
		lostBefore := r.Lost()
		n := r.Read(dst[:(1+rng.IntN(512))*channels])
		expect += r.Lost() - lostBefore
		if n == 0 {
			continue
		}
		for i := range n {
			want := float32(expect + uint64(i))
			if dst[i*channels] != want || dst[i*channels+1] != -want {
				t.Fatalf("frame %d = (%v, %v), want %v (read %d, lost %d)", i, dst[i*channels], dst[i*channels+1], want, read, r.Lost())
			}
		}
		expect += uint64(n)
		read += uint64(n)
		if rng.IntN(50) == 0 {
			time.Sleep(time.Duration(rng.IntN(300)) * time.Microsecond) // fall behind
		}
		if r.Position() != expect {
			t.Fatalf("Position %d, want %d", r.Position(), expect)
		}
	}
	wg.Wait()
	if got := read + r.Lost(); got != total || r.Written() != total {
		t.Errorf("read %d + lost %d = %d, written %d; want %d", read, r.Lost(), got, r.Written(), total)
	}
	if r.Gaps() != gapFrames || r.Gaps() == 0 {
		t.Errorf("%d frames counted as gaps, %d written as gaps", r.Gaps(), gapFrames)
	}
	if r.Overwritten() == 0 {
		t.Error("the slow consumer never lost a frame: the overwrite path was not exercised")
	}
	t.Logf("read %d, lost %d (%d overwritten, %d gaps)", read, r.Lost(), r.Overwritten(), r.Gaps())
}

func TestRingBasics(t *testing.T) {
	r := NewRing(4, 1)
	t0 := time.Unix(100, 0)
	r.Write([]float32{1, 2, 3}, t0)
	r.Write([]float32{4, 5}, t0.Add(time.Second))
	if r.Available() != 4 || r.Written() != 5 {
		t.Fatalf("available %d written %d", r.Available(), r.Written())
	}
	dst := make([]float32, 10)
	if n := r.Read(dst); n != 4 || dst[0] != 2 || dst[3] != 5 || r.Lost() != 1 {
		t.Errorf("read %d %v lost %d", n, dst[:n], r.Lost())
	}
	if at, ok := r.ArrivalOf(2); !ok || !at.Equal(t0) {
		t.Errorf("arrival of frame 2: %v %v", at, ok)
	}
	if at, ok := r.ArrivalOf(4); !ok || !at.Equal(t0.Add(time.Second)) {
		t.Errorf("arrival of frame 4: %v %v", at, ok)
	}
	if a := testing.AllocsPerRun(100, func() { r.Write([]float32{1}, t0); r.Read(dst) }); a != 0 {
		t.Errorf("%v allocs per write+read", a)
	}
}

// TestRingGaps: a gap is skipped by the read that reaches it, counted as
// gap frames and not as overwritten, and the position keeps real time,
// also across a gap longer than the ring.
func TestRingGaps(t *testing.T) {
	r := NewRing(8, 1)
	t0 := time.Unix(100, 0)
	r.Write([]float32{1, 2, 3}, t0)
	r.WriteGap(2)
	r.Write([]float32{6, 7}, t0)
	dst := make([]float32, 10)
	if n := r.Read(dst); n != 3 || dst[2] != 3 || r.Lost() != 0 {
		t.Fatalf("first read %d %v lost %d: want the 3 frames before the gap", n, dst[:n], r.Lost())
	}
	if n := r.Read(dst); n != 2 || dst[0] != 6 || r.Gaps() != 2 || r.Overwritten() != 0 || r.Position() != 7 {
		t.Fatalf("second read %d %v: gaps %d overwritten %d position %d", n, dst[:n], r.Gaps(), r.Overwritten(), r.Position())
	}
	// a gap of 3 ring lengths
	r.Write([]float32{8, 9, 10, 11, 12}, t0)
	if n := r.Read(dst); n != 5 || dst[0] != 8 || dst[4] != 12 {
		t.Fatalf("read before the long gap %d %v", n, dst[:n])
	}
	r.WriteGap(24)
	r.Write([]float32{37}, t0)
	if n := r.Read(dst); n != 1 || dst[0] != 37 || r.Gaps() != 26 || r.Overwritten() != 0 || r.Position() != 37 {
		t.Fatalf("read after the long gap %d %v: gaps %d overwritten %d position %d", n, dst[:n], r.Gaps(), r.Overwritten(), r.Position())
	}
	// the reader falls behind across a gap: the gap's part of what is lost
	// counts as gap, the rest as overwritten
	r.Write([]float32{38, 39, 40, 41}, t0) // positions 37…40
	r.WriteGap(4)                          // 41…44
	r.Write([]float32{46, 47, 48, 49, 50, 51, 52, 53}, t0)
	if n := r.Read(dst); n != 8 || dst[0] != 46 || r.Gaps() != 30 || r.Overwritten() != 4 {
		t.Fatalf("read after overwrite %d %v: gaps %d overwritten %d", n, dst[:n], r.Gaps(), r.Overwritten())
	}
	if a := testing.AllocsPerRun(100, func() { r.WriteGap(3); r.Write([]float32{1}, t0); r.Read(dst); r.Read(dst) }); a != 0 {
		t.Errorf("%v allocs per gap+write+read", a)
	}
}
