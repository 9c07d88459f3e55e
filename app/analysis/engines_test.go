package analysis

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

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
	e, notice, err := OpenEngines(EngineAuto, "")
	if err != nil || e.HasGPU() || !strings.Contains(notice, "using the CPU engine") {
		t.Fatalf("auto: %v, GPU %v, notice %q", err, e.HasGPU(), notice)
	}
	e.Close()
	if _, _, err := OpenEngines(EngineGPU, ""); err == nil || !errors.Is(err, gpufft.ErrProbe) {
		t.Errorf("gpu: %v, want the probe's failure", err)
	}
	if !gpufft.ProbeNeeded() {
		t.Error("a failed probe was recorded")
	}
}
