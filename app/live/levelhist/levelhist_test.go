package levelhist

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/meter/soundlevel"
)

// sine is n frames of a 1-kHz sine of amplitude a on each of ch channels.
func sine(n, ch, rate int, a float64) []float32 {
	x := make([]float32, n*ch)
	for i := range n {
		for c := range ch {
			x[i*ch+c] = float32(a * math.Sin(2*math.Pi*1000*float64(i)/float64(rate)))
		}
	}
	return x
}

// TestRows: 3.5 s of a 1-kHz sine at amplitude 0.1 in blocks of 1000
// frames is 3 rows of 1 s (starting at 0, 1, 2 s) and one more after
// Flush; LAeq after the first reads 20·log10 0.1 (A is 0 dB at 1 kHz);
// Rows hands out only newer rows when called with the last next.
func TestRows(t *testing.T) {
	const rate = 48000
	h := New()
	x := sine(rate*7/2, 2, rate, 0.1)
	for len(x) > 0 {
		k := min(len(x), 2000)
		h.Write(x[:k], 2, rate)
		x = x[k:]
	}
	dst := make([]soundlevel.Row, 10)
	n, next := h.Rows(dst, 0)
	if n != 3 || next != 3 {
		t.Fatalf("%d rows, next %d; want 3, 3", n, next)
	}
	for i, r := range dst[:n] {
		if r.StartSeconds != float64(i) {
			t.Errorf("row %d starts at %v s", i, r.StartSeconds)
		}
		if i > 0 && math.Abs(r.LAeq+20) > 0.02 {
			t.Errorf("row %d LAeq %.3f, want −20.00", i, r.LAeq)
		}
	}
	h.Flush()
	if n, next = h.Rows(dst, next); n != 1 || next != 4 || dst[0].StartSeconds != 3 || dst[0].Samples != rate/2 {
		t.Errorf("after Flush: %d rows (next %d), first %+v", n, next, dst[0])
	}
	var b bytes.Buffer
	if err := h.WriteCSV(&b, 100); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 || lines[0] != soundlevel.CSVHeader || !strings.HasPrefix(lines[2], "1.000,80.00,") {
		t.Errorf("CSV:\n%s", b.String())
	}
}

// TestStartOver: a new rate, channel count, interval or channel starts
// the history over (a caller's next beyond the new rows says so); more
// than Capacity rows keep the newest Capacity.
func TestStartOver(t *testing.T) {
	const rate = 8000
	h := New()
	h.SetInterval(time.Millisecond) // 8 samples a row
	x := sine(8*(Capacity+10), 1, rate, 0.5)
	h.Write(x, 1, rate)
	dst := make([]soundlevel.Row, Capacity+10)
	n, next := h.Rows(dst, 0)
	if n != Capacity || next != Capacity+10 || dst[0].StartSeconds != 0.010 {
		t.Fatalf("%d rows, next %d, first at %v s; want %d, %d, 0.010", n, next, dst[0].StartSeconds, Capacity, Capacity+10)
	}
	h.Write(x[:80], 2, rate) // stereo now: starts over
	if n, next2 := h.Rows(dst, next); n != 0 || next2 >= next {
		t.Errorf("after a channel change: %d rows, next %d (want a next below %d)", n, next2, next)
	}
	if n, _ := h.Rows(dst, 0); n != 5 || dst[0].StartSeconds != 0 {
		t.Errorf("after a channel change: %d rows from 0, first at %v s", n, dst[0].StartSeconds)
	}
	h.SetChannel(1)
	if n, _ := h.Rows(dst, 0); n != 0 {
		t.Errorf("after SetChannel: %d rows", n)
	}
	if h.SetInterval(0); h.Interval() != time.Millisecond {
		t.Errorf("SetInterval(0) changed the interval to %v", h.Interval())
	}
}

func TestWriteAllocs(t *testing.T) {
	h := New()
	x := sine(1024, 2, 48000, 0.5)
	h.Write(x, 2, 48000)
	if n := testing.AllocsPerRun(50, func() { h.Write(x, 2, 48000) }); n != 0 {
		t.Fatalf("Write: %v allocs per block, want 0", n)
	}
}
