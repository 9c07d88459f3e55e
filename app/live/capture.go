package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live/rowsink"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/window"
)

// DefaultGenerator is the source used when there is no input device.
const DefaultGenerator = "sine:1000:-6"

// OpenSource returns a recorder's source opener: the generator when spec
// is set, else the capture device, else (no device at all, a normal
// state) the default generator with a notice saying so. rate and channels
// 0 take the device's (the generator's: 48000 Hz, 2 channels). The source
// is opened once here to check it, then closed.
func OpenSource(device string, rate, channels int, spec string) (func() (audio.Source, error), string, error) {
	if spec != "" {
		open, err := generatorSource(spec, rate, channels)
		return open, "", err
	}
	cfg := audio.CaptureConfig{Device: device, Rate: rate, Channels: channels}
	src, err := audio.OpenCapture(cfg)
	if err == nil {
		src.Close()
		return func() (audio.Source, error) { return audio.OpenCapture(cfg) }, "", nil
	}
	if device != "" || !errors.Is(err, audio.ErrNoInputDevice) {
		return nil, "", err
	}
	open, gerr := generatorSource(DefaultGenerator, rate, channels)
	return open, fmt.Sprintf("%v: using the generator %s", err, DefaultGenerator), gerr
}

func generatorSource(spec string, rate, channels int) (func() (audio.Source, error), error) {
	gs, err := audio.ParseGenerator(spec)
	if err != nil {
		return nil, err
	}
	if rate == 0 {
		rate = 48000
	}
	if channels == 0 {
		channels = 2
	}
	if _, err := audio.NewGenerator(gs, rate, channels, true); err != nil {
		return nil, err
	}
	return func() (audio.Source, error) { return audio.NewGenerator(gs, rate, channels, true) }, nil
}

// CaptureOptions configure Capture.
type CaptureOptions struct {
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
}

// ErrIncomplete says a capture ended at its deadline with less than the
// time asked for: the source stopped delivering (an outage to the end), or
// the analysis fell too far behind a source that kept delivering; the
// error wrapping it says which. What was captured is written, the rest of
// the timeline as gap rows.
var ErrIncomplete = errors.New("incomplete")

// Capture records opts.Seconds of the recorder's stream as a live
// spectrogram of opts.Channel (or the mix) into opts.Out, written to a
// temporary file and renamed on success. The output keeps real time:
// input the analysis lost (overwritten before it was read) and outages
// (the recorder reopening a source that failed or stalled: a 5-s outage
// is 5 s of gap) stay in the timeline as rows of NaN (NPY, CSV) or the
// colormap's floor (PNG), and are counted in the statistics. A source that
// stops delivering for good ends the capture at Seconds + Grace of
// wall-clock time with what was captured written, the rest of the
// timeline as gap rows, and an error wrapping ErrIncomplete that says
// since when no input came. It returns the analysis statistics at the end.
func Capture(ctx context.Context, rec *audio.Recorder, engines engine.Pair, opts CaptureOptions) (Stats, error) {
	rate := rec.SampleRate()
	total := dsp.FrameCount(int64(opts.Seconds*float64(rate)), opts.FFT, opts.Hop)
	if total < 1 {
		return Stats{}, fmt.Errorf("%g s at %d Hz is shorter than one frame of %d", opts.Seconds, rate, opts.FFT)
	}
	o, err := encode.CreateWith(opts.Out, encode.CreateOptions{Force: opts.Force})
	if err != nil {
		return Stats{}, err
	}
	defer o.Discard()
	rw, err := captureWriter(o, opts, rec, total)
	if err != nil {
		return Stats{}, err
	}
	sink := rowsink.New(rw, opts.Channel, rec.Channels(), opts.FFT/2+1, total)
	defer sink.Close(0) // the writer goroutine ends on every return (twice is harmless)
	s := DefaultSettings()
	s.FFT, s.Hop, s.Window, s.History, s.Columns = opts.FFT, opts.Hop, opts.Window, -1, sink.Grid()
	s.ColumnChannel = sink.Ch + 1
	live, err := New(rec, engines, s)
	if err != nil {
		return Stats{}, err
	}
	defer live.Close()
	live.onBatch = sink.Batch
	logf(opts.Log, "prism: capturing %.1f s from %s at %d Hz, %d channels, on %s\n", opts.Seconds, rec.Stats().Source, rate, rec.Channels(), engines.Preferred.Name())
	start, began := rec.Ring().Position(), time.Now()
	short, err := captureRun(ctx, live, sink, opts, rate)
	if err != nil {
		return live.Stats(), err
	}
	st := live.Stats()
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
	if err := capturePeak(live, sink.Ch, opts, &st); err != nil {
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
// passes (short: an error wrapping ErrIncomplete).
func captureRun(ctx context.Context, live *Live, sink *rowsink.Sink, opts CaptureOptions, rate int) (short, err error) {
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
			return fmt.Errorf("%w: %.2f s of %.2f s captured by the deadline (%v past the end)", ErrIncomplete,
				float64(sink.Next*opts.Hop)/float64(rate), opts.Seconds, grace), nil
		}
		n, err := live.Step()
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
func capturePeak(l *Live, ch int, opts CaptureOptions, st *Stats) error {
	var sp Spectrum
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
func captureWriter(o *encode.Output, opts CaptureOptions, rec *audio.Recorder, total int) (encode.RowWriter, error) {
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
