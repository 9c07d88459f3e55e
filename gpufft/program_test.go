package gpufft

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/kernels"
	"github.com/prismaudio/prism/window"
)

// freshEngine opens an engine with the program cache off, so every
// program it obtains is compiled (stats.Programs counts builds).
func freshEngine(t *testing.T) *OpenCL {
	t.Helper()
	requireGPU(t)
	t.Setenv(EnvCacheDir, "off")
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// requestAll asks for every spec on a goroutine of its own, all at once,
// and returns the programs and errors in specs' order.
func requestAll(e *OpenCL, specs []progSpec) ([]cl.Program, []error) {
	progs, errs := make([]cl.Program, len(specs)), make([]error, len(specs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range specs {
		wg.Go(func() {
			<-start
			progs[i], errs[i] = e.program(s.source, s.defines)
		})
	}
	close(start)
	wg.Wait()
	return progs, errs
}

// TestProgramSingleFlight: goroutines asking for the same program at once
// get one build and one handle; different programs asked for at once are
// each built, each once; a program asked for again later comes from the
// engine's map.
func TestProgramSingleFlight(t *testing.T) {
	e := freshEngine(t)
	pcm16 := pcmProgram(PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix})
	pcm24 := pcmProgram(PCMFormat{Encoding: PCMInt24, Channels: 1, Select: 0})
	same := []progSpec{reduceProgram, reduceProgram, reduceProgram, reduceProgram}
	progs, errs := requestAll(e, same)
	for i := range same {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		if progs[i] == 0 || progs[i] != progs[0] {
			t.Fatalf("request %d got program %#x, request 0 %#x: want one handle", i, progs[i], progs[0])
		}
	}
	if st := e.Stats(); st.Programs != 1 {
		t.Fatalf("4 requests of one program at once: %d builds, want 1", st.Programs)
	}
	diff := []progSpec{pcm16, pcm24, pcm16, reduceProgram}
	progs, errs = requestAll(e, diff)
	for i := range diff {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
	}
	if progs[0] != progs[2] || progs[0] == progs[1] || progs[1] == progs[3] || progs[0] == progs[3] {
		t.Fatalf("programs %#x: want pcm16 twice the same, the three kinds distinct", progs)
	}
	if st := e.Stats(); st.Programs != 3 {
		t.Fatalf("after two new programs at once: %d builds, want 3", st.Programs)
	}
	// and the programs work: a plan made now compiles nothing more
	p, err := NewPCMImage(e, PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix},
		SpectrogramConfig{Size: 64, Hop: 16, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 1024, Output: DBFS},
		ImageConfig{Columns: 4, TotalFrames: 61, RowLo: []int32{0}, RowHi: []int32{33}})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if st := e.Stats(); st.Programs != 4 { // the 64-point spectrogram's own
		t.Fatalf("a plan over built programs: %d builds in all, want 4", st.Programs)
	}
}

// TestProgramBuildFailure: a program that does not compile fails every
// request made at once with the build error, and is not kept: a later
// request compiles it again (and fails again).
func TestProgramBuildFailure(t *testing.T) {
	e := freshEngine(t)
	bad := progSpec{"kernel void broken(global float *x) { x[0] = ; }", []string{"BAD=1"}}
	_, errs := requestAll(e, []progSpec{bad, bad, reduceProgram})
	var be *cl.BuildError
	for i := range 2 {
		if !errors.As(errs[i], &be) {
			t.Fatalf("request %d of a broken program: %v, want a build error", i, errs[i])
		}
	}
	if errs[2] != nil {
		t.Fatalf("a good program beside a broken one: %v", errs[2])
	}
	e.mu.Lock()
	n := len(e.progs)
	e.mu.Unlock()
	if n != 1 {
		t.Fatalf("engine keeps %d programs after one good and one failed build, want 1", n)
	}
	if _, err := e.program(bad.source, bad.defines); !errors.As(err, &be) {
		t.Fatalf("a broken program asked for again: %v, want a build error", err)
	}
}

// TestProgramCloseDuringBuild: closing an engine while programs are still
// being built waits for the builds and releases them; a request after
// Close is ErrClosed.
func TestProgramCloseDuringBuild(t *testing.T) {
	e := freshEngine(t)
	e.prebuild(reduceProgram, pcmProgram(PCMFormat{Encoding: PCMFloat32, Channels: 3, Select: PCMMix}))
	for { // both requests registered: their builds are running or done
		e.mu.Lock()
		n := len(e.progs)
		e.mu.Unlock()
		if n == 2 {
			break
		}
		runtime.Gosched()
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.Programs != 2 {
		t.Fatalf("Close returned with %d of 2 builds finished", st.Programs)
	}
	if _, err := e.program(kernels.Reduce, reduceProgram.defines); !errors.Is(err, ErrClosed) {
		t.Fatalf("program after Close: %v, want ErrClosed", err)
	}
}
