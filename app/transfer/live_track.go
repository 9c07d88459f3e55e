package transfer

import (
	"runtime"
	"sync"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/gpufft"
)

// finders re-find every measurement channel's delay from the averages at
// once, one channel per worker: a find at N = 65536 (GCC-PHAT, a
// float64 inverse FFT and the peak's refinement) takes about 3 ms, so 16
// channels found one after another held every batch 50–70 ms and were
// most of prism capture --transfer's latency on the H200 (p50 81 ms at
// 16+1 channels, 192 kHz, hop 128; docs/performance.md). The workers are
// started with the first find and stopped by stop (Live.Close, or a
// cleanup when a Live is dropped unclosed); a find does not allocate.
type finders struct {
	jobs  chan int // measurement channels to find
	wg    sync.WaitGroup
	avg   []float32    // the averages the jobs read (set before they are sent)
	found []dual.Delay // per channel, the latest find
	once  sync.Once
}

// newFinders makes the pool for channels channels of bins bins, with
// min(channels, GOMAXPROCS) workers, each with its finder and its
// cross-spectrum.
func newFinders(channels, bins int) *finders {
	f := &finders{jobs: make(chan int, channels), found: make([]dual.Delay, channels)}
	for range max(1, min(channels, runtime.GOMAXPROCS(0))) {
		go f.work(dual.NewDelayFinder(bins), make([]complex128, bins))
	}
	return f
}

// work finds the channels sent to jobs until it is closed.
func (f *finders) work(finder *dual.DelayFinder, gxy []complex128) {
	bins := len(gxy)
	for c := range f.jobs {
		avg := f.avg[c*bins*gpufft.TransferValues : (c+1)*bins*gpufft.TransferValues]
		for k := range gxy {
			v := avg[k*gpufft.TransferValues:]
			gxy[k] = complex(float64(v[gpufft.TransferGxyRe]), float64(v[gpufft.TransferGxyIm]))
		}
		f.found[c] = finder.Find(gxy, true)
		f.wg.Done()
	}
}

// find finds every channel's delay in avg (the plan's Read layout) and
// returns them, in channel order (valid until the next find).
func (f *finders) find(avg []float32) []dual.Delay {
	f.avg = avg
	f.wg.Add(len(f.found))
	for c := range f.found {
		f.jobs <- c
	}
	f.wg.Wait()
	f.avg = nil
	return f.found
}

// stop ends the workers; later calls do nothing.
func (f *finders) stop() { f.once.Do(func() { close(f.jobs) }) }
