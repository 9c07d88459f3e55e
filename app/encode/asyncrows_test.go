package encode

import (
	"errors"
	"slices"
	"testing"
)

// memRows records what it is given.
type memRows struct {
	firsts  []int
	offsets []int
	sizes   []int
	vals    []float32
	failAt  int // fail the call that would start at this frame (−1: never)
	bins    int
	done    int
}

func (m *memRows) Rows(first int, db []float32) error {
	if m.failAt >= 0 && first >= m.failAt {
		return errors.New("disk full")
	}
	m.firsts = append(m.firsts, first)
	m.offsets = append(m.offsets, len(m.vals))
	m.sizes = append(m.sizes, len(db))
	m.vals = append(m.vals, db...)
	return nil
}

func (m *memRows) Finish(frames int) error { m.done = frames; return nil }

// TestAsyncRows: rows queued in batches larger and smaller than a chunk
// reach the writer complete, in order, in whole rows numbered from their
// batch's first frame, and the caller's buffer can be reused at once.
func TestAsyncRows(t *testing.T) {
	const bins = 2049
	m := &memRows{failAt: -1, bins: bins}
	a := NewAsyncRows(m, bins)
	var want []float32
	frame := 0
	buf := make([]float32, 0, 3000*bins)
	for _, rows := range []int{1, 700, 511, 3000, 2} {
		buf = buf[:rows*bins]
		for i := range buf {
			buf[i] = float32(frame*bins + i)
		}
		want = append(want, buf...)
		if err := a.Rows(frame, buf); err != nil {
			t.Fatal(err)
		}
		clear(buf) // the writer copied it
		frame += rows
	}
	if err := a.Finish(frame); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.vals, want) || m.done != frame {
		t.Fatalf("wrote %d values (want %d), finished at %d (want %d)", len(m.vals), len(want), m.done, frame)
	}
	for i, f := range m.firsts { // each chunk numbered by its own first row
		if f*bins != m.offsets[i] || m.sizes[i]%bins != 0 {
			t.Fatalf("chunk %d: first frame %d, at value %d (frame %d), %d values", i, f, m.offsets[i], m.offsets[i]/bins, m.sizes[i])
		}
	}
	a.Close() // harmless after Finish
}

// TestAsyncRowsError: the writer's error comes back from a later Rows or
// from Finish, which then does not finish the file; Close ends the
// goroutine of a file abandoned midway.
func TestAsyncRowsError(t *testing.T) {
	const bins = 4
	m := &memRows{failAt: 10, bins: bins}
	a := NewAsyncRows(m, bins)
	var err error
	for f := 0; f < 100 && err == nil; f += 5 {
		err = a.Rows(f, make([]float32, 5*bins))
	}
	if ferr := a.Finish(100); ferr == nil || m.done != 0 {
		t.Fatalf("Finish: %v, finished at %d: want the writer's error, not finished", ferr, m.done)
	}
	b := NewAsyncRows(&memRows{failAt: -1, bins: bins}, bins)
	b.Rows(0, make([]float32, bins))
	b.Close()
}
