package cl

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestHotCallsDoNotAllocate pins the Args mechanism: the calls a plan makes
// per batch allocate nothing when the memory they lend is on the heap.
func TestHotCallsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	p := newStackProbe(t)
	l, q, m := p.l, p.q, p.m
	buf := make([]byte, 4*stackWords)
	a := new(Args)
	v, w := new(int32), new(int64)
	if err := l.SetArg(a, p.k, 2, 8, unsafe.Pointer(w)); err != nil {
		t.Fatal(err)
	}
	global, local := new(uintptr), new(uintptr)
	*global, *local = stackWords, 8
	ev := new(Event)
	var pin runtime.Pinner
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"Finish", func() error { return l.Finish(a, q) }},
		{"Flush", func() error { return l.Flush(a, q) }},
		{"Write", func() error { return l.Write(a, q, m, true, 0, len(buf), unsafe.Pointer(&buf[0])) }},
		{"Read", func() error { return l.Read(a, q, m, 0, len(buf), unsafe.Pointer(&buf[0])) }},
		{"SetArg", func() error { return l.SetArg(a, p.k, 1, 4, unsafe.Pointer(v)) }},
		{"Enqueue", func() error { return l.Enqueue(a, q, p.k, global, local, nil) }},
		{"ReadAsync+Wait", func() error { // Go memory, pinned until the wait (ReadAsync's rule)
			pin.Pin(&buf[0])
			defer pin.Unpin()
			if err := l.ReadAsync(a, q, m, 0, len(buf), unsafe.Pointer(&buf[0]), ev); err != nil {
				return err
			}
			return l.Wait(a, ev)
		}},
	} {
		if err := c.f(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := testing.AllocsPerRun(50, func() { _ = c.f() }); n != 0 {
			t.Errorf("%s: %v allocs per call, want 0", c.name, n)
		}
	}
}
