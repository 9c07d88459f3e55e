package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
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
	analysis.AnalyzeOptions
	Seconds float64
	Out     string
	Format  encode.Format
	Log     io.Writer // progress lines; nil: none
	// Grace is how long past Seconds of wall-clock time a capture waits
	// for a source that stops delivering (0: 5 s).
	Grace time.Duration
}

// ErrIncomplete says a capture ended at its deadline with less than the
// time asked for: the source stopped delivering. What was captured is
// written.
var ErrIncomplete = errors.New("the source stopped delivering")

// Capture records opts.Seconds of the recorder's stream as a live
// spectrogram of opts.Channel (or the mix) into opts.Out, written to a
// temporary file and renamed on success. Input the analysis lost
// (overwritten before it was read) stays in the timeline as rows of NaN
// (NPY, CSV) or the colormap's floor (PNG). A source that stops
// delivering ends the capture at Seconds + Grace of wall-clock time with
// what was captured written and an error wrapping ErrIncomplete. It
// returns the analysis statistics at the end.
func Capture(ctx context.Context, rec *audio.Recorder, engines analysis.Engines, opts CaptureOptions) (LiveStats, error) {
	rate := rec.SampleRate()
	total := analysis.FrameCount(int64(opts.Seconds*float64(rate)), opts.FFT, opts.Hop)
	if total < 1 {
		return LiveStats{}, fmt.Errorf("%g s at %d Hz is shorter than one frame of %d", opts.Seconds, rate, opts.FFT)
	}
	o, err := encode.Create(opts.Out)
	if err != nil {
		return LiveStats{}, err
	}
	defer o.Discard()
	rw, err := captureWriter(o, opts, rec, total)
	if err != nil {
		return LiveStats{}, err
	}
	sink := newCaptureSink(rw, opts, rec.Channels(), total)
	s := DefaultLiveSettings()
	s.FFT, s.Hop, s.Window, s.History, s.Columns = opts.FFT, opts.Hop, opts.Window, -1, sink.grid()
	s.ColumnChannel = sink.ch + 1
	live, err := NewLive(rec, engines, s)
	if err != nil {
		return LiveStats{}, err
	}
	defer live.Close()
	live.onBatch = sink.batch
	logf(opts.Log, "prism: capturing %.1f s from %s at %d Hz, %d channels, on %s\n", opts.Seconds, rec.Stats().Source, rate, rec.Channels(), engines.Preferred.Name())
	grace := opts.Grace
	if grace == 0 {
		grace = 5 * time.Second
	}
	deadline := time.Now().Add(time.Duration(opts.Seconds*float64(time.Second)) + grace)
	var short error
	for sink.written < total && sink.err == nil {
		if err := ctx.Err(); err != nil {
			return live.Stats(), err
		}
		if time.Now().After(deadline) {
			short = fmt.Errorf("%w: %.2f s of %.2f s captured by the deadline (%v past the end); %s", ErrIncomplete,
				float64(sink.written*opts.Hop)/float64(rate), opts.Seconds, grace, rec.Stats().LastError)
			break
		}
		n, err := live.Step()
		if err != nil {
			return live.Stats(), err
		}
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	if sink.err != nil {
		return live.Stats(), sink.err
	}
	if err := rw.Finish(sink.written); err != nil {
		return live.Stats(), err
	}
	if err := o.Commit(); err != nil {
		return live.Stats(), err
	}
	st := live.Stats()
	if err := capturePeak(live, sink.ch, opts, &st); err != nil {
		return st, err
	}
	logf(opts.Log, "prism: %s: %d frames (%d of them gaps); latency p50 %.2f ms, p99 %.2f ms; %d input frames dropped, %d overflows, %d stalls\n",
		opts.Out, sink.written, sink.gaps, st.LatencyP50Ms, st.LatencyP99Ms, st.DroppedFrames, st.Overflows, st.Stalls)
	return st, short
}

// capturePeak sets st's peak from output channel ch's last spectrum.
func capturePeak(l *Live, ch int, opts CaptureOptions, st *LiveStats) error {
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

// captureSink writes one output channel's frames as dB rows, and gap rows
// for frames lost from the timeline; or, for an image, the columns the
// engine folded, into their pixel columns.
type captureSink struct {
	rw            encode.RowWriter
	img           *imageRows // the image's writer, nil for rows
	ch, total     int
	written, gaps int
	gap           []float32 // one row of NaN
	err           error
}

func newCaptureSink(rw encode.RowWriter, opts CaptureOptions, channels, total int) *captureSink {
	ch := channels // the mix is output channel `channels`
	if opts.Channel >= 0 {
		ch = opts.Channel
	}
	bins := opts.FFT/2 + 1
	s := &captureSink{rw: rw, ch: ch, total: total, gap: make([]float32, bins)}
	s.img, _ = rw.(*imageRows)
	for k := range s.gap {
		s.gap[k] = float32(math.NaN())
	}
	return s
}

// grid is the columns the engine folds for the sink: the image's pixel
// columns (plot.ColumnFrames over the whole capture), else every frame.
func (s *captureSink) grid() gpufft.ColumnGrid {
	if s.img != nil {
		return plotGrid{columns: s.img.layout.Columns(), frames: s.total}
	}
	return gpufft.FixedColumns{Frames: 1}
}

// batch is Live's onBatch: it takes only its channel of the columns.
func (s *captureSink) batch(out *gpufft.LiveOutput) {
	for j := range out.NumColumns {
		if s.err != nil || s.written >= s.total {
			return
		}
		id := int(out.ColumnIDs[j])
		col := out.Column(j, s.ch)
		if s.img != nil {
			lo, hi := plot.ColumnFrames(id, s.img.layout.Columns(), s.total)
			s.gaps += max(0, lo-s.written)
			s.img.column(id, col)
			s.written = max(s.written, hi)
			continue
		}
		for s.err == nil && s.written < s.total && s.written < id {
			s.err = s.rw.Rows(s.written, s.gap)
			s.written++
			s.gaps++
		}
		if s.err == nil && s.written == id && id < s.total {
			s.err = s.rw.Rows(s.written, col)
			s.written++
		}
	}
}

// plotGrid is plot's column rule as the engine's column grid.
type plotGrid struct{ columns, frames int }

// maxColumns is the most columns a batch of n frames completes: each
// frame is in at most ⌈columns/frames⌉ + 1 of them (nearest-frame
// columns), and there are no more than all of them.
func (g plotGrid) maxColumns(n int) int {
	return min(g.columns, n*((g.columns+g.frames-1)/g.frames+1)) + 1
}

func (g plotGrid) ColumnFrames(col int64) (int64, int64) {
	lo, hi := plot.ColumnFrames(int(col), g.columns, g.frames)
	return int64(lo), int64(hi)
}

func (g plotGrid) FrameColumns(f int64) (int64, int64) {
	first, last := plot.FrameColumns(int(min(f, int64(g.frames-1))), g.columns, g.frames)
	return int64(first), int64(last)
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
	img.Title = fmt.Sprintf("capture: %s   N=%d  hop=%d  %v  %s", rec.Stats().Source, opts.FFT, opts.Hop, opts.Window, analysis.ChannelName(opts.Channel))
	layout := plot.NewSpectrogram(img, plot.Geometry{Rate: rec.SampleRate(), FFT: opts.FFT, Hop: opts.Hop, Frames: total})
	return newImageRows(o, layout, total), nil
}

// imageRows folds dB rows into a spectrogram image on the host, by the
// same rule as the engines' image plans (plot.ColumnFrames), and writes it
// as PNG at the end.
type imageRows struct {
	o      *encode.Output
	layout *plot.Spectrogram
	lo, hi []int32 // each row's bins
	pix    []float32
	bins   int // per dB row
	total  int
}

func newImageRows(o *encode.Output, layout *plot.Spectrogram, total int) *imageRows {
	lo, hi := layout.RowBins()
	p := &imageRows{o: o, layout: layout, lo: lo, hi: hi, pix: make([]float32, layout.Columns()*layout.Rows()),
		bins: int(hi[len(hi)-1]), total: total}
	for i := range p.pix {
		p.pix[i] = gpufft.FloorDB
	}
	return p
}

// Rows folds frames into the columns that show them, by maximum; gap
// rows (NaN) leave their columns at the floor.
func (p *imageRows) Rows(first int, db []float32) error {
	rows, bins := p.layout.Rows(), p.bins
	for f := range len(db) / bins {
		row := db[f*bins : (f+1)*bins]
		if math.IsNaN(float64(row[0])) {
			continue
		}
		c0, c1 := plot.FrameColumns(first+f, p.layout.Columns(), p.total)
		for c := c0; c <= c1; c++ {
			col := p.pix[c*rows : (c+1)*rows]
			for r := range col {
				for _, v := range row[p.lo[r]:p.hi[r]] {
					col[r] = max(col[r], v)
				}
			}
		}
	}
	return nil
}

// column folds pixel column col's spectrum (dB, folded on the engine over
// the column's frames) into its rows by maximum.
func (p *imageRows) column(col int, db []float32) {
	rows := p.layout.Rows()
	pix := p.pix[col*rows : (col+1)*rows]
	for r := range pix {
		for _, v := range db[p.lo[r]:p.hi[r]] {
			pix[r] = max(pix[r], v)
		}
	}
}

// Finish encodes the image.
func (p *imageRows) Finish(int) error {
	if err := encode.PNG(p.o.W, p.layout.Render(p.pix)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
