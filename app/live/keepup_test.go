package live

import (
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

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
	slow := apptest.SlowEngine{Engine: cpu, Delay: 200 * time.Millisecond}
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
