package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/internal/message"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// openingBatch runs a batch of inputs on a session whose engines are still
// opening (opens, as engine.StartSet opens GPUs) and returns the
// exit code, stderr and the opening. The batch must end within a minute:
// a generous bound against a batch that waits for an engine that never
// opens, not a timing check. The opening's engines are the test's: only
// its plans and CPU engine are closed, at the test's end.
func openingBatch(t *testing.T, opens []func() (gpufft.Engine, error), inputs, dsts []string, opts analysis.AnalyzeOptions) (int, string, *engine.Opening) {
	t.Helper()
	cpu := gpufft.NewCPU(0)
	o := engine.Start(opens, cpu, true)
	pool := engine.NewPlanPool()
	o.Plans = pool
	t.Cleanup(func() {
		o.Wait()
		pool.Close()
		cpu.Close()
	})
	sess := kit.NewSession(context.Background(), nil, o)
	var errb bytes.Buffer
	b := batchRun{sess: sess, format: encode.FormatPNG, opts: opts, quiet: true, timings: true, stderr: message.NewSafeWriter(&errb, nil)}
	code := make(chan int, 1)
	go func() { code <- b.all(inputs, dsts) }()
	select {
	case c := <-code:
		return c, errb.String(), o
	case <-time.After(time.Minute):
		t.Fatal("the batch did not end: it waits for an engine that has not opened")
	}
	return 0, "", o
}

// TestBatchStartsAsEnginesOpen: a batch on several GPUs starts on each as
// it opens: with the second engine held closed until the batch is over,
// every file is analyzed on the first, byte for byte as one engine makes
// it; closing the session then waits for the second and closes both. An
// engine that fails to open leaves its files to the others with a
// warning; with none open every file fails with the engines' error.
func TestBatchStartsAsEnginesOpen(t *testing.T) {
	gs := twoOpenCL(t)
	dir := t.TempDir()
	opts := analysis.AnalyzeOptions{FFT: 512, Hop: 128, Window: window.Func{Kind: window.Hann}, Channel: -1,
		Image: plot.ImageOptions{Width: 300, Height: 200, Scale: plot.Log, DBMin: -120, DBMax: 0, Colormap: plot.Viridis}}
	var inputs, want []string
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	for i := range 4 {
		in := filepath.Join(dir, fmt.Sprintf("in%d.wav", i))
		apptest.WriteWAV(t, in, 16000, [][]float32{apptest.Tone(20000+3000*i, 16000, float64(400+100*i), 0.5)})
		inputs = append(inputs, in)
		w := filepath.Join(dir, fmt.Sprintf("one%d.png", i))
		o := opts
		o.Image.Title = fmt.Sprintf("%s   N=%d  hop=%d  %v  %s", filepath.Base(in), o.FFT, o.Hop, o.Window, dsp.ChannelName(o.Channel))
		if _, err := analysis.AnalyzeFile(context.Background(), in, w, encode.FormatPNG, o, engine.Pair{Preferred: gs[0], CPU: cpu}, nil); err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	check := func(name string, dsts []string) {
		t.Helper()
		for i := range dsts {
			a, _ := os.ReadFile(want[i])
			b, err := os.ReadFile(dsts[i])
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs from one engine's (%v)", name, filepath.Base(dsts[i]), err)
			}
		}
	}
	outs := func(tag string) []string {
		var d []string
		for i := range inputs {
			d = append(d, filepath.Join(dir, fmt.Sprintf("%s%d.png", tag, i)))
		}
		return d
	}
	first := func() (gpufft.Engine, error) { return gs[0], nil }

	release := make(chan struct{})
	slow := func() (gpufft.Engine, error) { <-release; return gs[1], nil }
	dsts := outs("held")
	code, stderr, o := openingBatch(t, []func() (gpufft.Engine, error){slow, first}, inputs, dsts, opts)
	if code != ExitOK {
		t.Fatalf("second engine held: exit %d: %s", code, stderr)
	}
	check("second engine held", dsts)
	if n := strings.Count(stderr, `"engine_open_ms"`); n != 1 {
		t.Errorf("second engine held: %d engines said open during the batch, want 1:\n%s", n, stderr)
	}
	close(release)
	if set, err := o.Wait(); err != nil || len(set) != 2 || set[0].Preferred != gs[1] || set[1].Preferred != gs[0] || set[0].Plans == nil {
		t.Errorf("the set once the held engine opened: %d engines, %v; want both, in order, with the batch's plans", len(set), err)
	}

	broken := func() (gpufft.Engine, error) { return nil, errors.New("GPU 7: no context") }
	dsts = outs("broken")
	code, stderr, _ = openingBatch(t, []func() (gpufft.Engine, error){broken, first}, inputs, dsts, opts)
	if code != ExitOK || !strings.Contains(stderr, "warning: GPU 7: no context: the other GPUs analyze its files") {
		t.Fatalf("one engine failing: exit %d, stderr:\n%s", code, stderr)
	}
	check("one engine failing", dsts)

	code, stderr, _ = openingBatch(t, []func() (gpufft.Engine, error){broken, broken}, inputs, outs("none"), opts)
	if code != ExitFailure || strings.Count(stderr, "no context") < len(inputs) {
		t.Fatalf("no engine opening: exit %d, want %d and every file failing:\n%s", code, ExitFailure, stderr)
	}
}
