package archive

import (
	"context"
	"sync"
	"time"
)

// result is one item's rows (or error) and how long it took.
type result[R any] struct {
	rows []R
	secs float64
	err  error
}

// inOrder runs work(ctx, i, emit) for items 0…n−1 on up to parallel
// goroutines and hands each item's rows to write in item order, then
// calls done(i, secs, err) for it. With parallel ≤ 1 the rows stream
// straight to write; else each item's rows wait in memory until the
// items before it are written, at most 2·parallel items ahead. The first
// error (work's, write's or done's) stops the rest and is returned.
//
// Items are independent (units no time bin straddles, whole days), so
// the output is the same bytes at any parallelism.
func inOrder[R any](ctx context.Context, n, parallel int, work func(ctx context.Context, i int, emit func(R) error) error,
	write func(R) error, done func(i int, secs float64, err error) error) error {
	if parallel <= 1 || n <= 1 {
		for i := range n {
			t0 := time.Now()
			err := work(ctx, i, write)
			if derr := done(i, time.Since(t0).Seconds(), err); derr != nil {
				return derr
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: the goroutines see it and end
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan result[R], n)
	for i := range results {
		results[i] = make(chan result[R], 1)
	}
	ahead := make(chan struct{}, 2*parallel) // items started and not yet written
	next := make(chan int)
	wg.Go(func() {
		defer close(next)
		for i := range n {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	})
	for range min(parallel, n) {
		wg.Go(func() {
			for i := range next {
				var res result[R]
				t0 := time.Now()
				res.err = work(ctx, i, func(r R) error { res.rows = append(res.rows, r); return nil })
				res.secs = time.Since(t0).Seconds()
				results[i] <- res
			}
		})
	}
	for i := range n {
		var res result[R]
		select {
		case res = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		err := res.err
		for _, r := range res.rows {
			if err != nil {
				break
			}
			err = write(r)
		}
		if derr := done(i, res.secs, err); derr != nil {
			return derr
		}
		<-ahead
	}
	return nil
}
