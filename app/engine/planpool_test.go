package engine

import (
	"errors"
	"sync"
	"testing"
)

// fakePlan counts its Resets and Closes; a reset error can be set.
type fakePlan struct {
	mu             sync.Mutex
	resets, closes int
	resetErr       error
}

func (p *fakePlan) Reset() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resets++
	return p.resetErr
}

func (p *fakePlan) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closes++
	return nil
}

// TestPlanPool: a plan given back is Reset and handed out again for its
// shape only; one that fails to reset is closed; Close closes the idle
// plans and any given back later; a nil pool makes and closes every plan.
func TestPlanPool(t *testing.T) {
	pool := NewPlanPool()
	made := 0
	mk := func() (Pooled, error) { made++; return &fakePlan{}, nil }
	a, reused, err := pool.Get("A", mk)
	if err != nil || reused || made != 1 {
		t.Fatalf("first get: %v %v made %d", reused, err, made)
	}
	pool.Put("A", a)
	if fp := a.(*fakePlan); fp.resets != 1 || fp.closes != 0 {
		t.Fatalf("put: %d resets, %d closes", fp.resets, fp.closes)
	}
	if b, reused, _ := pool.Get("B", mk); reused || b == a || made != 2 {
		t.Fatalf("another shape got the plan of A (reused %v, made %d)", reused, made)
	}
	if again, reused, _ := pool.Get("A", mk); !reused || again != a {
		t.Fatalf("shape A: reused %v, same plan %v", reused, again == a)
	}
	// a plan whose Reset fails is closed, not kept
	bad := &fakePlan{resetErr: errors.New("device lost")}
	pool.Put("A", bad)
	if bad.closes != 1 {
		t.Errorf("a plan that failed to reset: %d closes, want 1", bad.closes)
	}
	if _, reused, _ := pool.Get("A", mk); reused {
		t.Errorf("a plan that failed to reset was handed out again")
	}
	// Close: idle plans closed, later ones too
	idle := &fakePlan{}
	pool.Put("C", idle)
	pool.Close()
	pool.Close()
	late := &fakePlan{}
	pool.Put("C", late)
	if idle.closes != 1 || late.closes != 1 {
		t.Errorf("after Close: idle plan closed %d times, late one %d", idle.closes, late.closes)
	}
	// a failing make is returned
	boom := errors.New("no memory")
	if _, _, err := NewPlanPool().Get("A", func() (Pooled, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("make's error: %v", err)
	}
	// nil pool: nothing kept
	var none *PlanPool
	p, reused, _ := none.Get("A", mk)
	none.Put("A", p)
	if fp := p.(*fakePlan); reused || fp.closes != 1 || fp.resets != 0 {
		t.Errorf("nil pool: reused %v, %d closes, %d resets", reused, fp.closes, fp.resets)
	}
	none.Close()
}
