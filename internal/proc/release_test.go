package proc

import (
	"sync/atomic"
	"testing"
)

// TestRelease: the release runs once, after every file is done (a file's
// second call counts once), not before; PRISM_EARLY_RELEASE=0 turns it
// off; a nil release does nothing.
func TestRelease(t *testing.T) {
	var calls atomic.Int32
	r := NewRelease(3, func() { calls.Add(1) })
	if r == nil {
		t.Fatal("no release")
	}
	a, b, c := r.FileDone(), r.FileDone(), r.FileDone()
	a()
	a() // counts once
	b()
	r.Wait()
	if n := calls.Load(); n != 0 {
		t.Fatalf("two files of three done: %d releases, want 0", n)
	}
	c()
	r.Wait()
	c()
	if n := calls.Load(); n != 1 {
		t.Errorf("after the last file: %d releases, want 1", n)
	}
	t.Setenv("PRISM_EARLY_RELEASE", "0")
	if r := NewRelease(1, func() {}); r != nil {
		t.Error("a release with PRISM_EARLY_RELEASE=0")
	}
	var none *Release
	none.FileDone()()
	if none.Wait() != 0 {
		t.Error("a nil release waited")
	}
}
