package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/bench"
	"github.com/prismaudio/prism/window"
)

// TestSpreadOverEngines: files spread over two OpenCL engines (two
// contexts on PoCL, standing in for two GPUs), with the batch's plan pool,
// come out as one engine makes them, byte for byte (NPY and PNG), with
// every file written once; one long file alone is spread over both engines
// batch by batch and its PNG equals one engine's byte for byte; --timings
// says so, one JSON line per file.
func TestSpreadOverEngines(t *testing.T) {
	gs := twoOpenCL(t)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	dir := t.TempDir()
	opts := analysis.AnalyzeOptions{FFT: 512, Hop: 128, Window: window.Func{Kind: window.Hann}, Channel: -1,
		Image: plot.ImageOptions{Width: 300, Height: 200, Scale: plot.Log, DBMin: -120, DBMax: 0, Colormap: plot.Viridis}}
	one := engine.Pair{Preferred: gs[0], CPU: cpu}
	var inputs []string
	for i := range 5 {
		in := filepath.Join(dir, "in"+string(rune('a'+i))+".wav")
		apptest.WriteWAV(t, in, 16000, [][]float32{apptest.Tone(20000+3000*i, 16000, float64(400+100*i), 0.5)})
		inputs = append(inputs, in)
	}
	for _, format := range []encode.Format{encode.FormatNPY, encode.FormatPNG} {
		var dsts, want []string
		for i, in := range inputs {
			dsts = append(dsts, filepath.Join(dir, fmt.Sprintf("spread%d.%s", i, format)))
			w := filepath.Join(dir, fmt.Sprintf("one%d.%s", i, format))
			o := opts
			o.Image.Title = fmt.Sprintf("%s   N=%d  hop=%d  %v  %s", filepath.Base(in), o.FFT, o.Hop, o.Window, dsp.ChannelName(o.Channel))
			if _, err := analysis.AnalyzeFile(context.Background(), in, w, format, o, one, nil); err != nil {
				t.Fatal(err)
			}
			want = append(want, w)
		}
		pool := engine.NewPlanPool()
		set := []engine.Pair{{Preferred: gs[0], CPU: cpu, Plans: pool}, {Preferred: gs[1], CPU: cpu, Plans: pool}}
		sess := kit.NewSession(context.Background(), set, nil)
		var errb bytes.Buffer
		b := batchRun{sess: sess, format: format, opts: opts, quiet: true, timings: true, stderr: &errb}
		if code := b.all(inputs, dsts); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		pool.Close()
		for i := range dsts {
			a, _ := os.ReadFile(want[i])
			b, err := os.ReadFile(dsts[i])
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s %s: spread over two engines differs from one engine's (%v)", format, filepath.Base(inputs[i]), err)
			}
		}
		lines := timingLines(t, errb.String())
		if len(lines) != len(inputs) {
			t.Fatalf("%s: %d timing lines for %d files:\n%s", format, len(lines), len(inputs), errb.String())
		}
		reused := 0
		for _, l := range lines {
			if !l.OK || l.Devices != 1 || l.Total <= 0 || l.Analyze <= 0 || (format == encode.FormatPNG) != (l.Encode > 0) {
				t.Errorf("%s: timings %+v", format, l)
			}
			if l.Reused {
				reused++
			}
		}
		checkBatchBusy(t, errb.String(), len(inputs), format)
		// 5 files, at most filesInFlight plans made: the pool hands back a
		// plan as soon as one file of the shape is done, so at least one
		// file finds one unless all started at once
		if reused == 0 && len(inputs) > filesInFlight {
			t.Errorf("%s: no file reused a plan", format)
		}
	}

	// one long file: its batches alternate between the engines (N=65536,
	// hop 1024: batches of 512 frames, 588800 samples, so 3 batches here)
	long := filepath.Join(dir, "long.wav")
	const n = 16000 * 75
	apptest.WriteWAV(t, long, 16000, [][]float32{apptest.Tone(n, 16000, 1234, 0.5), apptest.Tone(n, 16000, 567, 0.25)})
	opts.FFT, opts.Hop = 65536, 1024
	w := filepath.Join(dir, "long-one.png")
	o := opts
	o.Image.Title = fmt.Sprintf("%s   N=%d  hop=%d  %v  %s", "long.wav", o.FFT, o.Hop, o.Window, dsp.ChannelName(o.Channel))
	if _, err := analysis.AnalyzeFile(context.Background(), long, w, encode.FormatPNG, o, one, nil); err != nil {
		t.Fatal(err)
	}
	set := []engine.Pair{{Preferred: gs[0], CPU: cpu}, {Preferred: gs[1], CPU: cpu}}
	sess := kit.NewSession(context.Background(), set, nil)
	var errb bytes.Buffer
	dst := filepath.Join(dir, "long-two.png")
	if code := (batchRun{sess: sess, format: encode.FormatPNG, opts: opts, quiet: true, timings: true, stderr: &errb}).all([]string{long}, []string{dst}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	a, _ := os.ReadFile(w)
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(a, got) {
		t.Errorf("one file over two engines: PNG differs from one engine's (%v)", err)
	}
	if l := timingLines(t, errb.String()); len(l) != 1 || l[0].Devices != 2 {
		t.Errorf("one file over two engines: timings %+v, want one line of 2 devices", l)
	}
}

// checkBatchBusy checks the batch line of --timings output: the files
// counted, the GPU-resident path's kinds of work all there (PNG: fetch,
// render, encode too), and each kind's union no more than its sum or the
// batch's wall time, which is no more than the time since the start.
func checkBatchBusy(t *testing.T, stderr string, files int, format encode.Format) {
	t.Helper()
	b := bench.BatchBusy(stderr)
	if b == nil {
		t.Fatalf("%s: no batch line in\n%s", format, stderr)
	}
	if b.Files != files || b.Wall <= 0 || b.Started < b.Wall {
		t.Errorf("%s: batch %d files, wall %.3f ms, %.3f ms since the start", format, b.Files, b.Wall, b.Started)
	}
	want := map[analysis.SpanKind]bool{analysis.SpanSetup: true, analysis.SpanAnalyze: true, analysis.SpanRead: true, analysis.SpanCommit: true}
	if format == encode.FormatPNG {
		for _, k := range []analysis.SpanKind{analysis.SpanStaging, analysis.SpanSubmit, analysis.SpanFetch, analysis.SpanRender, analysis.SpanEncode} {
			want[k] = true
		}
	}
	for _, k := range b.Busy {
		delete(want, k.Kind)
		if k.Union <= 0 || k.Union > k.Sum+0.002 || k.Union > b.Wall+0.002 {
			t.Errorf("%s: %s busy %.3f ms of %.3f ms summed, wall %.3f ms", format, k.Kind, k.Union, k.Sum, b.Wall)
		}
	}
	if len(want) > 0 {
		t.Errorf("%s: kinds missing from the batch line: %v", format, want)
	}
}

// timingLines parses --timings file lines.
func timingLines(t *testing.T, stderr string) []bench.FileTimings {
	t.Helper()
	return bench.FileLines(stderr)
}

// twoOpenCL opens two OpenCL engines (two contexts on PoCL, standing in
// for two GPUs), closed when the test ends.
func twoOpenCL(t *testing.T) []*gpufft.OpenCL {
	t.Helper()
	return []*gpufft.OpenCL{apptest.OpenCL(t), apptest.OpenCL(t)}
}
