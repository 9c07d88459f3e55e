package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// segment reads count samples of rr into the bin: the frames that lie
// wholly inside them (a tail shorter than a frame is read and dropped).
// rr's blocks need fft samples of headroom.
func (w *welch) segment(ctx context.Context, rr *prefetch, count int64) error {
	w.samples += count
	var pend []float32 // the bin's samples not yet consumed by a frame
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if count > 0 {
			region, added, err := rr.next(pend, int(min(count, int64(w.max-len(pend)))))
			pend = region
			count -= int64(added)
			if err != nil && count > 0 {
				if errors.Is(err, io.EOF) {
					err = fmt.Errorf("archive: the files end %d samples early", count)
				}
				return err
			}
		}
		if len(pend) < w.fft {
			if count == 0 {
				return nil
			}
			continue
		}
		frames, err := w.plan.Execute(w.pow, pend)
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

// discard reads count samples of rr and drops them: a bin outside the
// span asked for.
func (w *welch) discard(rr *prefetch, count int64) error { return rr.skip(count) }

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
func welchBins(ctx context.Context, e gpufft.Engine, files []File, wc welchConfig, emit func(bin int64, secs float64, psd []float64) error) error {
	rate := files[0].Rate
	w, err := newWelch(e, wc, rate)
	if err != nil {
		return err
	}
	defer w.Close()
	avg := int64(wc.average)
	open := int64(math.MinInt64)
	flush := func() error {
		psd, secs, ok := w.take(rate)
		if !ok || open == math.MinInt64 {
			return nil
		}
		return emit(open, secs, psd)
	}
	first, last := int64(math.MinInt64), int64(math.MaxInt64) // the bins asked for
	if !wc.from.IsZero() {
		first = floorDiv(wc.from.UnixNano(), avg)
	}
	if !wc.to.IsZero() {
		last = floorDiv(wc.to.UnixNano()-1, avg)
	}
	for _, r := range runsOf(within(files, wc.from, wc.to)) {
		ns := r.start.UnixNano()
		k := floorDiv(ns, avg)
		phase := float64(ns - k*avg) // ns into bin k
		rr := startPrefetch(r, wc.channel, wc.fft)
		for pos := int64(0); pos < r.frames && k <= last; k++ {
			// the first sample at or after the start of bin k+1
			next := int64(math.Ceil((float64(avg)-phase)*r.rate/1e9 - 1e-6))
			end := min(max(next, pos), r.frames)
			var err error
			switch {
			case k < first:
				err = w.discard(rr, end-pos)
			case k != open:
				if err = flush(); err == nil {
					open = k
					err = w.segment(ctx, rr, end-pos)
				}
			default:
				err = w.segment(ctx, rr, end-pos)
			}
			if err != nil {
				rr.close()
				return err
			}
			pos = end
			phase -= float64(avg)
		}
		rr.close()
	}
	return flush()
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
