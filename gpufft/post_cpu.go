package gpufft

import (
	"math"
	"sync"
)

// liveHost is the state and arithmetic of a live plan on the CPU engine:
// per output channel and bin, the traces and their running sums, and the
// column being folded; per channel and band, the RTA's average.
type liveHost struct {
	cfg        LiveConfig
	bins, outC int
	tr         []float32 // outC×NumTraces×bins, LiveOutput.Traces' layout
	peakAge    []int32   // frames since each held peak was set
	ring       []float32 // LinFrames×outC×bins: the last frames' v
	linSum     []float64
	longSum    []float64
	carry      []float32 // outC×bins: the open column's maximum
	bandPow    []float64 // outC×bands
	frames     uint64    // frames analyzed per channel
	linNext    int       // ring slot of the next frame
	linN       int       // frames in the ring
	slot       []int     // each frame's ring slot in the batch
}

func newLiveHost(cfg LiveConfig) *liveHost {
	bins, outC := cfg.Spectrogram.Bins(), cfg.Spectrogram.OutChannels()
	h := &liveHost{cfg: cfg, bins: bins, outC: outC,
		tr: make([]float32, outC*NumTraces*bins), peakAge: make([]int32, outC*bins),
		ring: make([]float32, cfg.LinFrames*outC*bins), linSum: make([]float64, outC*bins),
		longSum: make([]float64, outC*bins), carry: make([]float32, outC*bins),
		bandPow: make([]float64, outC*len(cfg.Bands)), slot: make([]int, 0, cfg.MaxFrames())}
	for c := range outC {
		mins := h.trace(c, TraceMin)
		for k := range mins {
			mins[k] = float32(math.Inf(1))
		}
	}
	return h
}

func (h *liveHost) trace(c, t int) []float32 {
	return h.tr[(c*NumTraces+t)*h.bins : (c*NumTraces+t+1)*h.bins]
}

// begin sets the batch's ring slots (the same for every channel).
func (h *liveHost) begin(n int) {
	h.slot = h.slot[:0]
	for f := range n {
		h.slot = append(h.slot, (h.linNext+f)%h.cfg.LinFrames)
	}
}

// end counts the batch's frames in.
func (h *liveHost) end(n int) {
	L := h.cfg.LinFrames
	h.linNext = (h.linNext + n) % L
	h.linN = min(h.linN+n, L)
	h.frames += uint64(n)
}

// update runs bins [lo, hi) of output channel c through the traces and
// the column fold: pow holds the channel's n frames of |X|² (n×bins), the
// columns (ents nil: none for this channel) go to cols at column slot
// (j·colN + slot)·bins, LiveOutput.Columns' layout. Each bin's state stays
// in registers through the frames.
func (h *liveHost) update(c int, pow []float32, n, lo, hi int, ents []colEntry, cols []float32, slot, colN int) {
	bins, L, cfg := h.bins, h.cfg.LinFrames, &h.cfg
	alpha, hold, decay := cfg.ExpAlpha, int32(cfg.HoldFrames), cfg.Decay
	cur, exp, lin, long := h.trace(c, TraceCurrent), h.trace(c, TraceExp), h.trace(c, TraceLin), h.trace(c, TraceLong)
	peak, mins := h.trace(c, TracePeak), h.trace(c, TraceMin)
	base := c * bins
	linCount := float64(min(h.linN+n, L))
	longCount := float64(h.frames + uint64(n))
	for k := lo; k < hi; k++ {
		g := cfg.Gain2[k]
		e, pk, age, mn, sum, lsum := exp[k], peak[k], h.peakAge[base+k], mins[k], h.linSum[base+k], h.longSum[base+k]
		if h.frames == 0 { // the average starts at the first frame, not at zero
			e = pow[k] * g
		}
		var v float32
		j, m := 0, float32(0)
		if len(ents) > 0 && ents[0].carryIn != 0 {
			m = h.carry[base+k]
		}
		for f, si := range h.slot[:n] {
			v = pow[f*bins+k] * g
			e += alpha * (v - e)
			ring := h.ring[si*h.outC*bins+base:]
			sum += float64(v) - float64(ring[k])
			ring[k] = v
			lsum += float64(v)
			if v >= pk {
				pk, age = v, 0
			} else if age++; age > hold {
				pk = max(v, pk*decay)
			}
			mn = min(mn, v)
			for j < len(ents) && int(ents[j].b) <= f {
				m = h.emit(ents, j, m, c, k, cols, (j*colN+slot)*bins)
				j++
			}
			m = foldMax(m, v)
		}
		for ; j < len(ents); j++ {
			m = h.emit(ents, j, m, c, k, cols, (j*colN+slot)*bins)
		}
		cur[k], exp[k], peak[k], h.peakAge[base+k], mins[k] = v, e, pk, age, mn
		h.linSum[base+k], h.longSum[base+k] = sum, lsum
		lin[k] = float32(sum / linCount)
		long[k] = float32(lsum / longCount)
	}
	// the complete columns' maxima to dB, a row at a time
	for j, en := range ents {
		if en.carry == 0 {
			col := cols[(j*colN+slot)*bins:]
			for k := lo; k < hi; k++ {
				col[k] = PowerDB(col[k])
			}
		}
	}
}

// emit writes column entry j's maximum m of bin k of channel c (to its
// output column at cols[off:], or to the carry when the column stays
// open), and returns
// the next entry's starting value: the same maximum when it shows the same
// frame (grids with more columns than frames), else 0.
func (h *liveHost) emit(ents []colEntry, j int, m float32, c, k int, cols []float32, off int) float32 {
	if ents[j].carry != 0 {
		h.carry[c*h.bins+k] = m
	} else {
		cols[off+k] = m // to dB once the bin range is done (update)
	}
	if j+1 < len(ents) && ents[j+1].a == ents[j].a && ents[j+1].b == ents[j].b && ents[j].b > ents[j].a {
		return m
	}
	return 0
}

// bands averages output channel c's band mean squares over the batch's n
// frames of |X|² (pow: n×bins), as dsp.BandAccumulator.Frame and the
// exponential average do.
func (h *liveHost) bands(c int, pow []float32, n int) {
	nb := len(h.cfg.Bands)
	avg := h.bandPow[c*nb : (c+1)*nb]
	alpha := float64(h.cfg.ExpAlpha)
	for f := range n {
		row := pow[f*h.bins : (f+1)*h.bins]
		for i, b := range h.cfg.Bands {
			s := 0.0
			for j, k := range b.Bins {
				s += float64(row[k]) * b.Weights[j]
			}
			ms := s * h.cfg.BandNorm
			if h.frames == 0 && f == 0 {
				avg[i] = ms
			} else {
				avg[i] += alpha * (ms - avg[i])
			}
		}
	}
}

// ---- CPU engine

type cpuLive struct {
	e      *CPU
	cfg    LiveConfig
	sp     *cpuSpectrogram
	h      *liveHost
	cols   *columnPlan
	pow    []float32 // the batch's |X|², outC×n×bins
	splits int       // bin ranges per channel
	wg     sync.WaitGroup
	// the batch being run
	n    int
	out  *LiveOutput
	ents []colEntry
}

// NewLive implements Engine: the spectrogram on the engine's workers, then
// the post-processing split into bin ranges per channel (and the bands
// per channel) on the same workers.
func (e *CPU) NewLive(cfg LiveConfig) (LivePlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.clone()
	sp, err := e.NewSpectrogram(cfg.Spectrogram)
	if err != nil {
		return nil, err
	}
	bins := cfg.Spectrogram.Bins()
	p := &cpuLive{e: e, cfg: cfg, sp: sp.(*cpuSpectrogram), h: newLiveHost(cfg),
		pow: make([]float32, cfg.Spectrogram.DstLen(cfg.Spectrogram.MaxSamples))}
	if cfg.Grid != nil {
		p.cols = newColumnPlan(cfg.Grid, cfg.maxColumns())
	}
	// ranges of at least 2048 bins: smaller ones cost more to hand out
	// than they take
	p.splits = max(1, min(e.workers, bins/2048))
	return p, nil
}

func (p *cpuLive) Config() LiveConfig { return p.cfg }

func (p *cpuLive) Execute(out *LiveOutput, src []float32, firstFrame int64, traces bool) (int, error) {
	checkLiveOutput(&p.cfg, out)
	out.NumColumns = 0 // a batch without frames (or an error) completes none
	_, frames := p.cfg.Spectrogram.spectrogramCall(p.pow, src)
	if frames == 0 {
		return 0, nil
	}
	p.ents = nil
	if p.cols != nil {
		if err := p.cols.plan(firstFrame, frames); err != nil {
			return 0, err
		}
		p.ents = p.cols.entries
	}
	if _, err := p.sp.Execute(p.pow, src); err != nil {
		return 0, err
	}
	p.n, p.out = frames, out
	p.h.begin(frames)
	parts := p.h.outC * p.splits
	if len(p.cfg.Bands) > 0 {
		parts += p.h.outC
	}
	err := p.e.parallel(p, parts, &p.wg)
	p.out = nil
	if err != nil {
		return 0, err
	}
	p.h.end(frames)
	if p.cols != nil {
		p.cols.commit(firstFrame, frames)
		p.cols.output(out)
	}
	copy(out.Bands, p.h.bandPow)
	if traces {
		copy(out.Traces, p.h.tr)
	}
	return frames, nil
}

// run does parts [lo, hi): part i < outC·splits is channel i/splits's bin
// range i%splits; the rest are the channels' bands.
func (p *cpuLive) run(_, lo, hi int) {
	bins, n := p.h.bins, p.n
	for i := lo; i < hi; i++ {
		if i >= p.h.outC*p.splits {
			c := i - p.h.outC*p.splits
			p.h.bands(c, p.pow[c*n*bins:(c+1)*n*bins], n)
			continue
		}
		c, r := i/p.splits, i%p.splits
		ents, col0, colN := p.ents, p.out.col0, p.out.colN
		if c < col0 || c >= col0+colN {
			ents = nil
		}
		p.h.update(c, p.pow[c*n*bins:(c+1)*n*bins], n, r*bins/p.splits, (r+1)*bins/p.splits, ents, p.out.Columns, c-col0, colN)
	}
}

func (p *cpuLive) Close() error { return p.sp.Close() }

// checkLiveOutput panics unless out was made by cfg.NewOutput.
func checkLiveOutput(cfg *LiveConfig, out *LiveOutput) {
	bins, outC := cfg.Spectrogram.Bins(), cfg.Spectrogram.OutChannels()
	if out == nil || len(out.Traces) != outC*NumTraces*bins || len(out.Bands) != outC*len(cfg.Bands) ||
		(cfg.Grid != nil && (len(out.Columns) != cfg.maxColumns()*out.colN*bins || len(out.ColumnIDs) != cfg.maxColumns())) {
		panic("gpufft: live: the output is not this configuration's (NewOutput)")
	}
}
