package tfrview

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestAnalyzeView: in the VQT (constant-Q and γ > 0) and multi-resolution
// modes, the view's columns of a stereo file's mix are the transform's
// own frames of the same samples (computed here by tfr directly), for the
// whole file, folded into fewer columns (each the maximum of its frames)
// and for a region (a zoom's re-analysis), with each column's time at its
// frame's centre.
func TestAnalyzeView(t *testing.T) {
	const rate = 48000
	n := rate * 3 / 4
	l, r, mix := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		ti := float64(i) / rate
		l[i] = float32(0.5 * math.Sin(2*math.Pi*440*ti))
		r[i] = float32(0.25 * math.Sin(2*math.Pi*3000*ti+1))
		mix[i] = (l[i] + r[i]) / 2
	}
	path := apptest.TempPath(t, "two.wav")
	apptest.WriteWAV(t, path, rate, [][]float32{l, r})
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	pair := engine.Pair{Preferred: cpu, CPU: cpu}
	for _, c := range []tfr.Config{
		{Mode: tfr.VQT, BinsPerOctave: 24, FMin: 100},
		{Mode: tfr.VQT, BinsPerOctave: 12, FMin: 60, Gamma: 10},
		{Mode: tfr.MultiRes, Sizes: []int{8192, 2048}},
		{Mode: tfr.Reassigned, Sizes: []int{4096, 1024}},
	} {
		t.Run(c.Mode.String(), func(t *testing.T) {
			o := Options{View: analysis.ViewOptions{Hop: 512, Window: window.Func{Kind: window.Hann}, Channel: -1}, Mode: c}
			whole, err := AnalyzeView(context.Background(), path, o, pair, nil)
			if err != nil {
				t.Fatal(err)
			}
			if whole.Duration != float64(n)/rate || whole.Start != 0 || whole.Engine != cpu.Name() {
				t.Errorf("duration %g, start %g, engine %q", whole.Duration, whole.Start, whole.Engine)
			}
			want, freqs, span := frames(t, cpu, c, whole, mix)
			if len(whole.Columns) != len(want) || whole.FFT != span || len(whole.Freqs) != len(freqs) {
				t.Fatalf("%d columns of %d bins, span %d; want %d of %d, %d", len(whole.Columns), len(whole.Freqs), whole.FFT, len(want), len(freqs), span)
			}
			for i := range want {
				same(t, "frame", i, whole.Columns[i], want[i])
			}
			if got, w := whole.ColumnTime(3), (3*512+float64(span)/2)/rate; math.Abs(got-w) > 1e-12 {
				t.Errorf("column 3 at %g s, want %g", got, w)
			}

			// in calls of 7 frames (a VQT's state held across them): the
			// same frames
			func() {
				defer func(v int) { chunkValues = v }(chunkValues)
				chunkValues = 7 * max(len(freqs), tfr.FrameValues(whole.Mode, span))
				calls, err := AnalyzeView(context.Background(), path, o, pair, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					same(t, "frame in calls of 7", i, calls.Columns[i], want[i])
				}
			}()

			o.View.MaxColumns = 7
			folded, err := AnalyzeView(context.Background(), path, o, pair, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(folded.Columns) != 7 {
				t.Fatalf("%d columns, want 7", len(folded.Columns))
			}
			for i, col := range folded.Columns {
				lo, hi := plot.ColumnFrames(i, 7, len(want)) // the frames column i shows
				ref := slices.Clone(want[lo])
				for _, fr := range want[lo+1 : hi] {
					for k, v := range fr {
						ref[k] = max(ref[k], v)
					}
				}
				same(t, "folded column", i, col, ref)
			}

			// a zoom's region, 0.3…0.6 s (widened to a frame where shorter)
			o.View.MaxColumns, o.View.Start, o.View.End = 0, 0.3, 0.6
			region, err := AnalyzeView(context.Background(), path, o, pair, nil)
			if err != nil {
				t.Fatal(err)
			}
			first, last := int(0.3*rate), int(0.6*rate)
			if last-first < span {
				first = last - span
			}
			if region.Start != float64(first)/rate || region.Duration != whole.Duration {
				t.Errorf("region from %g s of %g s", region.Start, region.Duration)
			}
			wantR, _, _ := frames(t, cpu, c, region, mix[first:last])
			if len(region.Columns) != len(wantR) || len(wantR) == 0 {
				t.Fatalf("region: %d columns, want %d", len(region.Columns), len(wantR))
			}
			for i := range wantR {
				same(t, "region frame", i, region.Columns[i], wantR[i])
			}
		})
	}
}

// frames are c's transform's frames of x (one channel), made here with
// s's hop and window, with its bins' table and span.
func frames(t *testing.T, e gpufft.Engine, c tfr.Config, s *Spectrogram, x []float32) ([][]float32, []float64, int) {
	t.Helper()
	c.Rate, c.Channels, c.Hop, c.Window, c.MaxSamples = rate(s), 1, s.Hop, s.Window, len(x)
	tr, err := tfr.New(e, c)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	bins := len(tr.Freqs())
	frames := (len(x)-tr.Span())/c.Hop + 1
	dst := make([]float32, frames*bins)
	got, err := tr.Execute(dst, x)
	if err != nil || got != frames {
		t.Fatalf("Execute: %d frames, %v", got, err)
	}
	out := make([][]float32, frames)
	for i := range out {
		out[i] = dst[i*bins : (i+1)*bins]
	}
	return out, tr.Freqs(), tr.Span()
}

func rate(s *Spectrogram) float64 { return float64(s.Rate) }

// same fails where got and want differ by more than 0.01 dB at levels
// above −100 dBFS.
func same(t *testing.T, what string, i int, got, want []float32) {
	t.Helper()
	for k := range want {
		if want[k] > -100 && math.Abs(float64(got[k]-want[k])) > 0.01 {
			t.Fatalf("%s %d bin %d: %.4f dB, the transform's %.4f", what, i, k, got[k], want[k])
		}
	}
}
