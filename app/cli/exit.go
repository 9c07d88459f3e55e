package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
)

// fastExit says the process exits as soon as Run returns (main sets it:
// EnableFastExit), so a command whose outputs are all in place may leave
// its OpenCL engines to the exit instead of releasing them
// (analysis.CloseSetForExit). Tests call Run in one process and leave it
// unset: their engines are closed as usual.
var fastExit bool

// EnableFastExit tells the commands that the process exits when Run
// returns. main calls it; $PRISM_EXIT_RELEASE=1 turns it off again (to
// measure what releasing costs, or should a driver mind).
func EnableFastExit() { fastExit = os.Getenv("PRISM_EXIT_RELEASE") != "1" }

// exitTimings is the --timings line a command prints as it ends: how long
// ending its engines took, and for each OpenCL engine its release and
// its context's (zero when left to the exit); UnixNS is the wall clock
// then, so a caller that times the whole process sees what the exit took.
type exitTimings struct {
	Fast           bool      `json:"fast"`
	Close          float64   `json:"close_ms"`
	Release        []float64 `json:"release_ms"`
	ReleaseContext []float64 `json:"context_release_ms"`
	Held           int       `json:"held_files"`
	Hold           float64   `json:"hold_ms"` // handing them off (starting the child)
	UnixNS         int64     `json:"unix_ns"`
	// each OpenCL engine's start-up (gpufft.OpenCLStats): loading the
	// library, the queries, the context and queue; programs obtained, of
	// them from the program cache, entries written; compiling from source
	// and building cached binaries (summed over builds that overlap)
	Start []engineStart `json:"engines,omitempty"`
}

type engineStart struct {
	Load        float64 `json:"load_ms"`
	Query       float64 `json:"query_ms"`
	Context     float64 `json:"context_ms"`
	Programs    int     `json:"programs"`
	CacheHits   int     `json:"cache_hits"`
	CacheWrites int     `json:"cache_writes"`
	BuildSource float64 `json:"build_source_ms"`
	BuildCached float64 `json:"build_cached_ms"`
}

// end is leave for a command that writes one output and ends its session
// as it returns (deferred): by then that output is in place or
// discarded.
func (s *session) end() { s.leave(io.Discard, false) }

// leave ends a session whose outputs are all written, flushed, closed
// and in place: with fastExit the engines are left to the process's exit
// (analysis.CloseSetForExit), else closed; with $PRISM_EXIT_HOLD=1 the GPU
// device files are also handed to a child that outlives the process
// briefly (holdDevices). With timings it prints the exit line on w.
//
// The hand-off is not the default: it moves the driver's teardown after
// the exit rather than removing it, so a caller that waits for the command
// sees it sooner, but commands run back to back are slower (below), and a
// process is left behind for a moment. It is for a single interactive run
// where the answer matters more than the next run's start.
//
// Measured on the H200 machine (driver 580.159), `prism analyze` of a
// 10-minute WAV to PNG, medians of 5 processes as their parent sees them,
// two rounds: releasing everything (Close) 0.440–0.460 s, of which
// clReleaseContext 70 ms and the process's exit after it 56–68 ms;
// leaving it to the exit 0.435–0.436 s, the exit then 118 ms (the same
// teardown, moved); handing the device files off 0.322–0.384 s, the exit
// 0.8 ms. A batch of 20 such files: 0.684–0.690 s, 0.647–0.679 s and
// 0.456–0.469 s (the CPU engine: 1.77–1.83 s). On the two-H200 host (one
// GPU): a batch 0.953–0.964 s before, 0.508–0.534 s handed off; single
// files one second apart 0.722 s and 0.604 s. The teardown is moved, not
// gone: single files run back to back there took 0.627 s before and 0.677
// s handed off (the next process's driver start-up meets the previous
// one's teardown in the child); on the one-GPU machine 0.437–0.462 s and
// 0.322–0.384 s.
func (s *session) leave(w io.Writer, timings bool) {
	t := exitTimings{Fast: fastExit, Release: []float64{}, ReleaseContext: []float64{}}
	var stats []gpufft.OpenCLStats
	var took time.Duration
	s.settle()
	if fastExit {
		took, stats = engine.CloseSetForExit(s.set)
		if os.Getenv("PRISM_EXIT_HOLD") == "1" {
			t0 := time.Now()
			t.Held = holdDevices()
			t.Hold = ms(time.Since(t0))
		}
	} else {
		t0 := time.Now()
		engine.CloseSet(s.set)
		took = time.Since(t0)
		for _, e := range s.set {
			if g, ok := e.Preferred.(*gpufft.OpenCL); ok {
				stats = append(stats, g.Stats())
			}
		}
	}
	s.stop()
	if !timings {
		return
	}
	t.Close = ms(took)
	for _, st := range stats {
		t.Release = append(t.Release, ms(st.Release))
		t.ReleaseContext = append(t.ReleaseContext, ms(st.ReleaseContext))
		t.Start = append(t.Start, engineStart{ms(st.Load), ms(st.Query), ms(st.Context), st.Programs, st.CacheHits,
			st.CacheWrites, ms(st.BuildSource), ms(st.BuildCached)})
	}
	t.UnixNS = time.Now().UnixNano()
	line, _ := json.Marshal(struct {
		Exit exitTimings `json:"exit"`
	}{t})
	fmt.Fprintf(w, "%s%s\n", timingsPrefix, line)
}
