package gpufft

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/window"
)

// plotGrid is plot's column rule (the one the images use) as a
// ColumnGrid.
type plotGrid struct{ columns, frames int }

func (g plotGrid) ColumnFrames(col int64) (int64, int64) {
	lo, hi := plot.ColumnFrames(int(col), g.columns, g.frames)
	return int64(lo), int64(hi)
}

func (g plotGrid) FrameColumns(f int64) (int64, int64) {
	first, last := plot.FrameColumns(int(f), g.columns, g.frames)
	return int64(first), int64(last)
}

// liveRef is the float64 reference of a live plan: the same arithmetic,
// frame by frame, on the |X|² rows a plain spectrogram plan of the same
// engine gives for the same samples.
type liveRef struct {
	cfg                                 LiveConfig
	bins, outC                          int
	cur, exp, lin, long, peak, min, sum [][]float64
	age                                 [][]int
	ring                                [][][]float64 // [c][frame][bin], the last LinFrames
	bands                               [][]float64
	frames                              int
	colMax                              map[int64][]float64 // column → outC×bins maximum of v
	decays                              int                 // times a held peak decayed
}

func newLiveRef(cfg LiveConfig) *liveRef {
	bins, outC := cfg.Spectrogram.Bins(), cfg.Spectrogram.OutChannels()
	r := &liveRef{cfg: cfg, bins: bins, outC: outC, colMax: map[int64][]float64{}}
	mk := func() [][]float64 {
		s := make([][]float64, outC)
		for c := range s {
			s[c] = make([]float64, bins)
		}
		return s
	}
	r.cur, r.exp, r.lin, r.long, r.peak, r.min, r.sum = mk(), mk(), mk(), mk(), mk(), mk(), mk()
	r.ring = make([][][]float64, outC)
	r.age = make([][]int, outC)
	r.bands = make([][]float64, outC)
	for c := range outC {
		r.age[c] = make([]int, bins)
		r.bands[c] = make([]float64, len(cfg.Bands))
		for k := range r.min[c] {
			r.min[c][k] = math.Inf(1)
		}
	}
	return r
}

// frame takes frame number f (timeline) of every channel: rows[c] is its |X|².
func (r *liveRef) frame(f int64, rows [][]float32) {
	cfg := &r.cfg
	alpha, decay := float64(cfg.ExpAlpha), float64(cfg.Decay)
	for c, row := range rows {
		v := make([]float64, r.bins)
		for k := range v {
			v[k] = float64(row[k]) * float64(cfg.Gain2[k])
			if r.frames == 0 {
				r.exp[c][k] = v[k]
			}
			r.exp[c][k] += alpha * (v[k] - r.exp[c][k])
			if v[k] >= r.peak[c][k] {
				r.peak[c][k], r.age[c][k] = v[k], 0
			} else if r.age[c][k]++; r.age[c][k] > cfg.HoldFrames {
				r.peak[c][k] = max(v[k], r.peak[c][k]*decay)
				r.decays++
			}
			r.min[c][k] = min(r.min[c][k], v[k])
			r.sum[c][k] += v[k]
			r.long[c][k] = r.sum[c][k] / float64(r.frames+1)
		}
		r.cur[c] = v
		r.ring[c] = append(r.ring[c], v)
		if len(r.ring[c]) > cfg.LinFrames {
			r.ring[c] = r.ring[c][1:]
		}
		for k := range v {
			s := 0.0
			for _, old := range r.ring[c] {
				s += old[k]
			}
			r.lin[c][k] = s / float64(len(r.ring[c]))
		}
		for i, b := range cfg.Bands {
			s := 0.0
			for j, k := range b.Bins {
				s += float64(row[k]) * b.Weights[j]
			}
			ms := s * cfg.BandNorm
			if r.frames == 0 {
				r.bands[c][i] = ms
			} else {
				r.bands[c][i] += alpha * (ms - r.bands[c][i])
			}
		}
		if cfg.Grid != nil {
			first, last := cfg.Grid.FrameColumns(f)
			for col := first; col <= last; col++ {
				m := r.colMax[col]
				if m == nil {
					m = make([]float64, r.outC*r.bins)
					r.colMax[col] = m
				}
				for k := range v {
					m[c*r.bins+k] = max(m[c*r.bins+k], v[k])
				}
			}
		}
	}
	r.frames++
}

// relClose checks got against want with relative tolerance tol (and an
// absolute floor for values near zero).
func relClose(t *testing.T, what string, got float64, want float64, tol float64) bool {
	t.Helper()
	if d := math.Abs(got - want); d > tol*math.Abs(want)+1e-30 || math.IsNaN(got) {
		t.Errorf("%s = %g, want %g (relative error %.2g > %.2g)", what, got, want, d/math.Abs(want), tol)
		return false
	}
	return true
}

type liveCase struct {
	name               string
	size, hop, batches int
	grid               func(total int) ColumnGrid
	maxCols            int
	gaps               bool
	colChannel         int
}

func liveCases() []liveCase {
	return []liveCase{
		{name: "fixed3", size: 512, hop: 128, batches: 60, grid: func(int) ColumnGrid { return FixedColumns{Frames: 3} }},
		{name: "fold", size: 1024, hop: 256, batches: 50, gaps: true,
			grid: func(total int) ColumnGrid { return plotGrid{37, total} }},
		{name: "nearest", size: 256, hop: 256, batches: 40, maxCols: 64,
			grid: func(total int) ColumnGrid { return plotGrid{3 * total, total} }},
		{name: "nogrid", size: 2048, hop: 1024, batches: 20},
		{name: "onechannel", size: 512, hop: 64, batches: 40, gaps: true, colChannel: 2,
			grid: func(total int) ColumnGrid { return plotGrid{50, total} }},
	}
}

// TestLiveMatchesReference: on both engines, every trace (latest,
// exponential, linear and long-term averages, peak hold with hold time
// and decay, min hold), the RTA band averages and the folded columns equal
// a float64 reference computed from the same frames, over batches of
// random size, with gaps in the timeline. Tolerances: the traces are
// float32 state updated once per frame, so each frame adds at most one
// rounding (6e-8 relative) to the exponential average (the error stays
// below 6e-8/α = 1.2e-6 at α = 0.05) and to the decaying peak (≤ 300
// frames: 1.8e-5); the relative 4e-5 covers both. Sums are float64 on
// both sides (the linear and long-term averages differ by their final
// float32 rounding only: 1e-6), and so are the bands (1e-9: summation
// order, and the GPU's weights carried as float32 pairs, 2^-48). Columns
// are dB of the float32 maximum: 1e-4 dB covers log10f's float32
// precision at −200…+20 dB.
func TestLiveMatchesReference(t *testing.T) {
	for _, e := range engines(t) {
		for _, lc := range liveCases() {
			t.Run(e.Name()+"/"+lc.name, func(t *testing.T) { testLive(t, e, lc, 1e-9) })
		}
	}
}

// TestLiveFloatSums: post.cl's path for devices without fp64 (float band
// sums, compensated float running sums), forced with PRISM_FLOAT_SUMS on
// a device that has fp64, meets the same float64 reference: the traces
// within the same tolerances as the double path (the compensated sums
// err by a few float roundings of the current sum), the band averages
// within 1e-5 (a float sum over a band's bins, then a float exponential
// average: 6e-8·(bins + 1/α)).
func TestLiveFloatSums(t *testing.T) {
	requireGPU(t)
	t.Setenv("PRISM_OPENCL_TUNE", "PRISM_FLOAT_SUMS")
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, lc := range liveCases() {
		t.Run(lc.name, func(t *testing.T) { testLive(t, e, lc, 1e-5) })
	}
}

// liveSignal is a signal per channel: a tone and noise of a level that
// changes (so peaks are held, then decay).
func liveSignal(channels, samples int, rng *rand.Rand) [][]float32 {
	sig := make([][]float32, channels)
	for c := range sig {
		sig[c] = make([]float32, samples)
		for i := range sig[c] {
			lvl := math.Pow(10, -3*math.Abs(math.Sin(float64(i)/3000)))
			sig[c][i] = float32(lvl * (0.5*math.Sin(float64(i)*0.05*float64(c+1)) + 0.1*rng.NormFloat64()))
		}
	}
	return sig
}

type liveBatch struct {
	f0 int64
	n  int
}

// liveTestConfig is a live plan's configuration for the test: gains that
// vary by bin, bands of growing width with random weights.
func liveTestConfig(scfg SpectrogramConfig, lc liveCase, rng *rand.Rand) LiveConfig {
	bins := scfg.Bins()
	cfg := LiveConfig{Spectrogram: scfg, Gain2: make([]float32, bins), ExpAlpha: 0.05, LinFrames: 7, HoldFrames: 5,
		Decay: 0.8, BandNorm: 1.0 / 3, MaxColumns: lc.maxCols, ColumnChannel: lc.colChannel}
	for k := range cfg.Gain2 {
		cfg.Gain2[k] = float32(1 + 0.5*math.Sin(float64(k)))
	}
	for lo := 1; lo < bins-8; lo += 1 + lo/2 {
		var b BandWeights
		for k := lo; k < min(bins, lo+1+lo/2); k++ {
			b.Bins = append(b.Bins, int32(k))
			b.Weights = append(b.Weights, 0.25+rng.Float64())
		}
		cfg.Bands = append(cfg.Bands, b)
	}
	return cfg
}

// testLive runs lc on e against the float64 reference; bandTol is the
// band averages' relative tolerance.
func testLive(t *testing.T, e Engine, lc liveCase, bandTol float64) {
	const outC = 3
	rng := rand.New(rand.NewPCG(7, uint64(lc.size)))
	maxF := 9
	scfg := SpectrogramConfig{Size: lc.size, Hop: lc.hop, Window: window.Func{Kind: window.Hann}, Channels: outC,
		MaxSamples: lc.size + (maxF-1)*lc.hop, Output: Power}
	bins := scfg.Bins()
	// batch sizes and gaps first: the grid needs the total
	var bs []liveBatch
	f := int64(0)
	for range lc.batches {
		if lc.gaps && rng.IntN(6) == 0 {
			f += int64(1 + rng.IntN(5))
		}
		n := 1 + rng.IntN(maxF)
		bs = append(bs, liveBatch{f, n})
		f += int64(n)
	}
	total := int(f)
	cfg := liveTestConfig(scfg, lc, rng)
	if lc.grid != nil {
		cfg.Grid = lc.grid(total)
	}
	plan, err := e.NewLive(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	spec, err := e.NewSpectrogram(scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer spec.Close()
	sig := liveSignal(outC, total*lc.hop+lc.size, rng)
	out := cfg.NewOutput()
	ref := newLiveRef(cfg)
	pow := make([]float32, scfg.DstLen(scfg.MaxSamples))
	emitted := map[int64]bool{}
	for bi, b := range bs {
		samples := lc.size + (b.n-1)*lc.hop
		src := make([]float32, outC*samples)
		for c := range outC {
			copy(src[c*samples:(c+1)*samples], sig[c][int(b.f0)*lc.hop:])
		}
		if _, err := spec.Execute(pow, src); err != nil {
			t.Fatal(err)
		}
		for i := range b.n {
			rows := make([][]float32, outC)
			for c := range outC {
				rows[c] = pow[(c*b.n+i)*bins : (c*b.n+i+1)*bins]
			}
			ref.frame(b.f0+int64(i), rows)
		}
		traces := bi%3 == 0 || bi == len(bs)-1
		n, err := plan.Execute(out, src, b.f0, traces)
		if err != nil || n != b.n {
			t.Fatalf("batch %d: %d frames, %v (want %d)", bi, n, err, b.n)
		}
		checkLiveBatch(t, ref, out, traces, emitted, bi, bandTol)
		if t.Failed() {
			return
		}
	}
	if ref.decays < bins {
		t.Errorf("held peaks decayed only %d times: the test does not exercise the decay", ref.decays)
	}
	// every column with a frame in it was output once, but the one still open
	if cfg.Grid != nil {
		_, open := cfg.Grid.FrameColumns(int64(total) - 1)
		for col := range ref.colMax {
			if lo, hi := cfg.Grid.ColumnFrames(col); !emitted[col] && !(col == open && hi > int64(total)) {
				t.Errorf("column %d (frames %d…%d) never output", col, lo, hi-1)
			}
		}
	}
}

func checkLiveBatch(t *testing.T, ref *liveRef, out *LiveOutput, traces bool, emitted map[int64]bool, bi int, bandTol float64) {
	t.Helper()
	bins, outC := ref.bins, ref.outC
	for c := range outC {
		for i := range ref.cfg.Bands {
			relClose(t, fmt.Sprintf("batch %d ch %d band %d", bi, c, i), out.Bands[c*len(ref.cfg.Bands)+i], ref.bands[c][i], bandTol)
		}
	}
	if traces {
		want := [NumTraces][][]float64{ref.cur, ref.exp, ref.lin, ref.long, ref.peak, ref.min}
		tols := [NumTraces]float64{1e-6, 4e-5, 1e-6, 1e-6, 4e-5, 1e-6}
		names := [NumTraces]string{"current", "exp", "lin", "long", "peak", "min"}
	check:
		for c := range outC {
			for tr := range NumTraces {
				for k := range bins {
					got := float64(out.Traces[(c*NumTraces+tr)*bins+k])
					if !relClose(t, fmt.Sprintf("batch %d ch %d %s bin %d", bi, c, names[tr], k), got, want[tr][c][k], tols[tr]) {
						break check
					}
				}
			}
		}
	}
	for j := range out.NumColumns {
		id := out.ColumnIDs[j]
		if emitted[id] {
			t.Fatalf("batch %d: column %d output twice", bi, id)
		}
		emitted[id] = true
		m := ref.colMax[id]
		if m == nil {
			t.Fatalf("batch %d: column %d has no frames", bi, id)
		}
		for c := range outC {
			if ch := ref.cfg.ColumnChannel; ch > 0 && c != ch-1 {
				continue
			}
			col := out.Column(j, c)
			for k := range bins {
				want := -200.0
				if v := m[c*bins+k]; v > 1e-20 {
					want = 10 * math.Log10(v)
				}
				if got := float64(col[k]); math.Abs(got-want) > 1e-4 {
					t.Fatalf("batch %d: column %d ch %d bin %d = %.6f dB, want %.6f", bi, id, c, k, got, want)
				}
			}
		}
	}
}

// TestLiveNoAllocs: a live plan's Execute allocates nothing in steady
// state, on both engines, with traces, bands and columns.
func TestLiveNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	for _, e := range engines(t) {
		t.Run(e.Name(), func(t *testing.T) {
			scfg := SpectrogramConfig{Size: 1024, Hop: 256, Window: window.Func{Kind: window.Hann}, Channels: 2, MaxSamples: 1024 + 7*256, Output: Power}
			cfg := LiveConfig{Spectrogram: scfg, Gain2: make([]float32, scfg.Bins()), ExpAlpha: 0.1, LinFrames: 4, Decay: 0.9,
				Bands: []BandWeights{{Bins: []int32{3, 4}, Weights: []float64{0.5, 1}}}, BandNorm: 1, Grid: FixedColumns{Frames: 2}}
			plan, err := e.NewLive(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			out := cfg.NewOutput()
			src := make([]float32, 2*scfg.MaxSamples)
			for i := range src {
				src[i] = float32(math.Sin(float64(i)))
			}
			f := int64(0)
			run := func() {
				n, err := plan.Execute(out, src, f, true)
				if err != nil {
					t.Fatal(err)
				}
				f += int64(n)
			}
			run()
			if n := testing.AllocsPerRun(20, run); n != 0 {
				t.Fatalf("Execute: %v allocs per call, want 0", n)
			}
		})
	}
}

// TestLiveInvalid: bad configurations are refused with ErrInvalid.
func TestLiveInvalid(t *testing.T) {
	scfg := SpectrogramConfig{Size: 256, Hop: 64, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 512, Output: Power}
	good := LiveConfig{Spectrogram: scfg, Gain2: make([]float32, 129), ExpAlpha: 1, LinFrames: 1, Decay: 1}
	for name, mod := range map[string]func(*LiveConfig){
		"dbfs":      func(c *LiveConfig) { c.Spectrogram.Output = DBFS },
		"mix":       func(c *LiveConfig) { c.Spectrogram.Mix = true },
		"gain2":     func(c *LiveConfig) { c.Gain2 = c.Gain2[:3] },
		"alpha":     func(c *LiveConfig) { c.ExpAlpha = 0 },
		"lin":       func(c *LiveConfig) { c.LinFrames = 0 },
		"decay":     func(c *LiveConfig) { c.Decay = 1.5 },
		"hold":      func(c *LiveConfig) { c.HoldFrames = -1 },
		"band bin":  func(c *LiveConfig) { c.Bands = []BandWeights{{Bins: []int32{129}, Weights: []float64{1}}} },
		"band len":  func(c *LiveConfig) { c.Bands = []BandWeights{{Bins: []int32{1}}} },
		"nan gain2": func(c *LiveConfig) { c.Gain2 = append(make([]float32, 128), float32(math.NaN())) },
		"column ch": func(c *LiveConfig) { c.ColumnChannel = 2 },
	} {
		cfg := good
		mod(&cfg)
		for _, e := range engines(t) {
			if _, err := e.NewLive(cfg); err == nil || !isInvalid(err) {
				t.Errorf("%s/%s: err = %v, want ErrInvalid", e.Name(), name, err)
			}
		}
	}
}

func isInvalid(err error) bool { return errors.Is(err, ErrInvalid) }

// BenchmarkLive times one live batch as the 192 kHz × 8 stress setting
// runs it: 9 output channels (8 and the mix), N=65536, hop 16, 120 frames
// (10 ms of input), with traces and a column; frames/s is per channel.
func BenchmarkLive(b *testing.B) {
	const size, hop, outC, frames = 65536, 16, 9, 120
	for _, e := range benchEngines(b) {
		b.Run(fmt.Sprintf("%s/size=%d/hop=%d/channels=%d/frames=%d", e.Name(), size, hop, outC, frames), func(b *testing.B) {
			scfg := SpectrogramConfig{Size: size, Hop: hop, Window: window.Func{Kind: window.Hann}, Channels: outC,
				MaxSamples: size + (frames-1)*hop, Output: Power}
			cfg := LiveConfig{Spectrogram: scfg, Gain2: make([]float32, scfg.Bins()), ExpAlpha: 0.01, LinFrames: 8,
				HoldFrames: 1000, Decay: 0.999, Grid: FixedColumns{Frames: 6}}
			plan, err := e.NewLive(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer plan.Close()
			out := cfg.NewOutput()
			src := make([]float32, outC*scfg.MaxSamples)
			for i := range src {
				src[i] = float32(math.Sin(float64(i) * 0.01))
			}
			f := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := plan.Execute(out, src, f, true); err != nil {
					b.Fatal(err)
				}
				f += frames
			}
			b.ReportMetric(float64(b.N*frames)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}
