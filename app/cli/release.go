package cli

import (
	"os"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
)

// earlyRelease releases a session's GPU engines on a goroutine of its own
// as soon as every file of the command is done with them (each file's
// analysis.AnalyzeOptions.EngineDone, or its end), so that the driver's
// teardown (60–72 ms on the H200, nearly all clReleaseContext) overlaps
// the rows' last writes, the NPY header, the fsync and the rename instead
// of following them. The CPU engine and everything else are left to
// session.leave, which waits for the release first.
//
// Only rows (NPY, CSV) take part: their output ends with an fsync of
// hundreds of MB. A 10-minute file to NPY on the H200 (medians of 7,
// round-robin, one call): 0.607 s without, 0.539 s with it. After a PNG
// the work left is shorter than the release, which then only adds to
// the exit's own teardown (CloseForExit leaves all of it to the exit): a
// single PNG 0.431 s with it against 0.407 s, a batch of 20 0.655 s
// against 0.609 s. Nor does a session of several GPUs still opening take
// part. $PRISM_EARLY_RELEASE=0 turns it off, to measure.
type earlyRelease struct {
	mu   sync.Mutex
	left int // files not yet done with the engines
	set  []engine.Pair
	done chan struct{} // closed once the release ended; nil until it starts
	took time.Duration
}

// newEarlyRelease is the release of sess's GPU engines after files files
// written as format (nil when it does not apply: see earlyRelease).
func newEarlyRelease(sess *session, files int, format encode.Format) *earlyRelease {
	if format == encode.FormatPNG || os.Getenv("PRISM_EARLY_RELEASE") == "0" || sess.opening != nil {
		return nil
	}
	var gpus []engine.Pair
	for _, e := range sess.set {
		if _, ok := e.Preferred.(*gpufft.OpenCL); ok {
			gpus = append(gpus, e)
		}
	}
	if len(gpus) == 0 {
		return nil
	}
	return &earlyRelease{left: files, set: gpus}
}

// fileDone returns what one file calls when it is done with the engines:
// the first call counts, later ones do nothing. The last file's starts
// the release. A nil *earlyRelease gives a function that does nothing.
func (r *earlyRelease) fileDone() func() {
	if r == nil {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(r.countDown) }
}

func (r *earlyRelease) countDown() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.left--; r.left > 0 {
		return
	}
	r.done = make(chan struct{})
	go func() {
		t0 := time.Now()
		for _, e := range r.set {
			e.Plans.Close()
			e.Preferred.Close()
		}
		r.took = time.Since(t0)
		close(r.done)
	}()
}

// wait waits for a release under way and returns how long it took (zero
// when none started).
func (r *earlyRelease) wait() time.Duration {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done == nil {
		return 0
	}
	<-done
	return r.took
}
