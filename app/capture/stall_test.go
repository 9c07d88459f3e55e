//go:build cgo

package capture

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestCaptureStalledSource: a source that delivers 0.1 s and then never
// again (each reopening stalls at once) ends the capture at its deadline
// with ErrIncomplete saying since when there was no input; the captured
// part is written, and the rest of the second as gap rows (real time
// kept), counted as outage in the statistics.
func TestCaptureStalledSource(t *testing.T) {
	first := true
	rec, err := audio.StartRecorder(func() (audio.Source, error) {
		blocks := 0
		if first {
			blocks, first = 20, false // 20 × 240 samples = 0.1 s
		}
		return apptest.NewStallingSource(blocks), nil
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	out := apptest.TempPath(t, "cap.npy")
	opts := Options{FFT: 256, Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: -1,
		Seconds: 1, Out: out, Format: encode.FormatNPY, Grace: 300 * time.Millisecond}
	start := time.Now()
	st, err := Run(context.Background(), rec, engine.Pair{Preferred: cpu, CPU: cpu}, opts)
	took := time.Since(start)
	t.Logf("ended after %v: %v", took, err)
	if !errors.Is(err, live.ErrIncomplete) || !strings.Contains(err.Error(), "outage: no input since") {
		t.Fatalf("error %v, want ErrIncomplete and the outage", err)
	}
	if took > 1300*time.Millisecond+time.Second { // deadline, plus a loaded machine's slack
		t.Errorf("took %v, want about 1.3 s", took)
	}
	rows, cols, vals := apptest.ReadNPY(t, out)
	real := 0
	for real < rows && !math.IsNaN(float64(vals[real*cols])) {
		real++
	}
	if cols != 129 || rows != 187 || real < 5 || real > 18 { // 187 frames: the whole second
		t.Fatalf("%d×%d written, %d real rows: want 187 rows, the first ≤ 18 (0.1 s) real", rows, cols, real)
	}
	for i, v := range vals[real*cols:] {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("row %d after the outage began is not a gap", real+i/cols)
		}
	}
	if st.DroppedOutageFrames < 48000-4800 || st.DroppedOutageFrames > uint64(48000-real*256) ||
		st.DroppedFrames != st.DroppedOutageFrames+st.DroppedOverflowFrames || st.Outages != 1 || st.GapFrames != uint64(187-real) {
		t.Errorf("stats: %d dropped (%d outage, %d overflow), %d outages, %d gap frames; want ~43200 outage, 1 outage, %d gap frames",
			st.DroppedFrames, st.DroppedOutageFrames, st.DroppedOverflowFrames, st.Outages, st.GapFrames, 187-real)
	}
}
