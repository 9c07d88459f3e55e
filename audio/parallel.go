package audio

import (
	"runtime"
	"sync"
)

// ParallelFor runs fn over [0, n) split into about one chunk per core when
// n is large enough to be worth it (decoding and mixing whole-file batches),
// else on the calling goroutine.
func ParallelFor(n int, fn func(lo, hi int)) {
	const minChunk = 1 << 16
	workers := min(runtime.GOMAXPROCS(0), n/minChunk)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(w*n/workers, (w+1)*n/workers) })
	}
	wg.Wait()
}
