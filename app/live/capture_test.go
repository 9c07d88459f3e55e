//go:build cgo

package live

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestCaptureTones: tones played into the null sink are captured through
// PortAudio and analyzed live at the right frequencies (within one bin)
// and levels (within 0.5 dB).
func TestCaptureTones(t *testing.T) {
	apptest.RequireAudio(t)
	apptest.PlayTones(t, 5, 0.5, 1000, 3000)
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.OpenCapture(audio.CaptureConfig{}) }, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	s := DefaultSettings()
	s.Window = window.Func{Kind: window.FlatTop}
	l, err := New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runLive(l, 2*time.Second)
	var sp Spectrum
	for c, hz := range []float64{1000, 3000} {
		l.Latest(c, &sp)
		k := int(math.Round(hz / sp.BinHz))
		pk, lv := apptest.PeakIn(sp.Current, 1, len(sp.Current))
		// amplitude 0.5 in 16-bit: −6.02 dBFS
		if max(pk-k, k-pk) > 1 || math.Abs(float64(lv)+6.02) > 0.5 {
			t.Errorf("channel %d: peak at bin %d (%.0f Hz) %.2f dBFS; want %.0f Hz at −6.02 ± 0.5", c, pk, float64(pk)*sp.BinHz, lv, hz)
		}
	}
	st := l.Stats()
	if st.Frames < 40 || st.Stalls != 0 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("captured %d frames at %d Hz from %s; latency p50 %.2f ms p99 %.2f ms", st.Frames, st.SampleRate, st.Source, st.LatencyP50Ms, st.LatencyP99Ms)
}

// TestCaptureStalledSource: a source that delivers 0.1 s and then never
// again (each reopening stalls at once) ends the capture at its deadline
// with ErrIncomplete saying since when there was no input; the captured
// part is written, and the rest of the second as gap rows (real time
// kept), counted as outage in the statistics.
func TestCaptureStalledSource(t *testing.T) {
	first := true
	rec, err := audio.StartRecorder(func() (audio.Source, error) {
		blocks := 0
		if first {
			blocks, first = 20, false // 20 × 240 samples = 0.1 s
		}
		return &stallingSource{blocks: blocks, closed: make(chan struct{})}, nil
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	out := apptest.TempPath(t, "cap.npy")
	opts := CaptureOptions{FFT: 256, Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: -1,
		Seconds: 1, Out: out, Format: encode.FormatNPY, Grace: 300 * time.Millisecond}
	start := time.Now()
	st, err := Capture(context.Background(), rec, engine.Pair{Preferred: cpu, CPU: cpu}, opts)
	took := time.Since(start)
	t.Logf("ended after %v: %v", took, err)
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "outage: no input since") {
		t.Fatalf("error %v, want ErrIncomplete and the outage", err)
	}
	if took > 1300*time.Millisecond+time.Second { // deadline, plus a loaded machine's slack
		t.Errorf("took %v, want about 1.3 s", took)
	}
	rows, cols, vals := apptest.ReadNPY(t, out)
	real := 0
	for real < rows && !math.IsNaN(float64(vals[real*cols])) {
		real++
	}
	if cols != 129 || rows != 187 || real < 5 || real > 18 { // 187 frames: the whole second
		t.Fatalf("%d×%d written, %d real rows: want 187 rows, the first ≤ 18 (0.1 s) real", rows, cols, real)
	}
	for i, v := range vals[real*cols:] {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("row %d after the outage began is not a gap", real+i/cols)
		}
	}
	if st.DroppedOutageFrames < 48000-4800 || st.DroppedOutageFrames > uint64(48000-real*256) ||
		st.DroppedFrames != st.DroppedOutageFrames+st.DroppedOverflowFrames || st.Outages != 1 || st.GapFrames != uint64(187-real) {
		t.Errorf("stats: %d dropped (%d outage, %d overflow), %d outages, %d gap frames; want ~43200 outage, 1 outage, %d gap frames",
			st.DroppedFrames, st.DroppedOutageFrames, st.DroppedOverflowFrames, st.Outages, st.GapFrames, 187-real)
	}
}

// rowRecorder is a RowWriter that keeps the rows, one frame each; with
// hold set, each call first waits for a value from it.
type rowRecorder struct {
	bins int
	rows [][]float32
	next []int // each call's first frame
	hold chan struct{}
}

func (r *rowRecorder) Rows(first int, db []float32) error {
	if r.hold != nil {
		<-r.hold
	}
	r.next = append(r.next, first)
	for f := range len(db) / r.bins {
		r.rows = append(r.rows, append([]float32(nil), db[f*r.bins:(f+1)*r.bins]...))
	}
	return nil
}

func (r *rowRecorder) Finish(int) error { return nil }

// checkRows compares rows with want (nil: a gap row of NaN) within 1e-3 dB.
func checkRows(t *testing.T, rows, want [][]float32) {
	t.Helper()
	if len(rows) != len(want) {
		t.Fatalf("%d rows %v, want %d", len(rows), rows, len(want))
	}
	for i, w := range want {
		for k, v := range rows[i] {
			if w == nil && !math.IsNaN(float64(v)) || w != nil && math.Abs(float64(v-w[k])) > 1e-3 {
				t.Errorf("row %d: %v, want %v", i, rows[i], w)
				break
			}
		}
	}
}

// TestCaptureGaps: input the analysis lost stays in the timeline as NaN
// rows at its place; the rows before and after it are the signal, in dB,
// of the captured channel only.
func TestCaptureGaps(t *testing.T) {
	rw := &rowRecorder{bins: 2}
	s := newCaptureSink(rw, CaptureOptions{FFT: 2, Channel: 1}, 2, 100)
	// columns of output channel 1 of 3 (the captured one), 2 bins, dB as
	// the engine folds them: frames 0 and 1, then 5 after frames 2…4 were
	// lost
	out := sinkOutput(2, 3, 1, 2)
	setColumns(out, []int64{0, 1}, []float32{0, -3.0103, -10, -13.0103})
	s.batch(out)
	setColumns(out, []int64{5}, []float32{-20, -23.0103})
	s.batch(out)
	s.close(s.next)
	checkRows(t, rw.rows, [][]float32{{0, -3.0103}, {-10, -13.0103}, nil, nil, nil, {-20, -23.0103}})
	if s.written != 6 || s.gaps != 3 || s.dropped != 0 || s.next != 6 {
		t.Errorf("written %d, gaps %d, dropped %d, next %d", s.written, s.gaps, s.dropped, s.next)
	}
}

// TestCaptureSinkBehind: when the writer falls more than its queue
// behind, the frames that find no room are dropped, counted, and written
// as gap rows at their place; the analysis is never held up (batch never
// blocks). The frames queued before are written as they were.
func TestCaptureSinkBehind(t *testing.T) {
	const fft = 2
	rw := &rowRecorder{bins: 2, hold: make(chan struct{})}
	total := 100000
	s := newCaptureSink(rw, CaptureOptions{FFT: fft, Channel: 0}, 1, total)
	chunks := cap(s.queue)
	// the writer is stuck in its first Rows: every chunk fills, then the
	// batches after that are dropped
	out := sinkOutput(fft, 2, 0, chunkRows)
	ids := make([]int64, chunkRows)
	zeros := make([]float32, chunkRows*2)
	batches := chunks + 3
	for b := range batches {
		for i := range ids {
			ids[i] = int64(b*chunkRows + i)
		}
		setColumns(out, ids, zeros)
		s.batch(out)
	}
	if s.dropped < 2*chunkRows || s.dropped > 3*chunkRows {
		t.Fatalf("%d frames dropped with the writer stuck: want the last 2 or 3 batches' (%d per batch)", s.dropped, chunkRows)
	}
	close(rw.hold) // the writer goes on
	for len(s.free) == 0 {
		time.Sleep(time.Millisecond)
	}
	setColumns(out, []int64{int64(batches * chunkRows)}, zeros[:2])
	s.batch(out)
	s.close(s.next)
	if s.written != batches*chunkRows+1 || s.gaps != s.dropped {
		t.Fatalf("written %d, gaps %d, dropped %d", s.written, s.gaps, s.dropped)
	}
	kept := batches*chunkRows - s.dropped
	for i, row := range rw.rows {
		gap := math.IsNaN(float64(row[0]))
		if gap != (i >= kept && i < batches*chunkRows) || !gap && math.Abs(float64(row[0])) > 1e-6 {
			t.Fatalf("row %d = %v: want the first %d frames at 0 dB, then %d gap rows, then 0 dB", i, row, kept, s.dropped)
		}
	}
}

// TestCaptureSinkAllocs: in the steady state the capture sink allocates
// nothing per frame, on the engine goroutine or in its writer (NPY to a
// file; PNG folding of the engine's columns).
func TestCaptureSinkAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	const fft, batch = 1024, 8
	bins := fft/2 + 1
	for _, format := range []encode.Format{encode.FormatNPY, encode.FormatPNG} {
		o, err := encode.Create(apptest.TempPath(t, "cap."+string(format)))
		if err != nil {
			t.Fatal(err)
		}
		defer o.Discard()
		opts := CaptureOptions{FFT: fft, Hop: fft / 4, Channel: -1, Format: format}
		opts.Image.Width, opts.Image.Height = 200, 100
		total := 1 << 20
		var rw encode.RowWriter
		if format == encode.FormatNPY {
			rw, err = encode.NewNPYRows(o, bins)
		} else {
			rw = newImageRows(o, plot.NewSpectrogram(opts.Image, plot.Geometry{Rate: 48000, FFT: fft, Hop: fft / 4, Frames: total}), total)
		}
		if err != nil {
			t.Fatal(err)
		}
		s := newCaptureSink(rw, opts, 2, total)
		out := sinkOutput(fft, 3, 2, batch)
		for i := range out.Columns {
			out.Columns[i] = -float32(i % 7)
		}
		ids := make([]int64, batch)
		next := 0
		step := func() {
			for i := range ids {
				ids[i] = int64(next + i)
				if format == encode.FormatPNG { // the image's pixel columns
					ids[i] %= int64(opts.Image.Width)
				}
			}
			copy(out.ColumnIDs, ids)
			out.NumColumns = batch
			next += batch
			s.batch(out)
			for len(s.free) < s.chunks { // the writer has written it
				runtime.Gosched()
			}
		}
		for range 50 { // the queue's chunks, the writer's buffers
			step()
		}
		if a := testing.AllocsPerRun(200, step); a != 0 {
			t.Errorf("%s: %v allocs per batch of %d frames", format, a, batch)
		}
		s.close(s.next)
		if s.err != nil || s.dropped != 0 {
			t.Fatal(s.err, s.dropped)
		}
	}
}
