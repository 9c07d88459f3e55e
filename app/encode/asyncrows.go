package encode

import "sync"

// AsyncRows is a RowWriter that writes on a goroutine of its own: Rows
// copies the levels into one of a few buffers and returns, so the engine
// analyzes the next batch while the last one's bytes go to the file (a
// 10-minute file's 230 MB of NPY rows cost as much CPU in write(2) as its
// analysis). Memory stays bounded: rows are queued in chunks of at most
// asyncChunk values, asyncBuffers of them; Rows waits for a free one.
// Nothing is dropped (unlike a live capture's sink, a file waits for its
// writer). The first error the writer meets is returned by the next Rows
// or by Finish. Close ends the goroutine without finishing the file;
// callers defer it. Rows, Finish and Close are for one goroutine.
type AsyncRows struct {
	w     RowWriter
	bins  int
	free  chan []float32
	work  chan asyncJob
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	err   error
	chunk int // values per chunk: whole rows
}

type asyncJob struct {
	first int
	db    []float32
}

const (
	asyncChunk   = 1 << 20 // values (4 MiB)
	asyncBuffers = 4
)

// NewAsyncRows starts writing rows of bins values to w on a goroutine.
func NewAsyncRows(w RowWriter, bins int) *AsyncRows {
	a := &AsyncRows{w: w, bins: bins, free: make(chan []float32, asyncBuffers), work: make(chan asyncJob, asyncBuffers),
		done: make(chan struct{}), chunk: max(1, asyncChunk/bins) * bins}
	for range asyncBuffers {
		a.free <- nil // made on first use, at the size used
	}
	go a.run()
	return a
}

func (a *AsyncRows) run() {
	defer close(a.done)
	for j := range a.work {
		if a.failed() == nil {
			if err := a.w.Rows(j.first, j.db); err != nil {
				a.mu.Lock()
				a.err = err
				a.mu.Unlock()
			}
		}
		a.free <- j.db
	}
}

func (a *AsyncRows) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Rows queues frames' levels (whole rows), the first being frame first.
func (a *AsyncRows) Rows(first int, db []float32) error {
	for len(db) > 0 {
		if err := a.failed(); err != nil {
			return err
		}
		n := min(len(db), a.chunk)
		buf := append((<-a.free)[:0], db[:n]...)
		a.work <- asyncJob{first, buf}
		first += n / a.bins
		db = db[n:]
	}
	return a.failed()
}

// Finish waits until every queued row is written, then finishes the file.
func (a *AsyncRows) Finish(frames int) error {
	a.Close()
	if err := a.failed(); err != nil {
		return err
	}
	return a.w.Finish(frames)
}

// Close stops the writer goroutine after the rows queued (it does not
// finish the file). Calling it again, or after Finish, is harmless.
func (a *AsyncRows) Close() {
	a.once.Do(func() { close(a.work) })
	<-a.done
}
