package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// TestSpreadOverEngines: files spread over two OpenCL engines (two
// contexts on PoCL, standing in for two GPUs) come out as one engine makes
// them, byte for byte, with every file written once.
func TestSpreadOverEngines(t *testing.T) {
	var gs []*gpufft.OpenCL
	for range 2 {
		g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{})
		if err != nil {
			if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
				t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", err)
			}
			t.Skip("no OpenCL:", err)
		}
		defer g.Close()
		gs = append(gs, g)
	}
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	dir := t.TempDir()
	var inputs, dsts, want []string
	for i := range 5 {
		in := filepath.Join(dir, "in"+string(rune('a'+i))+".wav")
		apptest.WriteWAV(t, in, 16000, [][]float32{apptest.Tone(20000+3000*i, 16000, float64(400+100*i), 0.5)})
		inputs = append(inputs, in)
		dsts = append(dsts, filepath.Join(dir, "spread"+string(rune('a'+i))+".npy"))
		w := filepath.Join(dir, "one"+string(rune('a'+i))+".npy")
		opts := analysis.AnalyzeOptions{FFT: 512, Hop: 128, Window: gpufft.Window{Kind: gpufft.Hann}, Channel: -1}
		if _, err := analysis.AnalyzeFile(context.Background(), in, w, encode.FormatNPY, opts, analysis.Engines{Preferred: gs[0], CPU: cpu}, nil); err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	set := []analysis.Engines{{Preferred: gs[0], CPU: cpu}, {Preferred: gs[1], CPU: cpu}}
	sess := &session{engines: set[0], set: set, ctx: context.Background(), stop: func() {}}
	var errb bytes.Buffer
	opts := analysis.AnalyzeOptions{FFT: 512, Hop: 128, Window: gpufft.Window{Kind: gpufft.Hann}, Channel: -1}
	if code := analyzeAll(sess, inputs, dsts, encode.FormatNPY, opts, true, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for i := range dsts {
		a, _ := os.ReadFile(want[i])
		b, err := os.ReadFile(dsts[i])
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: spread over two engines differs from one engine's (%v)", filepath.Base(inputs[i]), err)
		}
	}
}
