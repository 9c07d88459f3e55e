package transfer

import (
	"math"
	"runtime"
	"sync"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/gpufft"
)

// finders place every measurement channel's delay at once, one channel
// per worker, from the engine's impulse-response peaks
// (gpufft.TransferPlan.Peaks: the GCC-PHAT weighting, inverse transform
// and search on the engine) and the averages (dual.DelayFinder.Refine:
// the weighting again and the band-limited maximum near the peak, in
// float64). Whole finds on the host (Find: a float64 inverse FFT each)
// took 3–4 ms a channel at N = 65536, so 16 channels one after another
// held every batch 50–70 ms and were most of prism capture --transfer's
// latency on the H200 (p50 81 ms at 16+1 channels, 192 kHz, hop 128;
// docs/performance.md). The workers are started with the first find and
// stopped by stop (Live.Close, or a cleanup when a Live is dropped
// unclosed); a find does not allocate.
type finders struct {
	jobs  chan int // measurement channels to find
	wg    sync.WaitGroup
	n     int                   // N
	avg   []float32             // the averages the jobs read (set before they are sent)
	peaks []gpufft.TransferPeak // the engine's peaks, likewise
	found []dual.Delay          // per channel, the latest find
	once  sync.Once
}

// newFinders makes the pool for channels channels of bins bins, with
// min(channels, GOMAXPROCS) workers, each with its finder and its
// cross-spectrum.
func newFinders(channels, bins int) *finders {
	f := &finders{jobs: make(chan int, channels), n: 2 * (bins - 1), found: make([]dual.Delay, channels)}
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
		pk := f.peaks[c]
		rms := math.Sqrt(float64(pk.SumSquares) / float64(f.n))
		f.found[c] = finder.Refine(gxy, true, pk.Index, float64(pk.Value), rms)
		f.wg.Done()
	}
}

// find places every channel's delay from avg (the plan's Read layout)
// and peaks (its Peaks of the same averages) and returns them, in channel
// order (valid until the next find).
func (f *finders) find(avg []float32, peaks []gpufft.TransferPeak) []dual.Delay {
	f.avg, f.peaks = avg, peaks
	f.wg.Add(len(f.found))
	for c := range f.found {
		f.jobs <- c
	}
	f.wg.Wait()
	f.avg, f.peaks = nil, nil
	return f.found
}

// stop ends the workers; later calls do nothing.
func (f *finders) stop() { f.once.Do(func() { close(f.jobs) }) }
