package live

import (
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// flakySource is the generator, failing (reads and opens) while down is set.
type flakySource struct {
	*audio.Generator
	down *atomic.Bool
}

func (s flakySource) Read(dst []float32) (int, time.Time, error) {
	if s.down.Load() {
		return 0, time.Time{}, errors.New("the sound server is gone")
	}
	return s.Generator.Read(dst)
}

// TestLiveOutage: the live view's source (a Recorder, as Session and
// SwitchSource use) fails for 0.6 s (or what a loaded machine makes of it)
// and comes back: it is reopened, the
// analysis goes on with the tone where it was, and the statistics count
// one outage at least as long as the failure (at most that plus the
// longest backoff step, 1 s, and 0.5 s of slack), as outage and not as
// overflow.
func TestLiveOutage(t *testing.T) {
	const rate = 48000
	var down atomic.Bool
	gs, err := audio.ParseGenerator("sine:1000:-6")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := audio.StartRecorder(func() (audio.Source, error) {
		if down.Load() {
			return nil, errors.New("no server")
		}
		g, err := audio.NewGenerator(gs, rate, 2, true)
		return flakySource{g, &down}, err
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	l, err := New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runLive(l, 500*time.Millisecond)
	down.Store(true)
	wentDown := time.Now()
	runLive(l, 600*time.Millisecond)
	during := l.Stats()
	down.Store(false)
	downFor := time.Since(wentDown).Seconds()
	before := l.Stats().Frames
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().Frames < before+20 && time.Now().Before(deadline) {
		runLive(l, 100*time.Millisecond)
	}
	st := l.Stats()
	var sp Spectrum
	l.Latest(2, &sp)
	t.Logf("outages %d, outage %d frames, overflow %d, reopens %d, frames %d (%d before); peak %.1f Hz; status during the outage %q",
		st.Outages, st.DroppedOutageFrames, st.DroppedOverflowFrames, st.Reopens, st.Frames, before, sp.Peak.Freq, during.Status)
	if st.Outages != 1 || st.Reopens != 1 || st.DroppedOverflowFrames != 0 || st.DroppedFrames != st.DroppedOutageFrames ||
		float64(st.DroppedOutageFrames) < (downFor-0.05)*rate || float64(st.DroppedOutageFrames) > (downFor+1.5)*rate {
		t.Errorf("stats %+v: want one outage of %.2f…%.2f s, no overflow", st, downFor-0.05, downFor+1.5)
	}
	if during.Status == "" || st.Frames < before+20 || math.Abs(sp.Peak.Freq-1000) > sp.BinHz {
		t.Errorf("status during the outage %q; %d frames after it (had %d); peak %+v", during.Status, st.Frames, before, sp.Peak)
	}
}
