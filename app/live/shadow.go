package live

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// shadowInterval is how often the inactive engine is timed on a copy of a
// live batch: often enough for a steady comparison, rarely enough that it
// costs the live path little.
const shadowInterval = 250 * time.Millisecond

// shadowState times the engine not in use on copies of live batches, on a
// goroutine of its own, so the display can show both engines' time per
// batch side by side. The engine goroutine owns every field except buf
// while busy is set: then the shadow goroutine reads buf.
type shadowState struct {
	jobs chan shadowJob
	done chan struct{}
	busy atomic.Bool
	buf  []float32
	gen  uint64            // configuration generation: a new plan when it changes
	cfg  gpufft.LiveConfig // the live plan's configuration
	last time.Time
}

type shadowJob struct {
	eng gpufft.Engine
	cfg gpufft.LiveConfig
	gen uint64
	src []float32 // shadowState.buf: Channels blocks of n samples
	n   int       // samples per channel
}

// MeasureOther starts timing the inactive engine (the CPU while the GPU
// runs, and the other way round) on a copy of a live batch every 250 ms,
// on its own goroutine. Its mean time per batch appears in
// Stats.EngineMs beside the active engine's. Call it before Run, from
// the goroutine that will call Run or Step; Close stops it. Without a GPU
// engine it does nothing.
func (l *Live) MeasureOther() {
	if !l.engines.HasGPU() || l.shadow.jobs != nil {
		return
	}
	l.shadow.jobs = make(chan shadowJob)
	l.shadow.done = make(chan struct{})
	go l.shadowLoop(l.shadow.jobs, l.shadow.done)
}

// other is the engine not in use, or nil without a GPU engine.
func (l *Live) other() gpufft.Engine {
	if !l.engines.HasGPU() {
		return nil
	}
	if l.run.eng == l.engines.CPU {
		return l.engines.Preferred
	}
	return l.engines.CPU
}

// offerShadow hands a copy of the batch just analyzed (src, `samples` per
// channel) to the shadow goroutine when it is idle and its interval has
// passed. Engine goroutine only; allocates only when the batch grows past
// the copy's capacity.
func (l *Live) offerShadow(src []float32, samples int, now time.Time) {
	sh := &l.shadow
	if sh.jobs == nil || now.Sub(sh.last) < shadowInterval || sh.busy.Load() {
		return
	}
	eng := l.other()
	if eng == nil {
		return
	}
	if cap(sh.buf) < len(src) {
		sh.buf = make([]float32, len(src))
	}
	sh.buf = sh.buf[:len(src)]
	copy(sh.buf, src)
	sh.last = now
	sh.busy.Store(true)
	sh.jobs <- shadowJob{eng: eng, cfg: sh.cfg, gen: sh.gen, src: sh.buf, n: samples}
}

// shadowLoop runs the timing jobs; it owns its plan.
func (l *Live) shadowLoop(jobs <-chan shadowJob, done chan<- struct{}) {
	defer close(done)
	var (
		plan    gpufft.LivePlan
		planEng gpufft.Engine
		planGen uint64
		out     *gpufft.LiveOutput
		frame   int64
	)
	defer func() {
		if plan != nil {
			plan.Close()
		}
	}()
	for j := range jobs {
		if plan == nil || planEng != j.eng || planGen != j.gen {
			if plan != nil {
				plan.Close()
				plan = nil
			}
			p, err := j.eng.NewLive(j.cfg)
			if err != nil {
				l.stats.SetStatus(fmt.Sprintf("timing %s in the background: %v", j.eng.Name(), err))
				l.shadow.busy.Store(false)
				continue
			}
			plan, planEng, planGen, out = p, j.eng, j.gen, j.cfg.NewOutput()
			// the first call compiles kernels on some OpenCL platforms:
			// do not time it
			n, _ := plan.Execute(out, j.src, frame, false)
			frame += int64(n)
		}
		start := time.Now()
		n, err := plan.Execute(out, j.src, frame, false)
		took := time.Since(start)
		frame += int64(n)
		l.shadow.busy.Store(false)
		if err != nil {
			l.stats.SetStatus(fmt.Sprintf("timing %s in the background: %v", j.eng.Name(), err))
			continue
		}
		l.stats.recordEngineMs(j.eng.Name(), took.Seconds()*1e3)
	}
}

// stopShadow ends the shadow goroutine and waits for it.
func (l *Live) stopShadow() {
	if l.shadow.jobs == nil {
		return
	}
	close(l.shadow.jobs)
	<-l.shadow.done
	l.shadow.jobs = nil
}
