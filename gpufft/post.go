package gpufft

import (
	"fmt"
	"math"
	"slices"
)

// A live plan (Engine.NewLive) is the real-time analyzer's engine side:
// each batch's spectrogram, then, on the engine and without a round trip,
// per output channel and bin, frame by frame in order:
//
//	v        = |X_k|² · Gain2[k]            (the power every trace holds)
//	current  = v
//	exp      = exp + ExpAlpha·(v − exp)      (starts at the first frame)
//	lin      = Σ of the last LinFrames v / their count (ring + running sum)
//	long     = Σ v / frames since the plan was made (long-term average)
//	peak     = v if v ≥ peak, else after HoldFrames frames max(v, peak·Decay)
//	min      = min(min, v)
//
// the RTA's band mean squares ms_b = BandNorm·Σ_k Weights·|X_k|² of each
// frame, averaged like exp in float64 (dsp.BandAccumulator's arithmetic,
// with its weights), and the waterfall's columns: the per-bin maximum of v
// over each column's frames (Grid), returned in dBFS (PowerDB's rule) as
// soon as a column's last frame is in. Only what is displayed or recorded
// crosses back: the complete columns and the band levels every batch, the
// traces when asked.

// Trace numbers: LiveOutput.Traces holds, per output channel, these
// traces of Bins powers each, in this order.
const (
	TraceCurrent = iota
	TraceExp
	TraceLin
	TraceLong
	TracePeak
	TraceMin
	NumTraces
)

// BandWeights is one RTA band: the bins whose |X|² it sums, each times its
// weight (dsp.BandAccumulator's shares: overlap fraction, one-sided factor
// and frequency weighting).
type BandWeights struct {
	Bins    []int32
	Weights []float64
}

// ColumnGrid maps a stream's frames (numbered from 0 in the timeline, lost
// frames included) to waterfall columns. ColumnFrames returns the frames
// [lo, hi) column col shows (non-decreasing in col, hi > lo);
// FrameColumns the columns [first, last] whose ranges hold frame f.
// Callers pass their one column rule (plot.ColumnFrames) through it.
type ColumnGrid interface {
	ColumnFrames(col int64) (lo, hi int64)
	FrameColumns(f int64) (first, last int64)
}

// LiveConfig describes a live plan.
type LiveConfig struct {
	// Spectrogram is each batch's transform: Output must be Power and Mix
	// false (a mix is one more input channel the caller forms); its
	// Channels are the output channels.
	Spectrogram SpectrogramConfig
	Gain2       []float32 // Bins factors ≥ 0: |X|²·Gain2 is what the traces and columns hold
	ExpAlpha    float32   // exponential average weight of each new frame, (0, 1]
	LinFrames   int       // frames in the linear average, 1…4096
	HoldFrames  int       // frames a peak is held before it decays, ≥ 0
	Decay       float32   // peak factor per frame once the hold is over, (0, 1]
	Bands       []BandWeights
	BandNorm    float64    // factor of every band sum (|X|² → mean square)
	Grid        ColumnGrid // nil: no columns
	// ColumnChannel limits the columns to output channel ColumnChannel−1
	// (a recorder of one channel); 0: every output channel's.
	ColumnChannel int
	// MaxColumns is the most columns one Execute may complete (0: the
	// most frames of a batch, plus one).
	MaxColumns int
}

// MaxFrames is the most frames per channel one Execute takes.
func (c LiveConfig) MaxFrames() int { return c.Spectrogram.Frames(c.Spectrogram.MaxSamples) }

func (c LiveConfig) maxColumns() int {
	if c.MaxColumns > 0 {
		return c.MaxColumns
	}
	return c.MaxFrames() + 1
}

func (c LiveConfig) check() error {
	s := c.Spectrogram
	if err := s.check(); err != nil {
		return err
	}
	bins, outCh := s.Bins(), s.OutChannels()
	switch {
	case s.Output != Power || s.Mix:
		return fmt.Errorf("%w: a live plan takes Power output without Mix", ErrInvalid)
	case len(c.Gain2) != bins:
		return fmt.Errorf("%w: live Gain2 needs %d values, has %d", ErrInvalid, bins, len(c.Gain2))
	case !(c.ExpAlpha > 0 && c.ExpAlpha <= 1):
		return fmt.Errorf("%w: live ExpAlpha %v (want 0 < α ≤ 1)", ErrInvalid, c.ExpAlpha)
	case c.LinFrames < 1 || c.LinFrames > 4096:
		return fmt.Errorf("%w: live LinFrames %d (want 1…4096)", ErrInvalid, c.LinFrames)
	case c.HoldFrames < 0 || c.HoldFrames > math.MaxInt32:
		return fmt.Errorf("%w: live HoldFrames %d", ErrInvalid, c.HoldFrames)
	case !(c.Decay > 0 && c.Decay <= 1):
		return fmt.Errorf("%w: live Decay %v (want 0 < d ≤ 1)", ErrInvalid, c.Decay)
	case c.ColumnChannel < 0 || c.ColumnChannel > outCh:
		return fmt.Errorf("%w: live ColumnChannel %d (want 0…%d)", ErrInvalid, c.ColumnChannel, outCh)
	case c.MaxColumns < 0 || c.maxColumns() > 1<<16:
		return fmt.Errorf("%w: live MaxColumns %d (want 0…65536)", ErrInvalid, c.MaxColumns)
	case !(c.BandNorm >= 0) || math.IsInf(c.BandNorm, 0):
		return fmt.Errorf("%w: live BandNorm %v", ErrInvalid, c.BandNorm)
	case int64(c.LinFrames)*int64(outCh)*int64(bins) > math.MaxInt32:
		return fmt.Errorf("%w: live linear average of %d frames × %d channels × %d bins is too large", ErrInvalid, c.LinFrames, outCh, bins)
	case int64(c.maxColumns())*int64(outCh)*int64(bins) > math.MaxInt32:
		return fmt.Errorf("%w: live columns of %d channels × %d bins are too large", ErrInvalid, outCh, bins)
	}
	for k, g := range c.Gain2 {
		if !(g >= 0) || math.IsInf(float64(g), 0) {
			return fmt.Errorf("%w: live Gain2[%d] = %v", ErrInvalid, k, g)
		}
	}
	for i, b := range c.Bands {
		if len(b.Bins) != len(b.Weights) {
			return fmt.Errorf("%w: live band %d has %d bins and %d weights", ErrInvalid, i, len(b.Bins), len(b.Weights))
		}
		for j, k := range b.Bins {
			if k < 0 || int(k) >= bins || !(b.Weights[j] >= 0) || math.IsInf(b.Weights[j], 0) {
				return fmt.Errorf("%w: live band %d: bin %d weight %v (want a bin in 0…%d, weight ≥ 0)", ErrInvalid, i, k, b.Weights[j], bins-1)
			}
		}
	}
	return nil
}

// clone copies the caller's slices: plans are immutable.
func (c LiveConfig) clone() LiveConfig {
	c.Spectrogram.BinGain = slices.Clone(c.Spectrogram.BinGain)
	c.Gain2 = slices.Clone(c.Gain2)
	bands := make([]BandWeights, len(c.Bands))
	for i, b := range c.Bands {
		bands[i] = BandWeights{Bins: slices.Clone(b.Bins), Weights: slices.Clone(b.Weights)}
	}
	c.Bands = bands
	return c
}

// LiveOutput is what a live plan's Execute returns: caller-owned buffers
// sized once by NewOutput.
type LiveOutput struct {
	// Traces, when Execute was asked for them: output channel c's trace t
	// (TraceCurrent…TraceMin) is Traces[(c·NumTraces+t)·Bins:][:Bins],
	// powers relative to a full-scale sine (Gain2 applied).
	Traces []float32
	// Bands: output channel c's averaged mean square of band b is
	// Bands[c·len(cfg.Bands)+b] (float64, as dsp.BandAccumulator keeps it).
	Bands []float64
	// Columns: the NumColumns columns the batch completed, in order;
	// the j-th is column ColumnIDs[j] of the grid, and its output channel
	// c is Column(j, c), dBFS. After a gap the numbers skip the columns
	// whose frames were all lost; a column left open by the gap is output
	// with the frames it had.
	Columns    []float32
	ColumnIDs  []int64
	NumColumns int
	bins       int
	col0, colN int // the output channels with columns: col0…col0+colN−1
}

// Column is output channel c's spectrum in the j-th column completed
// (Bins values, dBFS). It panics unless j < NumColumns and c has columns
// (every channel, or ColumnChannel's).
func (o *LiveOutput) Column(j, c int) []float32 {
	if j < 0 || j >= o.NumColumns || c < o.col0 || c >= o.col0+o.colN {
		panic(fmt.Sprintf("gpufft: live: column %d of channel %d is not in the output", j, c))
	}
	i := j*o.colN + c - o.col0
	return o.Columns[i*o.bins : (i+1)*o.bins]
}

// columnChannels is the first output channel with columns and their count.
func (c LiveConfig) columnChannels() (first, n int) {
	if c.ColumnChannel > 0 {
		return c.ColumnChannel - 1, 1
	}
	return 0, c.Spectrogram.OutChannels()
}

// NewOutput allocates the buffers of a LiveOutput for plans of c.
func (c LiveConfig) NewOutput() *LiveOutput {
	bins, outCh := c.Spectrogram.Bins(), c.Spectrogram.OutChannels()
	o := &LiveOutput{Traces: make([]float32, outCh*NumTraces*bins), Bands: make([]float64, outCh*len(c.Bands)), bins: bins}
	o.col0, o.colN = c.columnChannels()
	if c.Grid != nil {
		o.Columns = make([]float32, c.maxColumns()*o.colN*bins)
		o.ColumnIDs = make([]int64, c.maxColumns())
	}
	return o
}

// LivePlan runs a LiveConfig. Only one goroutine may use it at a time.
type LivePlan interface {
	Config() LiveConfig
	// Execute analyzes src as SpectrogramPlan.Execute does, its frames
	// numbered firstFrame… in the stream's timeline (strictly after the
	// last call's; a jump is a gap of lost frames), runs them through the
	// state in order, and writes the bands, the columns completed and,
	// with traces, the traces into out. It returns the frame count. It
	// does not allocate; it panics on the lengths SpectrogramPlan.Execute
	// panics on, or an out not made by NewOutput for this configuration.
	// A batch that would complete more than MaxColumns columns is an
	// error wrapping ErrInvalid (nothing is analyzed).
	Execute(out *LiveOutput, src []float32, firstFrame int64, traces bool) (frames int, err error)
	Close() error
}

// colEntry is one column a batch touches: frames [a, b) of the batch go
// into it; carryIn: it started in an earlier batch (its maximum so far is
// the carry); last: it is not complete and becomes the carry.
type colEntry struct {
	a, b           int32
	carryIn, carry int32
}

// columnPlan is the host side of the column fold, the same for both
// engines: which columns a batch touches, and the one carried over.
type columnPlan struct {
	grid     ColumnGrid
	max      int
	carryCol int64 // column held open across batches, −1: none
	next     int64 // the first frame not yet seen
	entries  []colEntry
	ids      []int64 // each entry's column
	complete int     // entries[:complete] are output; a carry entry follows
}

func newColumnPlan(grid ColumnGrid, maxCols int) *columnPlan {
	return &columnPlan{grid: grid, max: maxCols, carryCol: -1, entries: make([]colEntry, 0, maxCols+1), ids: make([]int64, 0, maxCols+1)}
}

// plan lays out the columns of frames [f0, f0+n). A column left open by an
// earlier batch that this batch does not continue (a gap) is closed first,
// with what it has.
func (p *columnPlan) plan(f0 int64, n int) error {
	if f0 < p.next {
		panic(fmt.Sprintf("gpufft: live: frame %d repeats frames before %d", f0, p.next))
	}
	p.entries, p.ids, p.complete = p.entries[:0], p.ids[:0], 0
	c0, _ := p.grid.FrameColumns(f0)
	_, c1 := p.grid.FrameColumns(f0 + int64(n) - 1)
	if p.carryCol >= 0 && p.carryCol < c0 {
		p.entries, p.ids = append(p.entries, colEntry{carryIn: 1}), append(p.ids, p.carryCol)
		p.complete++
	}
	for c := c0; c <= c1; c++ {
		lo, hi := p.grid.ColumnFrames(c)
		e := colEntry{a: int32(max(lo, f0) - f0), b: int32(min(hi, f0+int64(n)) - f0)}
		if e.b <= e.a {
			continue // a grid that named a column without these frames
		}
		if c == p.carryCol {
			e.carryIn = 1
		}
		if hi > f0+int64(n) {
			e.carry = 1
		}
		if len(p.entries) >= p.max+1 || (e.carry == 0 && p.complete >= p.max) {
			return fmt.Errorf("%w: live: frames %d…%d complete more than %d columns", ErrInvalid, f0, f0+int64(n)-1, p.max)
		}
		p.entries, p.ids = append(p.entries, e), append(p.ids, c)
		if e.carry == 0 {
			p.complete++
		}
	}
	return nil
}

// commit records the batch as done.
func (p *columnPlan) commit(f0 int64, n int) {
	p.next = f0 + int64(n)
	p.carryCol = -1
	if l := len(p.entries); l > 0 && p.entries[l-1].carry != 0 {
		p.carryCol = p.ids[l-1]
	}
}

// output copies the complete columns' numbers into out.
func (p *columnPlan) output(out *LiveOutput) {
	out.NumColumns = p.complete
	copy(out.ColumnIDs, p.ids[:p.complete])
}

// FixedColumns is the grid of Frames frames per column (column c shows
// frames [c·Frames, (c+1)·Frames)): plot.ColumnFrames's rule for a stream
// of any length whose frames are Frames times its columns.
type FixedColumns struct{ Frames int64 }

func (g FixedColumns) ColumnFrames(col int64) (lo, hi int64) {
	return col * g.Frames, (col + 1) * g.Frames
}
func (g FixedColumns) FrameColumns(f int64) (first, last int64) {
	return f / g.Frames, f / g.Frames
}
