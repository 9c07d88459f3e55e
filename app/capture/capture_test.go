package capture

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestCaptureRowsFromEngine: a capture's NPY rows are the engine's
// columns of its one channel, one per frame (the plan's ColumnChannel and
// a one-frame grid), on every engine: as many rows as frames, each with
// the generator's tone at its bin and level (a tone at a bin centre reads
// its level, −6 dBFS, with any window; rows lost to dropped input are NaN).
func TestCaptureRowsFromEngine(t *testing.T) {
	for _, engs := range testEngines(t) {
		t.Run(engs.Preferred.Name(), func(t *testing.T) {
			rec := apptest.StartGenerator(t, "sine:3000:-6", 48000, 2)
			out := filepath.Join(t.TempDir(), "cap.npy")
			opts := Options{FFT: 1024, Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: 1,
				Seconds: 0.5, Out: out, Format: encode.FormatNPY}
			if _, err := Run(context.Background(), rec, engs, opts); err != nil {
				t.Fatal(err)
			}
			rows, cols, vals := apptest.ReadNPY(t, out)
			if want := dsp.FrameCount(24000, 1024, 256); rows != want || cols != 513 {
				t.Fatalf("shape (%d, %d), want (%d, 513)", rows, cols, want)
			}
			good := 0
			for f := range rows {
				row := vals[f*cols : (f+1)*cols]
				if math.IsNaN(float64(row[0])) {
					continue
				}
				pk, lv := apptest.PeakIn(row, 1, cols)
				if pk != 64 || math.Abs(float64(lv)+6) > 0.01 {
					t.Fatalf("row %d: peak bin %d at %.3f dBFS, want bin 64 at −6.00", f, pk, lv)
				}
				good++
			}
			if good < rows/2 {
				t.Errorf("only %d of %d rows analyzed", good, rows)
			}
		})
	}
}

// TestCaptureImageFromEngine: a capture's PNG, folded into its pixel
// columns on the engine, is written on every engine, with more pixel
// columns than frames (each frame shown in several) and fewer.
func TestCaptureImageFromEngine(t *testing.T) {
	for _, engs := range testEngines(t) {
		for _, width := range []int{64, 1000} {
			t.Run(fmt.Sprintf("%s/width=%d", engs.Preferred.Name(), width), func(t *testing.T) {
				rec := apptest.StartGenerator(t, "sweep:100:10000:-12:1", 48000, 2)
				out := filepath.Join(t.TempDir(), "cap.png")
				opts := Options{FFT: 1024, Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: -1,
					Image:   plot.ImageOptions{Width: width, Height: 100, DBMin: -120, DBMax: 0},
					Seconds: 0.5, Out: out, Format: encode.FormatPNG}
				if _, err := Run(context.Background(), rec, engs, opts); err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(out); err != nil || fi.Size() < 1000 {
					t.Fatalf("%v, %v", fi, err)
				}
			})
		}
	}
}

// TestCaptureFallsBehind: a capture whose analysis cannot keep up with a
// source that keeps delivering ends at its deadline with ErrIncomplete
// saying so — not an outage: the statistics count the input it never
// reached as overflow (input lost because something fell behind), with no
// outage — and the rest of the timeline written as gap rows.
func TestCaptureFallsBehind(t *testing.T) {
	rec := apptest.StartGenerator(t, "sine:1000:-6", 48000, 1)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	slow := apptest.SlowEngine{Engine: cpu, Delay: 250 * time.Millisecond} // batches hold at most 100 ms of input
	out := apptest.TempPath(t, "cap.npy")
	opts := Options{FFT: 256, Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: 0,
		Seconds: 1, Out: out, Format: encode.FormatNPY, Grace: 200 * time.Millisecond}
	st, err := Run(context.Background(), rec, engine.Pair{Preferred: slow, CPU: slow}, opts)
	if !errors.Is(err, live.ErrIncomplete) || !strings.Contains(err.Error(), "the analysis fell behind") || strings.Contains(err.Error(), "outage") {
		t.Fatalf("error %v, want ErrIncomplete saying the analysis fell behind", err)
	}
	if st.Outages != 0 || st.DroppedOutageFrames != 0 || st.DroppedOverflowFrames == 0 ||
		st.DroppedFrames != st.DroppedOverflowFrames {
		t.Errorf("stats: %d dropped (%d overflow, %d outage), %d outages; want all of it overflow, no outage",
			st.DroppedFrames, st.DroppedOverflowFrames, st.DroppedOutageFrames, st.Outages)
	}
	rows, cols, vals := apptest.ReadNPY(t, out)
	real := 0
	for real < rows && !math.IsNaN(float64(vals[real*cols])) {
		real++
	}
	if rows != 187 || cols != 129 || real == 0 || real == rows { // 187 frames: the whole second
		t.Fatalf("%d×%d written, %d real rows: want 187 rows, some analyzed, the rest gap rows", rows, cols, real)
	}
	for i, v := range vals[real*cols:] {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("row %d after the analysis stopped is not a gap", real+i/cols)
		}
	}
}

func testEngines(t *testing.T) []engine.Pair {
	return apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} })
}
