package live

import (
	"math"
	"runtime"

	"github.com/prismaudio/prism/app/dsp"
)

// postState turns each batch's power spectra into what the display shows:
// per output channel the latest spectrum, exponential and linear averages,
// peak and min holds, and the RTA's band levels. Engine goroutine only;
// the bins are split among a few worker goroutines (the engine is idle
// while they run), and nothing is allocated per batch.
type postState struct {
	set    LiveSettings
	geo    Geometry
	gain2  []float32 // (c_k/Σw)²: |X|² → power relative to a full-scale sine
	chans  []chanState
	rta    *dsp.BandAccumulator // nil: no RTA
	rtaMS  []float64
	frames uint64 // frames analyzed per channel

	// per-frame constants of the settings
	alpha      float32 // exponential average weight
	holdFrames int32
	decay      float32 // peak decay per frame once held long enough

	// the batch being processed (set before the workers run)
	out      []float32 // |X|², outCh×n×bins
	n        int       // frames in the batch
	slot     []int     // each frame's linear-average ring slot (the same for every channel)
	workers  *workerPool
	splits   int       // bin ranges per channel
	partFunc func(int) // p.part, bound once
}

type chanState struct {
	primed, primedBands      bool // the averages hold a frame
	pow, exp, lin, peak, min []float32
	linRing                  [][]float32
	linSum                   []float64
	linN, linNext            int
	peakAge                  []int32   // frames since the held peak was set
	bandPow                  []float64 // RTA: averaged mean square per band
}

// newRTA is the band accumulator of settings s (nil with Fraction 0).
func newRTA(s LiveSettings, rate int) (*dsp.BandAccumulator, error) {
	if s.Fraction == 0 {
		return nil, nil
	}
	nyq := float64(rate) / 2
	bands, err := dsp.Bands(s.Fraction, 20, 20000, nyq)
	if err != nil {
		return nil, err
	}
	return dsp.NewBandAccumulator(bands, s.FFT, rate, dsp.SumsOf(s.Window.Values(s.FFT)), s.Weighting), nil
}

func (p *postState) reset(s LiveSettings, geo Geometry, outCh int, rta *dsp.BandAccumulator) {
	bins := geo.Bins()
	p.set, p.geo, p.rta, p.frames = s, geo, rta, 0
	p.gain2 = make([]float32, bins)
	dsp.SumsOf(s.Window.Values(s.FFT)).SinePowerGains(p.gain2)
	frameSec := geo.HopSeconds()
	p.alpha = 1
	if s.AvgTau > 0 {
		p.alpha = float32(1 - math.Exp(-frameSec/s.AvgTau.Seconds()))
	}
	p.holdFrames = int32(s.PeakHold.Seconds() / frameSec)
	p.decay = float32(math.Pow(10, -s.PeakDecay*frameSec/10))
	p.chans = make([]chanState, outCh)
	for c := range p.chans {
		p.chans[c].init(bins, s.AvgFrames, rta)
	}
	if rta != nil {
		p.rtaMS = make([]float64, len(rta.Bands))
	}
	if p.workers == nil {
		p.workers = newWorkerPool(runtime.GOMAXPROCS(0))
		p.partFunc = p.part
	}
	// ranges of at least 2048 bins: smaller ones cost more to hand out
	// than they take
	p.splits = max(1, min(p.workers.size, bins/2048, maxParts/outCh))
}

func (st *chanState) init(bins, avgFrames int, rta *dsp.BandAccumulator) {
	st.pow, st.exp, st.lin, st.peak, st.min = make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins)
	st.linSum = make([]float64, bins)
	st.peakAge = make([]int32, bins)
	for range avgFrames {
		st.linRing = append(st.linRing, make([]float32, bins))
	}
	for k := range st.min {
		st.min[k] = float32(math.Inf(1))
	}
	if rta != nil {
		st.bandPow = make([]float64, len(rta.Bands))
	}
}

// batch takes a batch's |X|² (outCh×n×bins, with any band gain applied):
// every channel's averages and holds, bin range by bin range on the
// workers, each bin through all n frames in turn (its state stays in
// registers); then the RTA, frame by frame.
func (p *postState) batch(out []float32, n int) {
	p.out, p.n = out, n
	p.slot = p.slot[:0]
	for f := range n {
		p.slot = append(p.slot, (p.chans[0].linNext+f)%len(p.chans[0].linRing))
	}
	p.workers.run(len(p.chans)*p.splits, p.partFunc)
	for c := range p.chans {
		st := &p.chans[c]
		st.primed = true
		st.linNext = (st.linNext + n) % len(st.linRing)
		st.linN = min(st.linN+n, len(st.linRing))
		if p.rta != nil {
			bins := p.geo.Bins()
			for f := range n {
				st.bands(out[(c*n+f)*bins:(c*n+f+1)*bins], p)
			}
		}
	}
	p.frames += uint64(n)
	p.out = nil
}

// part updates one channel's bins in one range over the batch's frames.
func (p *postState) part(i int) {
	c, r := i/p.splits, i%p.splits
	bins := p.geo.Bins()
	p.chans[c].update(p, p.out[c*p.n*bins:(c+1)*p.n*bins], r*bins/p.splits, (r+1)*bins/p.splits)
}

// update runs bins [lo, hi) of rows (n frames × bins) through the
// averages and holds.
func (st *chanState) update(p *postState, rows []float32, lo, hi int) {
	bins, n, L := p.geo.Bins(), p.n, len(st.linRing)
	alpha, hold, decay, slots := p.alpha, p.holdFrames, p.decay, p.slot[:n]
	for k := lo; k < hi; k++ {
		g := p.gain2[k]
		e, pk, age, mn, sum := st.exp[k], st.peak[k], st.peakAge[k], st.min[k], st.linSum[k]
		if !st.primed { // the average starts at the first frame, not at zero
			e = rows[k] * g
		}
		var v float32
		for f, si := range slots {
			v = rows[f*bins+k] * g
			e += alpha * (v - e)
			slot := st.linRing[si]
			sum += float64(v) - float64(slot[k])
			slot[k] = v
			if v >= pk {
				pk, age = v, 0
			} else if age++; age > hold {
				pk = max(v, pk*decay)
			}
			mn = min(mn, v)
		}
		st.pow[k], st.exp[k], st.peak[k], st.peakAge[k], st.min[k], st.linSum[k] = v, e, pk, age, mn, sum
		st.lin[k] = float32(sum / float64(min(st.linN+n, L)))
	}
}

// bands averages the RTA's band levels of one |X|² row.
func (st *chanState) bands(row []float32, p *postState) {
	p.rta.Frame(row, p.rtaMS)
	for i, ms := range p.rtaMS {
		if st.primedBands {
			st.bandPow[i] += float64(p.alpha) * (ms - st.bandPow[i])
		} else {
			st.bandPow[i] = ms
		}
	}
	st.primedBands = true
}

// close stops the workers.
func (p *postState) close() {
	if p.workers != nil {
		p.workers.close()
		p.workers = nil
	}
}

// workerPool runs numbered parts of a job (at most maxParts) on a fixed set
// of goroutines, without allocating.
type workerPool struct {
	size int
	fn   func(int)
	work chan int
	done chan struct{}
}

const maxParts = 1024

func newWorkerPool(size int) *workerPool {
	w := &workerPool{size: size, work: make(chan int, maxParts), done: make(chan struct{}, maxParts)}
	for range size {
		go func() {
			for i := range w.work {
				w.fn(i)
				w.done <- struct{}{}
			}
		}()
	}
	return w
}

// run calls fn(0…parts−1) on the workers and returns when all are done.
func (w *workerPool) run(parts int, fn func(int)) {
	if parts == 1 {
		fn(0)
		return
	}
	w.fn = fn
	for i := range parts {
		w.work <- i
	}
	for range parts {
		<-w.done
	}
}

func (w *workerPool) close() { close(w.work) }
