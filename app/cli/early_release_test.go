package cli

import (
	"context"
	"errors"
	"testing"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestEarlyRelease: the GPU engines are released once every file is done
// with them (a file's second call counts once), not before; the CPU
// engine is left open; and no release is made for PNG, with
// PRISM_EARLY_RELEASE=0, or for a CPU-only session. (proc's TestRelease
// checks the counting alone.)
func TestEarlyRelease(t *testing.T) {
	gpu := apptest.OpenCL(t)
	cpu := gpufft.NewCPU(1)
	defer cpu.Close()
	sess := kit.NewSession(context.Background(), []engine.Pair{{Preferred: gpu, CPU: cpu}}, nil)
	r := newEarlyRelease(sess, 3, encode.FormatNPY)
	if r == nil {
		t.Fatal("no early release for NPY on an OpenCL engine")
	}
	a, b, c := r.FileDone(), r.FileDone(), r.FileDone()
	a()
	a() // counts once
	b()
	r.Wait()
	cfg := gpufft.SpectrogramConfig{Size: 256, Hop: 128, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 4096, Output: gpufft.DBFS}
	p, err := gpu.NewSpectrogram(cfg)
	if err != nil {
		t.Fatalf("two files of three done: the engine should still work: %v", err)
	}
	p.Close()
	c()
	r.Wait()
	if _, err := gpu.NewSpectrogram(cfg); !errors.Is(err, gpufft.ErrClosed) {
		t.Errorf("after the last file: NewSpectrogram error %v, want ErrClosed", err)
	}
	if p, err := cpu.NewSpectrogram(cfg); err != nil {
		t.Errorf("the CPU engine was closed too: %v", err)
	} else {
		p.Close()
	}

	if r := newEarlyRelease(sess, 1, encode.FormatPNG); r != nil {
		t.Error("an early release for PNG")
	}
	if r := newEarlyRelease(kit.NewSession(context.Background(), []engine.Pair{{Preferred: cpu, CPU: cpu}}, nil), 1, encode.FormatNPY); r != nil {
		t.Error("an early release without a GPU")
	}
	t.Setenv("PRISM_EARLY_RELEASE", "0")
	if r := newEarlyRelease(sess, 1, encode.FormatNPY); r != nil {
		t.Error("an early release with PRISM_EARLY_RELEASE=0")
	}
}
