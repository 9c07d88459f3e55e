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
//
// Backlog is the input that had arrived but was not analyzed when the
// time was up (in the recorder's ring, the Runner's input and held beyond
// its next frame), in input frames: a mode that keeps up leaves about one
// batch; one that falls behind leaves up to its rings' capacity (more
// is dropped, and counted).
func Capture(ctx context.Context, rec *audio.Recorder, engines engine.Pair, ls live.Settings, s Settings, seconds float64) (st live.Stats, backlog int, err error) {
	r, err := New(rec, engines.Preferred, s)
	if err != nil {
		return st, 0, err
	}
	defer r.Close()
	l, err := live.New(rec, engines, ls)
	if err != nil {
		return st, 0, err
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
	r.ReadStats(&st)
	backlog = rec.Ring().Available() + r.in.Available() + max(0, r.have-r.span)
	return st, backlog, err
}
