package engine

import "sync"

// PlanPool keeps the GPU file pipeline's plans between the files of a
// batch: a file of the shape of one done before (same engine, PCM format,
// spectrogram and image configuration — a batch of recordings of one
// length, say) gets that file's plan, its device buffers and its pinned
// staging, emptied by Reset, instead of making and releasing them again.
// The pool holds as many plans per shape as files were in flight at once.
// It is safe for concurrent use; the zero value is not usable (NewPlanPool)
// and a nil pool pools nothing.
type PlanPool struct {
	mu     sync.Mutex
	idle   map[string][]Pooled
	closed bool
}

// Pooled is a plan a pool keeps: a PCM image or spectrogram plan (one
// with Reset() error is reset before it is kept).
type Pooled interface{ Close() error }

// NewPlanPool makes an empty pool.
func NewPlanPool() *PlanPool { return &PlanPool{idle: map[string][]Pooled{}} }

// Get returns an idle plan of shape key (reused true), else make's.
func (p *PlanPool) Get(key string, make func() (Pooled, error)) (plan Pooled, reused bool, err error) {
	if p != nil {
		p.mu.Lock()
		if l := p.idle[key]; len(l) > 0 {
			plan, p.idle[key] = l[len(l)-1], l[:len(l)-1]
		}
		p.mu.Unlock()
		if plan != nil {
			return plan, true, nil
		}
	}
	plan, err = make()
	return plan, false, err
}

// Put gives a plan back after a file that succeeded: an image plan is
// Reset first. A plan that fails to reset, or any plan when the pool is
// nil or closed, is closed instead.
func (p *PlanPool) Put(key string, plan Pooled) {
	if r, ok := plan.(interface{ Reset() error }); ok && p != nil {
		if err := r.Reset(); err != nil {
			plan.Close()
			return
		}
	}
	if p != nil {
		p.mu.Lock()
		if !p.closed {
			p.idle[key] = append(p.idle[key], plan)
			plan = nil
		}
		p.mu.Unlock()
	}
	if plan != nil {
		plan.Close()
	}
}

// Close closes every idle plan; plans given back later are closed then.
// Calling it twice, or on a nil pool, is harmless.
func (p *PlanPool) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, l := range idle {
		for _, plan := range l {
			plan.Close()
		}
	}
}
