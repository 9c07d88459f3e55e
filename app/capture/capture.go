// Package capture is `prism capture`'s pipeline: a recorder's stream
// analyzed live (package live, on the engine pair) for a number of
// seconds into a spectrogram file of one channel or the mix (NPY, CSV or
// PNG, through package rowsink's outage-aware sink), keeping real time:
// lost input and outages are gap rows, a source that stops for good ends
// the capture at its deadline with what was captured written and an error
// wrapping live.ErrIncomplete. It imports live, rowsink, engine, encode,
// plot, dsp and audio; it knows nothing of flags (package cli) or
// windows. Run owns its analyzer and runs it on the caller's goroutine.
package capture

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/rowsink"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/window"
)

// Options configure Run.
type Options struct {
	FFT, Hop int
	Window   window.Func
	Channel  int               // −1: the mix (mean of channels); else a 0-based channel
	Image    plot.ImageOptions // the PNG's, for FormatPNG
	Seconds  float64
	Out      string
	Format   encode.Format
	Force    bool      // replace an output its permissions protect
	Log      io.Writer // progress lines; nil: none
	// Grace is how long past Seconds of wall-clock time a capture waits
	// for a source that stops delivering (0: 5 s).
	Grace time.Duration
	// LevelsEvery > 0 writes a level log of the channel (0 for the mix)
	// at LevelsPath(Out), one row per LevelsEvery of input read.
	LevelsEvery time.Duration
}

// Run records opts.Seconds of the recorder's stream as a live
// spectrogram of opts.Channel (or the mix) into opts.Out, written to a
// temporary file and renamed on success. The output keeps real time:
// input the analysis lost (overwritten before it was read) and outages
// (the recorder reopening a source that failed or stalled: a 5-s outage
// is 5 s of gap) stay in the timeline as rows of NaN (NPY, CSV) or the
// colormap's floor (PNG), and are counted in the statistics. A source that
// stops delivering for good ends the capture at Seconds + Grace of
// wall-clock time with what was captured written, the rest of the
// timeline as gap rows, and an error wrapping live.ErrIncomplete that says
// since when no input came. It returns the analysis statistics at the end.
func Run(ctx context.Context, rec *audio.Recorder, engines engine.Pair, opts Options) (live.Stats, error) {
	rate := rec.SampleRate()
	total := dsp.FrameCount(int64(opts.Seconds*float64(rate)), opts.FFT, opts.Hop)
	if total < 1 {
		return live.Stats{}, fmt.Errorf("%g s at %d Hz is shorter than one frame of %d", opts.Seconds, rate, opts.FFT)
	}
	o, err := encode.CreateWith(opts.Out, encode.CreateOptions{Force: opts.Force})
	if err != nil {
		return live.Stats{}, err
	}
	defer o.Discard()
	rw, err := captureWriter(o, opts, rec, total)
	if err != nil {
		return live.Stats{}, err
	}
	sink := rowsink.New(rw, opts.Channel, rec.Channels(), opts.FFT/2+1, total)
	defer sink.Close(0) // the writer goroutine ends on every return (twice is harmless)
	s := live.DefaultSettings()
	s.FFT, s.Hop, s.Window, s.History, s.Columns = opts.FFT, opts.Hop, opts.Window, -1, sink.Grid()
	s.ColumnChannel = sink.Ch + 1
	l, err := live.New(rec, engines, s)
	if err != nil {
		return live.Stats{}, err
	}
	defer l.Close()
	lv, err := startLevels(l, rec.Channels(), rate, opts)
	if err != nil {
		return live.Stats{}, err
	}
	defer lv.discard()
	l.OnBatch(sink.Batch)
	logf(opts.Log, "prism: capturing %.1f s from %s at %d Hz, %d channels, on %s\n", opts.Seconds, rec.Stats().Source, rate, rec.Channels(), engines.Preferred.Name())
	start, began := rec.Ring().Position(), time.Now()
	short, err := captureRun(ctx, l, sink, opts, rate)
	if err != nil {
		return l.Stats(), err
	}
	st := l.Stats()
	sink.Close(sink.Next)
	if short != nil {
		// the rest of the timeline is gap rows and its input is counted:
		// an outage that lasts to the end, or input the analysis did not
		// reach (the source kept delivering; the engine fell behind)
		tail := uint64(max(0, int64(opts.Seconds*float64(rate))-int64(rec.Ring().Position()-start)))
		st.DroppedFrames += tail
		if rs := rec.Stats(); rs.Stalled || !rs.Since.IsZero() {
			st.DroppedOutageFrames += tail
			st.Outages++
			short = fmt.Errorf("%w: the source stopped delivering: %s", short, outageSince(rec, began))
		} else {
			st.DroppedOverflowFrames += tail
			short = fmt.Errorf("%w: the input kept coming but the analysis fell behind (%d input frames dropped): a faster engine, a smaller FFT or a longer hop keeps up", short, st.DroppedFrames)
		}
		sink.PadTo(total)
	}
	if sink.Err != nil {
		return st, sink.Err
	}
	if err := rw.Finish(sink.Written); err != nil {
		return st, err
	}
	if err := o.Commit(); err != nil {
		return st, err
	}
	if err := lv.finish(l); err != nil {
		return st, err
	}
	if err := capturePeak(l, sink.Ch, opts, &st); err != nil {
		return st, err
	}
	st.GapFrames, st.DroppedOutputFrames = uint64(sink.Gaps), uint64(sink.Dropped)
	logOutages(opts.Log, rec, start, rate)
	if sink.Dropped > 0 {
		logf(opts.Log, "prism: the %s writer fell behind: %d frames dropped, written as gap rows\n", opts.Format, sink.Dropped)
	}
	logf(opts.Log, "prism: %s: %d frames (%d of them gaps); latency p50 %.2f ms, p99 %.2f ms; %d input frames dropped (%d overflow, %d outage), %d overflows, %d stalls, %d reopens\n",
		opts.Out, sink.Written, sink.Gaps, st.LatencyP50Ms, st.LatencyP99Ms, st.DroppedFrames, st.DroppedOverflowFrames, st.DroppedOutageFrames, st.Overflows, st.Stalls, st.Reopens)
	return st, short
}

// captureRun steps the analysis until the sink has the whole timeline, the
// context ends (its error), or the deadline, Seconds + Grace from now,
// passes (short: an error wrapping live.ErrIncomplete).
func captureRun(ctx context.Context, l *live.Live, sink *rowsink.Sink, opts Options, rate int) (short, err error) {
	grace := opts.Grace
	if grace == 0 {
		grace = 5 * time.Second
	}
	deadline := time.Now().Add(time.Duration(opts.Seconds*float64(time.Second)) + grace)
	for sink.Next < sink.Total && !sink.Failed.Load() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %.2f s of %.2f s captured by the deadline (%v past the end)", live.ErrIncomplete,
				float64(sink.Next*opts.Hop)/float64(rate), opts.Seconds, grace), nil
		}
		n, err := l.Step()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return nil, nil
}

// outageSince says since when the recorder has had no input (relative to
// the capture's start) and why.
func outageSince(rec *audio.Recorder, began time.Time) string {
	rs := rec.Stats()
	msg := "outage: no input"
	switch {
	case rs.Since.IsZero():
	case rs.Since.After(began):
		msg += fmt.Sprintf(" since %.2f s after the capture started", rs.Since.Sub(began).Seconds())
	default:
		msg += " since the capture began"
	}
	if rs.LastError != "" {
		msg += " (" + rs.LastError + ")"
	}
	return msg + ", still none at the deadline"
}

// logOutages lists the outages the recorder closed since stream position
// start, each where it sits in the capture's timeline.
func logOutages(w io.Writer, rec *audio.Recorder, start uint64, rate int) {
	for _, o := range rec.Outages() {
		if o.At >= start {
			logf(w, "prism: outage at %.3f s of the capture: %.3f s without input (the source was reopened), kept as a gap\n",
				float64(o.At-start)/float64(rate), float64(o.Frames)/float64(rate))
		}
	}
}

// capturePeak sets st's peak from output channel ch's last spectrum.
func capturePeak(l *live.Live, ch int, opts Options, st *live.Stats) error {
	var sp live.Spectrum
	l.Latest(ch, &sp)
	k, err := dsp.NewWindowKernel(opts.Window.Values(opts.FFT))
	if err != nil || len(sp.Current) < 3 {
		return err
	}
	tone := k.FindToneDB(sp.Current, sp.BinHz)
	st.PeakHz, st.PeakDBFS = tone.FreqHz, tone.LevelDB
	st.PeakNote, _ = dsp.NoteName(tone.FreqHz)
	return nil
}

func logf(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format, a...)
	}
}

// captureWriter is the row writer of a capture's output format.
func captureWriter(o *encode.Output, opts Options, rec *audio.Recorder, total int) (encode.RowWriter, error) {
	switch opts.Format {
	case encode.FormatNPY:
		return encode.NewNPYRows(o, opts.FFT/2+1)
	case encode.FormatCSV:
		return encode.NewCSVRows(o, opts.FFT, opts.Hop, rec.SampleRate())
	}
	img := opts.Image
	img.Title = fmt.Sprintf("capture: %s   N=%d  hop=%d  %v  %s", rec.Stats().Source, opts.FFT, opts.Hop, opts.Window, dsp.ChannelName(opts.Channel))
	layout := plot.NewSpectrogram(img, plot.Geometry{Rate: rec.SampleRate(), FFT: opts.FFT, Hop: opts.Hop, Frames: total})
	return rowsink.NewImage(o, layout, total), nil
}
