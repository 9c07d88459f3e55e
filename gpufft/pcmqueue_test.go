package gpufft

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/prismaudio/prism/window"
)

// TestPCMPlanQueues: OpenCL PCM image plans each enqueue on a queue of
// their own (forced on a CPU device, which by default shares one); four fed at once from four goroutines make, bit for bit, the
// images one plan makes of the same inputs one after another (Reset
// between), so no file's work lands in another's buffers or waits on the
// wrong queue; and the CPU engine's within 0.01 dB. Closing a plan
// releases its queue (the engine tracks nothing more), and an engine closed
// with a plan open leaves that plan's Close harmless.
func TestPCMPlanQueues(t *testing.T) {
	t.Setenv("PRISM_OPENCL_PLAN_QUEUE", "1") // on PoCL too; read when an engine opens
	g, err := NewOpenCL(OpenCLOptions{Device: fmt.Sprint(requireGPU(t).info.Index)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	r := rand.New(rand.NewPCG(9, 10))
	f := PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix}
	const total = 30011
	cfg := SpectrogramConfig{Size: 256, Hop: 64, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 5000, Output: DBFS}
	ic := ImageConfig{Columns: 41, TotalFrames: cfg.Frames(total), RowLo: []int32{0, 5, 30, 90}, RowHi: []int32{5, 30, 90, 129}}
	inputs := make([][]byte, 4)
	for i := range inputs {
		inputs[i] = randomPCM(r, PCMInt16, total, 2)
	}
	image := func(p PCMImagePlan, raw []byte) []float32 {
		t.Helper()
		if _, _, err := ReadPCMImage(context.Background(), p, bytes.NewReader(raw)); err != nil {
			t.Error(err)
			return nil
		}
		img := make([]float32, ic.Columns*ic.Rows())
		if err := p.Image(img); err != nil {
			t.Error(err)
		}
		return img
	}

	// one plan, the inputs in turn
	one, err := NewPCMImage(g, f, cfg, ic)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]float32
	for _, raw := range inputs {
		want = append(want, image(one, raw))
		if err := one.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	one.Close()

	// four plans at once
	plans := make([]PCMImagePlan, len(inputs))
	queues := map[any]bool{g.queue: true}
	for i := range plans {
		if plans[i], err = NewPCMImage(g, f, cfg, ic); err != nil {
			t.Fatal(err)
		}
		defer plans[i].Close()
		e := plans[i].(gpuPCMImage).sp.e
		if e == g || queues[e.queue] {
			t.Fatalf("plan %d enqueues on the engine's or another plan's queue", i)
		}
		queues[e.queue] = true
	}
	got := make([][]float32, len(plans))
	var wg sync.WaitGroup
	for i := range plans {
		wg.Go(func() { got[i] = image(plans[i], inputs[i]) })
	}
	wg.Wait()
	for i := range got {
		sameBits(t, "concurrent plan", got[i], want[i], false)
		cp, err := NewPCMImage(testCPU, f, cfg, ic)
		if err != nil {
			t.Fatal(err)
		}
		closeDB(t, "GPU against CPU", got[i], image(cp, inputs[i]))
		cp.Close()
	}

	// a fresh engine: a plan's queue goes with the plan; the engine's Close
	// takes an open plan's with it
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPCMImage(e, f, cfg, ic)
	if err != nil {
		t.Fatal(err)
	}
	if n := tracked(e); n != 2 { // the plan's spectrogram and its queue
		t.Errorf("engine tracks %d objects with one plan open, want 2", n)
	}
	p.Close()
	if n := tracked(e); n != 0 {
		t.Errorf("engine tracks %d objects after the plan's Close, want 0", n)
	}
	p, err = NewPCMImage(e, f, cfg, ic)
	if err != nil {
		t.Fatal(err)
	}
	image(p, inputs[0])
	e.Close()
	if err := p.Close(); err != nil {
		t.Errorf("a plan's Close after its engine's: %v", err)
	}
}

func tracked(e *OpenCL) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.plans)
}
