package cl

import (
	"testing"
	"unsafe"
)

// TestHotCallsDoNotAllocate pins the Args mechanism: the calls a plan makes
// per batch allocate nothing.
func TestHotCallsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	l, _, c, q := openQueue(t)
	m, err := l.CreateBuffer(c, MemReadWrite, 1024)
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseMem(m)
	buf := make([]byte, 1024)
	a := new(Args)
	for name, f := range map[string]func() error{
		"Finish": func() error { return l.Finish(a, q) },
		"Write":  func() error { return l.Write(a, q, m, true, 0, 1024, unsafe.Pointer(&buf[0])) },
		"Read":   func() error { return l.Read(a, q, m, 0, 1024, unsafe.Pointer(&buf[0])) },
	} {
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := testing.AllocsPerRun(50, func() { _ = f() }); n != 0 {
			t.Errorf("%s: %v allocs per call, want 0", name, n)
		}
	}
}
