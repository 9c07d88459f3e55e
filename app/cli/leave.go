package cli

import (
	"io"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/bench"
	"github.com/prismaudio/prism/internal/proc"
)

// engineStats is an engine that reports its start-up and release
// (gpufft.OpenCL does).
type engineStats interface{ Stats() gpufft.OpenCLStats }

// end is leave for a command that writes one output and ends its session
// as it returns (deferred): by then that output is in place or
// discarded.
func (s *session) end() { s.leave(io.Discard, false) }

// leave ends a session whose outputs are all written, flushed, closed
// and in place: with fast exit (proc.FastExit) the engines are left to the process's exit
// (engine.CloseSetForExit), else closed; with $PRISM_EXIT_HOLD=1 the GPU
// device files are also handed to a child that outlives the process
// briefly (proc.HoldDevices). With timings it prints the exit line on w.
//
// The hand-off is not the default: it moves the driver's teardown after
// the exit rather than removing it, so a caller that waits for the command
// sees it sooner, but commands run back to back are slower (below), and a
// process is left behind for a moment. It is for a single interactive run
// where the answer matters more than the next run's start.
//
// (Its measurements, on the H200 hosts: docs/performance.md.)
func (s *session) leave(w io.Writer, timings bool) {
	t := bench.ExitTimings{Fast: proc.FastExit(), Release: []float64{}, ReleaseContext: []float64{}}
	var stats []gpufft.OpenCLStats
	var took time.Duration
	s.settle()
	if t.Fast {
		took, stats = engine.CloseSetForExit(s.set)
		if proc.Env().HoldDevices {
			t0 := time.Now()
			t.Held = proc.HoldDevices()
			t.Hold = bench.Ms(time.Since(t0))
		}
	} else {
		t0 := time.Now()
		engine.CloseSet(s.set)
		took = time.Since(t0)
		for _, e := range s.set {
			if g, ok := e.Preferred.(engineStats); ok {
				stats = append(stats, g.Stats())
			}
		}
	}
	s.stop()
	if !timings {
		return
	}
	t.Close = bench.Ms(took)
	for _, st := range stats {
		t.Release = append(t.Release, bench.Ms(st.Release))
		t.ReleaseContext = append(t.ReleaseContext, bench.Ms(st.ReleaseContext))
		t.Start = append(t.Start, bench.EngineStart{Load: bench.Ms(st.Load), Query: bench.Ms(st.Query), Context: bench.Ms(st.Context),
			Programs: st.Programs, CacheHits: st.CacheHits, CacheWrites: st.CacheWrites,
			BuildSource: bench.Ms(st.BuildSource), BuildCached: bench.Ms(st.BuildCached)})
	}
	t.UnixNS = time.Now().UnixNano()
	bench.WriteLine(w, bench.ExitLine{Exit: t})
}

// newEarlyRelease is the early release (proc.Release) of sess's GPU
// engines after files files written as format, or nil where it does not
// apply. Only rows (NPY, CSV) take part: their output ends with an fsync
// of hundreds of MB, which the release overlaps; after a PNG the work
// left is shorter than the release (see proc.Release). Nor does a session
// of several GPUs still opening take part. The CPU engine and everything
// else are left to session.leave, which waits for the release first.
func newEarlyRelease(sess *session, files int, format encode.Format) *proc.Release {
	if format == encode.FormatPNG || sess.opening != nil {
		return nil
	}
	var gpus []engine.Pair
	for _, e := range sess.set {
		if e.HasGPU() {
			gpus = append(gpus, e)
		}
	}
	if len(gpus) == 0 {
		return nil
	}
	return proc.NewRelease(files, func() {
		for _, e := range gpus {
			e.Plans.Close()
			e.Preferred.Close()
		}
	})
}
