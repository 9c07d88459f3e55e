package gpufft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/prismaudio/prism/window"
)

// exitChildEnv makes the test binary the child of TestCloseForExit
// (TestMain calls exitChild): it makes an image on a fresh engine, ends
// the engine with CloseForExit, prints the image and exits.
const exitChildEnv = "PRISM_TEST_EXIT_CHILD"

// exitPlan is the plan and input of TestCloseForExit: a two-channel int16
// ramp through the raw PCM image plan (three programs, a queue of its own
// on a GPU).
func exitPlan(e Engine) (PCMImagePlan, []byte, int, error) {
	cfg := SpectrogramConfig{Size: 256, Hop: 64, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 4096, Output: DBFS}
	ic := ImageConfig{Columns: 8, TotalFrames: cfg.Frames(4096), RowLo: []int32{0, 5, 30}, RowHi: []int32{5, 30, 129}}
	p, err := NewPCMImage(e, PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix}, cfg, ic)
	if err != nil {
		return nil, nil, 0, err
	}
	raw := make([]byte, 4*4096)
	for i := range 2 * 4096 {
		v := int16((i*7919)%20000 - 10000)
		raw[2*i], raw[2*i+1] = byte(v), byte(v>>8)
	}
	return p, raw, ic.Columns * ic.Rows(), nil
}

// exitImage makes exitPlan's image on e and returns it with the plan
// (still open).
func exitImage(e Engine) ([]float32, PCMImagePlan, error) {
	p, raw, n, err := exitPlan(e)
	if err != nil {
		return nil, nil, err
	}
	img := make([]float32, n)
	if _, err = p.Add(raw, 0); err == nil {
		err = p.Image(img)
	}
	return img, p, err
}

func exitChild() error {
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		return err
	}
	img, _, err := exitImage(e) // the plan is left to the exit too
	if err != nil {
		return err
	}
	if err := e.CloseForExit(); err != nil {
		return err
	}
	if _, err := e.NewImage(SpectrogramConfig{}, ImageConfig{}); !errors.Is(err, ErrClosed) && !errors.Is(err, ErrInvalid) {
		return fmt.Errorf("a plan after CloseForExit: %v, want ErrClosed", err)
	}
	if _, err := e.program(reduceProgram.source, reduceProgram.defines); !errors.Is(err, ErrClosed) {
		return fmt.Errorf("a program after CloseForExit: %v, want ErrClosed", err)
	}
	e.Close() // nothing: CloseForExit ended it
	if st := e.Stats(); st.Release != 0 {
		return fmt.Errorf("Close after CloseForExit released the engine (%v)", st.Release)
	}
	return json.NewEncoder(os.Stdout).Encode(img)
}

// TestCloseForExit: a process that ends its engine with CloseForExit and
// exits without releasing anything exits cleanly (status 0: no driver
// assertion or crash at exit), with the image it made complete and equal
// bit for bit to the same plan's image on an engine closed as usual.
// The child's plan has a queue of its own (PRISM_OPENCL_PLAN_QUEUE=1), as
// every PCM plan on a GPU has.
func TestCloseForExit(t *testing.T) {
	g := requireGPU(t)
	want, p, err := exitImage(g)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	// the plan on a queue of its own, as on a GPU, on every device
	cmd.Env = append(os.Environ(), exitChildEnv+"=1", "PRISM_OPENCL_PLAN_QUEUE=1")
	var stderr []byte
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr)
	}
	var got []float32
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("child's output %q: %v", out, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("image before CloseForExit and exit:\n%v\nwant (engine closed as usual)\n%v", got, want)
	}
}
