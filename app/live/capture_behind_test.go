package live

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// slowEngine's live plans take at least delay a batch: an engine that
// cannot keep up with its input.
type slowEngine struct {
	gpufft.Engine
	delay time.Duration
}

func (e slowEngine) NewLive(cfg gpufft.LiveConfig) (gpufft.LivePlan, error) {
	p, err := e.Engine.NewLive(cfg)
	return slowLive{LivePlan: p, delay: e.delay}, err
}

type slowLive struct {
	gpufft.LivePlan
	delay time.Duration
}

func (p slowLive) Execute(out *gpufft.LiveOutput, src []float32, first int64, traces bool) (int, error) {
	time.Sleep(p.delay)
	return p.LivePlan.Execute(out, src, first, traces)
}

// TestCaptureFallsBehind: a capture whose analysis cannot keep up with a
// source that keeps delivering ends at its deadline with ErrIncomplete
// saying so — not an outage: the statistics count the input it never
// reached as overflow (input lost because something fell behind), with no
// outage — and the rest of the timeline written as gap rows.
func TestCaptureFallsBehind(t *testing.T) {
	rec := startGenerator(t, "sine:1000:-6", 48000, 1)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	slow := slowEngine{Engine: cpu, delay: 250 * time.Millisecond} // batches hold at most 100 ms of input
	out := apptest.TempPath(t, "cap.npy")
	opts := CaptureOptions{AnalyzeOptions: analysis.AnalyzeOptions{FFT: 256, Hop: 256, Window: gpufft.Window{Kind: gpufft.Hann}, Channel: 0},
		Seconds: 1, Out: out, Format: encode.FormatNPY, Grace: 200 * time.Millisecond}
	st, err := Capture(context.Background(), rec, analysis.Engines{Preferred: slow, CPU: slow}, opts)
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "the analysis fell behind") || strings.Contains(err.Error(), "outage") {
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
