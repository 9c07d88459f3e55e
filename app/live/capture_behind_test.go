package live

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
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
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
	rec := apptest.StartGenerator(t, "sine:1000:-6", 48000, 1)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	slow := slowEngine{Engine: cpu, delay: 250 * time.Millisecond} // batches hold at most 100 ms of input
	out := apptest.TempPath(t, "cap.npy")
	opts := CaptureOptions{FFT: 256, Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: 0,
		Seconds: 1, Out: out, Format: encode.FormatNPY, Grace: 200 * time.Millisecond}
	st, err := Capture(context.Background(), rec, engine.Pair{Preferred: slow, CPU: slow}, opts)
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

// TestLiveKeepsUpBySkipping: an analysis that cannot keep up with a frame
// longer than the ring (N=32768 at 8 kHz spans 4.1 s, the ring 2 s;
// batches hold at most 14 hops and each takes 200 ms, half the speed
// needed) skips whole hops of the oldest input instead of letting the
// ring overwrite it: the ring never loses a frame, the skipped input is
// counted as dropped (all of it overflow), frames keep coming (never a
// second apart: a broken stream waits for the rest of a whole new frame,
// over 2 s here), and the timeline stays whole: the next frame's index
// times the hop is exactly how far the stream has moved.
func TestLiveKeepsUpBySkipping(t *testing.T) {
	rec := apptest.StartGenerator(t, "sine:1000:-6", 8000, 1)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	slow := slowEngine{Engine: cpu, delay: 200 * time.Millisecond}
	s := DefaultSettings()
	s.FFT, s.Hop = 32768, 64
	l, err := New(rec, engine.Pair{Preferred: slow, CPU: slow}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := l.run.pos
	var last time.Time
	var longest time.Duration
	frames := l.Frames()
	deadline := time.Now().Add(9 * time.Second)
	for time.Now().Before(deadline) {
		if n, _ := l.Step(); n == 0 {
			time.Sleep(time.Millisecond)
		}
		if f := l.Frames(); f != frames {
			if now := time.Now(); !last.IsZero() {
				longest = max(longest, now.Sub(last))
				last = now
			} else {
				last = now
			}
			frames = f
		}
	}
	if !last.IsZero() {
		longest = max(longest, time.Since(last)) // a wait still going on counts too
	}
	st := l.Stats()
	r := &l.run
	if lost := rec.Ring().Lost(); lost != 0 {
		t.Errorf("the ring lost %d frames: the analysis let it overwrite input", lost)
	}
	if st.DroppedFrames == 0 || st.DroppedFrames != st.DroppedOverflowFrames || st.Outages != 0 {
		t.Errorf("stats: %d dropped (%d overflow), %d outages; want skipped input counted as overflow", st.DroppedFrames, st.DroppedOverflowFrames, st.Outages)
	}
	if longest == 0 || longest > time.Second {
		t.Errorf("longest wait between batches %v, want well under a second", longest)
	}
	if moved, want := r.pos-start, uint64(s.Hop)*(r.lostFrames+l.post.frames); moved != want || r.lostSamples != 0 {
		t.Errorf("the stream moved %d samples, the timeline says %d (+%d lost samples)", moved, want, r.lostSamples)
	}
	if r.lostFrames*uint64(s.Hop) != st.DroppedFrames {
		t.Errorf("%d frames skipped (%d samples), %d input frames dropped", r.lostFrames, r.lostFrames*uint64(s.Hop), st.DroppedFrames)
	}
	t.Logf("%d frames analyzed, %d skipped, longest wait %v", l.post.frames, r.lostFrames, longest)
}
