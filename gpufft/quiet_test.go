package gpufft

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/window"
)

const buildChildEnv = "PRISM_TEST_BUILD_CHILD"

// buildOnce opens the engine and builds and runs a spectrogram plan: the
// child process of TestBuildQuiet.
func buildOnce() error {
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		return err
	}
	defer e.Close()
	cfg := SpectrogramConfig{Size: 512, Hop: 128, Window: window.Func{Kind: window.Hann}, Channels: 2, Mix: true, MaxSamples: 2048, Output: DBFS}
	p, err := e.NewSpectrogram(cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	_, err = p.Execute(make([]float32, cfg.DstLen(2048)), make([]float32, 2*2048))
	return err
}

// TestBuildQuiet (issue 13 item 9): compiling kernels prints nothing on
// the process's stderr, even where the OpenCL compiler prints its own
// diagnostics (PoCL's "1 warning generated."), unless a build log is asked
// for, and an unwritable program cache is silent too. The child compiles
// from scratch: empty program cache, empty PoCL kernel cache.
func TestBuildQuiet(t *testing.T) {
	requireGPU(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) string {
		cmd := exec.Command(exe)
		cmd.Env = append(append(os.Environ(), buildChildEnv+"=1", EnvCacheDir+"="+t.TempDir(), "POCL_CACHE_DIR="+t.TempDir()), extra...)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("child: %v\n%s", err, errOut.String())
		}
		return errOut.String()
	}
	if out := run(); out != "" {
		t.Errorf("building kernels wrote to stderr:\n%s", out)
	}
	// a program cache that cannot be written says nothing either
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(EnvCacheDir + "=" + filepath.Join(blocker, "cache")); out != "" {
		t.Errorf("with an unwritable program cache, stderr has:\n%s", out)
	}
	if out := run("PRISM_OPENCL_BUILDLOG=1"); !strings.Contains(out, "gpufft: built -cl-std=CL1.2") {
		t.Errorf("with PRISM_OPENCL_BUILDLOG=1, stderr has no build log:\n%s", out)
	}
}
