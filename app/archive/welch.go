package archive

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// welchConfig is what both analyses ask of the Welch averager.
type welchConfig struct {
	average time.Duration
	fft     int
	window  window.Func
	channel int
	cal     Calibration
	// from, to limit the bins computed to [from, to) (zero: no limit)
	from, to time.Time
}

// welch accumulates Welch power averages of one time bin: frames of fft
// samples, fft/2 apart, windowed and transformed by the engine's plan,
// which also sums their powers per bin (gpufft.PowerSum: only Bins values
// leave the engine per Execute); the Executes' sums are added in float64.
// The plan reads the samples where the read-ahead put them (prefetch.next).
type welch struct {
	plan    gpufft.SpectrogramPlan
	fft     int
	hop     int
	max     int       // the plan's MaxSamples
	pow     []float32 // the plan's output: one Execute's Σ|X_k|²
	sum     []float64 // Σ|X_k|² over the bin's frames
	frames  int64
	samples int64
	scale   []float64 // per bin: c_k·10^(offset/10)/(rate·Σw²)
	psd     []float64
	// the read-ahead's buffers, made on the first run that needs them
	// and used by every run (pinned memory where the plan has it)
	bufs   [][]float32
	bufs16 [][]int16
}

// buffers returns w's read-ahead buffers of T (blocks of a frame's
// headroom and prefetchSamples), making them on first use: for int16 in
// the plan's pinned memory where it has it (gpufft.Int16Stager; ordinary
// memory if that fails, which is slower, not wrong), else in ordinary
// memory.
func buffers[T sample](w *welch, have *[][]T) [][]T {
	if *have != nil {
		return *have
	}
	n := w.fft + prefetchSamples
	st, _ := w.plan.(gpufft.Int16Stager)
	for range prefetchBlocks {
		var b []T
		if p16, ok := any(&b).(*[]int16); ok && st != nil {
			*p16, _ = st.Int16Buffer(n)
		}
		if b == nil {
			b = make([]T, n)
		}
		*have = append(*have, b)
	}
	return *have
}

func newWelch(e gpufft.Engine, wc welchConfig, rate float64) (*welch, error) {
	if err := gpufft.CheckSize(wc.fft); err != nil {
		return nil, fmt.Errorf("archive: FFT: %w", err)
	}
	if err := wc.cal.Check(); err != nil {
		return nil, err
	}
	cfg := gpufft.SpectrogramConfig{Size: wc.fft, Hop: wc.fft / 2, Window: wc.window, Channels: 1,
		MaxSamples: prefetchSamples + wc.fft, Output: gpufft.PowerSum} // a read-ahead block and what the block before left
	plan, err := e.NewSpectrogram(cfg)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	bins := cfg.Bins()
	w := &welch{plan: plan, fft: wc.fft, hop: cfg.Hop, max: cfg.MaxSamples,
		pow: make([]float32, cfg.DstLen(cfg.MaxSamples)), sum: make([]float64, bins),
		scale: make([]float64, bins), psd: make([]float64, bins)}
	sumSq := 0.0
	for _, v := range wc.window.Values(wc.fft) {
		sumSq += v * v
	}
	for k := range w.scale {
		c := 2.0
		if k == 0 || k == bins-1 {
			c = 1
		}
		w.scale[k] = c * math.Pow(10, wc.cal.OffsetDB(float64(k)*rate/float64(wc.fft))/10) / (rate * sumSq)
	}
	return w, nil
}

func (w *welch) Close() error { return w.plan.Close() }

// segment reads count samples of rr into w's bin: the frames that lie
// wholly inside them, transformed by exec (the plan's Execute, or its
// ExecuteInt16 for int16 samples; a tail shorter than a frame is read and
// dropped). rr's blocks need fft samples of headroom.
func segment[T sample](ctx context.Context, w *welch, rr *prefetch[T], count int64, exec func([]float32, []T) (int, error)) error {
	w.samples += count
	var pend []T // the bin's samples not yet consumed by a frame
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if count > 0 {
			region, added, err := rr.next(pend, int(min(count, int64(w.max-len(pend)))))
			pend = region
			count -= int64(added)
			if err != nil && count > 0 {
				return endedEarly(err, count)
			}
		}
		if len(pend) < w.fft {
			if count == 0 {
				return nil
			}
			continue
		}
		frames, err := exec(w.pow, pend)
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		w.add(frames)
		pend = pend[frames*w.hop:]
		if count == 0 && len(pend) < w.fft {
			return nil
		}
	}
}

// add adds an Execute's sum of the powers of frames frames into the bin.
func (w *welch) add(frames int) {
	for k, p := range w.pow[:len(w.sum)] {
		w.sum[k] += float64(p)
	}
	w.frames += int64(frames)
}

// take returns the bin's calibrated one-sided power spectral density (FS²
// or pressure² per Hz; valid until the next take) and the seconds of audio
// it read, and starts the next bin. ok is false for a bin without a whole
// frame.
func (w *welch) take(rate float64) (psd []float64, secs float64, ok bool) {
	ok = w.frames > 0
	for k, s := range w.sum {
		w.psd[k] = s * w.scale[k] / float64(max(w.frames, 1))
		w.sum[k] = 0
	}
	secs = float64(w.samples) / rate
	w.frames, w.samples = 0, 0
	return w.psd, secs, ok
}

// welchBins runs the Welch averager over files (sorted by start) and calls
// emit for each time bin, in time order, that holds at least one whole
// frame: bin k covers [k·average, (k+1)·average) since the Unix epoch, UTC.
// A run of 16-bit files of one channel is read as int16 where the plan
// takes them (gpufft.Int16Executor), with the same results.
func welchBins(ctx context.Context, e gpufft.Engine, files []File, wc welchConfig, emit func(bin int64, secs float64, psd []float64) error) error {
	rate := files[0].Rate
	w, err := newWelch(e, wc, rate)
	if err != nil {
		return err
	}
	defer w.Close()
	bs := binState{avg: int64(wc.average), open: math.MinInt64, first: math.MinInt64, last: math.MaxInt64}
	bs.flush = func() error {
		psd, secs, ok := w.take(rate)
		if !ok || bs.open == math.MinInt64 {
			return nil
		}
		return emit(bs.open, secs, psd)
	}
	if !wc.from.IsZero() {
		bs.first = floorDiv(wc.from.UnixNano(), bs.avg)
	}
	if !wc.to.IsZero() {
		bs.last = floorDiv(wc.to.UnixNano()-1, bs.avg)
	}
	plan16, _ := w.plan.(gpufft.Int16Executor)
	for _, r := range runsOf(within(files, wc.from, wc.to)) {
		var err error
		if plan16 != nil && r.int16Run() {
			err = runBins(ctx, w, &bs, r, startPrefetch(r, wc.channel, wc.fft, buffers(w, &w.bufs16)), plan16.ExecuteInt16)
		} else {
			err = runBins(ctx, w, &bs, r, startPrefetch(r, wc.channel, wc.fft, buffers(w, &w.bufs)), w.plan.Execute)
		}
		if err != nil {
			return err
		}
	}
	return bs.flush()
}

// binState is where welchBins stands: the bin being summed (open) and the
// bins asked for.
type binState struct {
	avg         int64 // the bin length, ns
	open        int64 // the bin being summed (math.MinInt64: none yet)
	first, last int64 // the bins asked for
	flush       func() error
}

// runBins reads run r from rr (which it closes) into the bins, calling
// bs.flush as each bin is done.
func runBins[T sample](ctx context.Context, w *welch, bs *binState, r run, rr *prefetch[T], exec func([]float32, []T) (int, error)) error {
	defer rr.close()
	ns := r.start.UnixNano()
	k := floorDiv(ns, bs.avg)
	phase := float64(ns - k*bs.avg) // ns into bin k
	for pos := int64(0); pos < r.frames && k <= bs.last; k++ {
		// the first sample at or after the start of bin k+1
		next := int64(math.Ceil((float64(bs.avg)-phase)*r.rate/1e9 - 1e-6))
		end := min(max(next, pos), r.frames)
		var err error
		switch {
		case k < bs.first:
			err = rr.skip(end - pos)
		case k != bs.open:
			if err = bs.flush(); err == nil {
				bs.open = k
				err = segment(ctx, w, rr, end-pos, exec)
			}
		default:
			err = segment(ctx, w, rr, end-pos, exec)
		}
		if err != nil {
			return err
		}
		pos = end
		phase -= float64(bs.avg)
	}
	return nil
}

// within is the files that reach into [from, to) (zero: no limit).
func within(files []File, from, to time.Time) []File {
	if from.IsZero() && to.IsZero() {
		return files
	}
	var out []File
	for _, f := range files {
		if (from.IsZero() || f.End().After(from)) && (to.IsZero() || f.Start.Before(to)) {
			out = append(out, f)
		}
	}
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
