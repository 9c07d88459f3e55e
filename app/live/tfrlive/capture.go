package tfrlive

import (
	"context"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/audio"
)

// Capture runs mode s live on rec's stream for `seconds` of wall-clock
// time, as the window does: a live analysis of settings ls on engines
// reads the recorder and copies every block to a Runner on
// engines.Preferred, each on a goroutine of its own. It returns the
// Runner's statistics (`prism capture --mode --stats`): the input frames
// dropped (the source's losses and the Runner's own: its input
// overwritten before it read it), the frames analyzed and the latency
// from the live analysis's read of a block to the Runner's publication
// of the frames it completes. It stops early, with ctx's error, when ctx
// is done.
func Capture(ctx context.Context, rec *audio.Recorder, engines engine.Pair, ls live.Settings, s Settings, seconds float64) (live.Stats, error) {
	r, err := New(rec, engines.Preferred, s)
	if err != nil {
		return live.Stats{}, err
	}
	defer r.Close()
	l, err := live.New(rec, engines, ls)
	if err != nil {
		return live.Stats{}, err
	}
	l.SetTeeAt(live.TeeMode, r.In())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		l.Run(stop)
	}()
	go func() {
		defer wg.Done()
		r.Run(stop)
	}()
	t := time.NewTimer(time.Duration(seconds * float64(time.Second)))
	select {
	case <-t.C:
	case <-ctx.Done():
		err = ctx.Err()
	}
	t.Stop()
	close(stop)
	wg.Wait()
	l.Close()
	var st live.Stats
	r.ReadStats(&st)
	return st, err
}
