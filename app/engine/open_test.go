package engine

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// TestProbeCrashFallsBack: when the child that checks OpenCL dies (as a
// crashing driver would make it), auto opens the CPU engine and says why;
// gpu fails with that reason; nothing is recorded, so the check runs again.
func TestProbeCrashFallsBack(t *testing.T) {
	t.Setenv(gpufft.EnvCacheDir, t.TempDir())
	defer func(p func(context.Context, string) *exec.Cmd) { ProbeCommand = p }(ProbeCommand)
	ProbeCommand = func(ctx context.Context, _ string) *exec.Cmd {
		return exec.CommandContext(ctx, "sh", "-c", "kill -SEGV $$")
	}
	e, notice, err := Open(Auto, "")
	if err != nil || e.HasGPU() || !strings.Contains(notice, "using the CPU engine") {
		t.Fatalf("auto: %v, GPU %v, notice %q", err, e.HasGPU(), notice)
	}
	e.Close()
	if _, _, err := Open(GPU, ""); err == nil || !errors.Is(err, gpufft.ErrProbe) {
		t.Errorf("gpu: %v, want the probe's failure", err)
	}
	if !gpufft.ProbeNeeded() {
		t.Error("a failed probe was recorded")
	}
}

// TestGPUOnCPU: engines whose GPU engine runs on an OpenCL CPU device (PoCL
// here) say so, as the device's type says; CPU-only engines have no GPU
// engine to run anywhere.
func TestGPUOnCPU(t *testing.T) {
	cpu := gpufft.NewCPU(1)
	defer cpu.Close()
	if (Pair{Preferred: cpu, CPU: cpu}).GPUOnCPU() {
		t.Error("CPU-only engines: GPU on a CPU device")
	}
	g := apptest.OpenCL(t)
	e := Pair{Preferred: g, CPU: cpu}
	if got, want := e.GPUOnCPU(), g.Info().Type == "CPU"; got != want {
		t.Errorf("%s (type %s): GPUOnCPU %v, want %v", g.Device(), g.Info().Type, got, want)
	}
	if !e.HasGPU() {
		t.Error("an OpenCL engine is the GPU engine")
	}
}
