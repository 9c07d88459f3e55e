package live

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live/rowsink"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Recording at full resolution: while the waterfall's history may fold
// several frames into a column (above 500 frames/s), a recording writes
// every analyzed frame of one output channel, every bin, in dBFS, to the
// same outage-aware sink as `prism capture` (rowsink.Sink: a bounded queue
// and a writer goroutine). Up to 500 frames/s the live plan's own columns
// are one per frame of every channel, and the recording takes its
// channel's from them: nothing more runs on the engine. Above, it is a
// second column stream on the engine: a live plan of that one channel
// (its block of the batch the live plan analyzed, the same spectrogram,
// gains and dB rule) on a one-frame grid, executed on the engine
// goroutine right after the live plan, with the frame numbers the live
// plan got. Either way the live plan, its grid and the view are left as
// they are (a recording costs at most one more channel's transform per
// batch, never a finer waterfall for everyone), and a frame lost from
// the timeline (overwritten input, an outage, a pause) is a jump in the
// frame numbers, written as a NaN row at its place.

// RecordStatus says what the recorder is doing. Frames counts the rows
// so far (gap rows included), Gaps the rows of frames lost from the
// timeline, Dropped the frames the writer fell behind on (written as gap
// rows). Err is why the last recording ended early ("" if it did not);
// Saved says its file is in place (a failed writer's is discarded).
type RecordStatus struct {
	Active   bool
	Saved    bool
	Path     string
	Channel  int // output channel (Channels: the mix)
	Geometry Geometry
	Frames   int
	Gaps     int
	Dropped  int
	Err      string
}

// recording is the engine goroutine's side of a recording.
type recording struct {
	path   string
	ch     int
	src    *audio.Recorder // the source recorded
	geo    Geometry
	spec   gpufft.SpectrogramConfig // the live plan's, for reconfigure's check
	outCh  int
	o      *encode.Output
	rw     encode.RowWriter
	sink   *rowsink.Sink
	plan   gpufft.LivePlan    // nil: the live plan's columns are every frame's, used as they are
	out    *gpufft.LiveOutput // plan's output
	col    int                // the channel's columns in the output read (plan's: 0; the live plan's: ch)
	expect int64              // the timeline frame expected next (a jump is a gap)
	gaps   int
}

// recordPub is the recorder's status for other goroutines.
type recordPub struct {
	mu        sync.Mutex
	st        RecordStatus
	seq       uint64         // recordings started: a finished one's status replaces st only if no other began since
	finishing sync.WaitGroup // files being completed (Close waits for them)
}

// RecordStatus copies the recorder's status. Any goroutine may call it;
// it does not allocate.
func (l *Live) RecordStatus() RecordStatus {
	l.recPub.mu.Lock()
	defer l.recPub.mu.Unlock()
	return l.recPub.st
}

// StartRecording starts writing every analyzed frame of output channel c
// (Channels for the mix) to path, NPY (frames × bins float32, dBFS) or CSV
// (as `prism capture`: `time_s,` then the bins' frequencies, times from
// the recording's start), through a temporary file renamed when it stops.
// The path is checked and its temporary file created at once (its error
// returned); the recording itself starts between batches, and done (if
// not nil) is called on the engine goroutine with its outcome (without
// done, an error goes to the statistics' Status). New
// settings that change the frames (rate, FFT, hop, window, band, channel
// count) end a recording (its file kept, the reason in Err); others leave
// it going.
func (l *Live) StartRecording(path string, c int, done func(error)) error {
	format, ok := encode.FormatOf(path)
	if !ok || format == encode.FormatPNG {
		return fmt.Errorf("live: record: %s: record as .npy or .csv", filepath.Base(path))
	}
	o, err := encode.Create(path)
	if err != nil {
		return fmt.Errorf("live: record: %w", err)
	}
	l.cmds <- func(l *Live) error {
		err := l.startRecording(o, path, format, c)
		if err != nil {
			o.Discard()
		}
		if done != nil {
			done(err)
			return nil // said to the caller, not in the status
		}
		return err
	}
	return nil
}

func (l *Live) startRecording(o *encode.Output, path string, format encode.Format, c int) error {
	r := &l.run
	switch {
	case l.recd != nil:
		return fmt.Errorf("live: record: already recording to %s", l.recd.path)
	case c < 0 || c >= r.outCh:
		return fmt.Errorf("live: record: no output channel %d (there are %d)", c, r.outCh)
	}
	geo := Geometry{Rate: r.rate, FFT: r.set.FFT, Hop: r.set.Hop}
	var rw encode.RowWriter
	var err error
	if format == encode.FormatNPY {
		rw, err = encode.NewNPYRows(o, geo.Bins())
	} else {
		rw, err = encode.NewCSVRows(o, geo.FFT, geo.Hop, geo.Rate)
	}
	if err != nil {
		return fmt.Errorf("live: record: %w", err)
	}
	d := &recording{path: path, ch: c, src: r.rec, geo: geo, o: o, rw: rw}
	if err := l.recordPlan(d); err != nil {
		return err
	}
	d.sink = rowsink.New(rw, d.col, 1, geo.FFT/2+1, math.MaxInt32)
	d.expect = int64(r.lostFrames + l.post.frames)
	d.sink.Origin = int(d.expect)
	l.recd = d
	l.recPub.mu.Lock()
	l.recPub.st = RecordStatus{Active: true, Path: path, Channel: c, Geometry: geo}
	l.recPub.seq++
	l.recPub.mu.Unlock()
	return nil
}

// recordPlan makes d's plan on the current engine: the live plan's
// spectrogram of one channel, on a one-frame grid, no traces kept. Like
// the live plan it is run once on silence first (a throwaway plan), so
// kernel compilation does not land on a live batch. Where the live plan's
// own columns are one per frame of every channel (up to 500 frames/s),
// the recording reads them instead and costs the engine nothing.
func (l *Live) recordPlan(d *recording) error {
	r := &l.run
	d.spec, d.outCh = r.cfg, r.outCh
	if r.set.Columns == nil && r.set.ColumnChannel == 0 && columnFrames(Geometry{Rate: r.rate, FFT: r.set.FFT, Hop: r.set.Hop}) == 1 {
		d.closePlan()
		d.col = d.ch
		return nil
	}
	spec := r.cfg
	spec.Channels = 1
	cfg := gpufft.LiveConfig{Spectrogram: spec, Gain2: l.post.gain2, ExpAlpha: 1, LinFrames: 1, Decay: 1,
		Grid: gpufft.FixedColumns{Frames: 1}}
	warm, err := r.eng.NewLive(cfg)
	if err == nil {
		_, err = warm.Execute(cfg.NewOutput(), make([]float32, spec.Size), 0, false)
		warm.Close()
	}
	var plan gpufft.LivePlan
	if err == nil {
		plan, err = r.eng.NewLive(cfg)
	}
	if err != nil {
		return fmt.Errorf("live: record: %w", err)
	}
	d.closePlan()
	d.plan, d.out, d.col = plan, cfg.NewOutput(), 0
	return nil
}

// closePlan releases d's plan, if it has one.
func (d *recording) closePlan() {
	if d.plan != nil {
		d.plan.Close()
	}
	d.plan, d.out = nil, nil
}

// recordBatch runs the recording's plan on its channel's block of the
// batch the live plan analyzed (frames first…, samples per channel) and
// hands the rows to the sink. It does not allocate once the sink's queue
// has its chunks.
func (l *Live) recordBatch(src []float32, samples int, first uint64) {
	d := l.recd
	if d == nil {
		return
	}
	out := l.run.out
	if d.plan != nil {
		in := src[d.ch*samples : (d.ch+1)*samples]
		if _, err := d.plan.Execute(d.out, in, int64(first), false); err != nil {
			l.endRecording(fmt.Errorf("live: record: %w", err), nil)
			return
		}
		out = d.out
	}
	if n := out.NumColumns; n > 0 {
		d.gaps += int(max(0, out.ColumnIDs[0]-d.expect))
		d.expect = out.ColumnIDs[n-1] + 1
	}
	d.sink.Batch(out)
	if d.sink.Failed.Load() {
		l.endRecording(errors.New("live: record: the writer failed"), nil)
		return
	}
	l.recPub.mu.Lock()
	st := &l.recPub.st
	st.Frames, st.Gaps, st.Dropped = d.sink.Next, d.gaps, d.sink.Dropped
	l.recPub.mu.Unlock()
}

// StopRecording ends the recording between batches: the writer finishes
// what is queued, and the file is completed and renamed into place, off
// the engine goroutine. done (if not nil) gets the final status and the
// error (nil when the file is in place) from that goroutine. Stopping
// when not recording reports an error.
func (l *Live) StopRecording(done func(RecordStatus, error)) {
	l.cmds <- func(l *Live) error {
		if l.recd == nil {
			err := errors.New("live: record: not recording")
			if done != nil {
				done(l.RecordStatus(), err)
			}
			return nil
		}
		l.endRecording(nil, done)
		return nil
	}
}

// endRecording stops the recording on the engine goroutine (cause: why,
// nil when asked to) and finishes its file in the background.
func (l *Live) endRecording(cause error, done func(RecordStatus, error)) {
	d := l.recd
	l.recd = nil
	d.closePlan()
	// no longer recording from now on (a new recording may start while
	// this file is completed)
	l.recPub.mu.Lock()
	l.recPub.st.Frames, l.recPub.st.Gaps, l.recPub.st.Dropped = d.sink.Next, d.gaps, d.sink.Dropped
	l.recPub.st.Active = false
	st, seq := l.recPub.st, l.recPub.seq
	l.recPub.mu.Unlock()
	l.recPub.finishing.Add(1)
	go func() {
		defer l.recPub.finishing.Done()
		d.sink.Close(d.sink.Next)
		// the writer's error (a full disk) discards the file; a stop for new
		// settings keeps what was recorded
		err := cause
		if d.sink.Err != nil {
			err = fmt.Errorf("live: record: %w", d.sink.Err)
		} else if ferr := errors.Join(d.rw.Finish(d.sink.Written), d.o.Commit()); ferr != nil {
			err = fmt.Errorf("live: record: %w", ferr)
		} else {
			st.Saved = true
		}
		d.o.Discard()
		st.Active = false
		if err != nil {
			st.Err = err.Error()
		}
		l.recPub.mu.Lock()
		if l.recPub.seq == seq {
			l.recPub.st = st
		}
		l.recPub.mu.Unlock()
		if done != nil {
			done(st, err)
		}
	}()
}

// timelinePos is where the analysis stands in the stream: the position of
// the first sample held, the next frame's number and the samples lost
// not yet counted in frames.
type timelinePos struct{ pos, next, lostSamples uint64 }

func (l *Live) timeline() timelinePos {
	r := &l.run
	return timelinePos{pos: r.pos, next: r.lostFrames + l.post.frames, lostSamples: r.lostSamples}
}

// reconfigureRecording follows new settings: a recording whose frames
// they leave as they were goes on (on a new plan, on the engine now
// used, its rows continuing where they were: the frames' numbers start
// again from 0, after a gap of the frames lost and not yet recorded
// before the change and of the input the change dropped since prev);
// otherwise, or on another source, it ends, its file kept.
func (l *Live) reconfigureRecording(prev timelinePos) {
	d := l.recd
	if d == nil {
		return
	}
	r := &l.run
	if r.rec != d.src {
		l.endRecording(errors.New("live: record: stopped: the source changed"), nil)
		return
	}
	old, now := d.spec, r.cfg
	if r.rate != d.geo.Rate || r.outCh != d.outCh || old.Size != now.Size || old.Hop != now.Hop ||
		old.Window != now.Window || !slices.Equal(old.BinGain, now.BinGain) {
		l.endRecording(errors.New("live: record: stopped: the new settings change the frames (rate, FFT, hop, window, band or channels)"), nil)
		return
	}
	if err := l.recordPlan(d); err != nil {
		l.endRecording(err, nil)
		return
	}
	d.sink.Ch = d.col
	d.sink.Origin = -d.sink.Next
	pending := uint64(max(0, int64(prev.next)-d.expect)) // frames lost, no batch saw them
	d.expect = 0
	lost := prev.lostSamples + (r.pos - prev.pos)
	r.lostFrames, r.lostSamples = pending+lost/uint64(r.set.Hop), lost%uint64(r.set.Hop)
}
