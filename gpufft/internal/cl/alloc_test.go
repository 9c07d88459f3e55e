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
	l, err := Load()
	if err != nil {
		requireOrSkip(t, err)
	}
	ps, err := l.Platforms()
	if err != nil || len(ps) == 0 {
		requireOrSkip(t, err)
	}
	ds, err := l.Devices(ps[0], DeviceTypeAll)
	if err != nil || len(ds) == 0 {
		requireOrSkip(t, err)
	}
	c, err := l.CreateContext(ds[0])
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseContext(c)
	q, err := l.CreateQueue(c, ds[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseQueue(q)
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
