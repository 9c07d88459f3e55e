package rowsink

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
)

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

// TestSinkGaps: input the analysis lost stays in the timeline as NaN
// rows at its place; the rows before and after it are the signal, in dB,
// of the captured channel only.
func TestSinkGaps(t *testing.T) {
	rw := &rowRecorder{bins: 2}
	s := New(rw, 1, 2, 2, 100)
	// columns of output channel 1 of 3 (the captured one), 2 bins, dB as
	// the engine folds them: frames 0 and 1, then 5 after frames 2…4 were
	// lost
	out := sinkOutput(2, 3, 1, 2)
	setColumns(out, []int64{0, 1}, []float32{0, -3.0103, -10, -13.0103})
	s.Batch(out)
	setColumns(out, []int64{5}, []float32{-20, -23.0103})
	s.Batch(out)
	s.Close(s.Next)
	checkRows(t, rw.rows, [][]float32{{0, -3.0103}, {-10, -13.0103}, nil, nil, nil, {-20, -23.0103}})
	if s.Written != 6 || s.Gaps != 3 || s.Dropped != 0 || s.Next != 6 {
		t.Errorf("written %d, gaps %d, dropped %d, next %d", s.Written, s.Gaps, s.Dropped, s.Next)
	}
}

// TestSinkBehind: when the writer falls more than its queue
// behind, the frames that find no room are dropped, counted, and written
// as gap rows at their place; the analysis is never held up (batch never
// blocks). The frames queued before are written as they were.
func TestSinkBehind(t *testing.T) {
	const fft = 2
	rw := &rowRecorder{bins: 2, hold: make(chan struct{})}
	total := 100000
	s := New(rw, 0, 1, fft/2+1, total)
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
		s.Batch(out)
	}
	if s.Dropped < 2*chunkRows || s.Dropped > 3*chunkRows {
		t.Fatalf("%d frames dropped with the writer stuck: want the last 2 or 3 batches' (%d per batch)", s.Dropped, chunkRows)
	}
	close(rw.hold) // the writer goes on
	for len(s.free) == 0 {
		time.Sleep(time.Millisecond)
	}
	setColumns(out, []int64{int64(batches * chunkRows)}, zeros[:2])
	s.Batch(out)
	s.Close(s.Next)
	if s.Written != batches*chunkRows+1 || s.Gaps != s.Dropped {
		t.Fatalf("written %d, gaps %d, dropped %d", s.Written, s.Gaps, s.Dropped)
	}
	kept := batches*chunkRows - s.Dropped
	for i, row := range rw.rows {
		gap := math.IsNaN(float64(row[0]))
		if gap != (i >= kept && i < batches*chunkRows) || !gap && math.Abs(float64(row[0])) > 1e-6 {
			t.Fatalf("row %d = %v: want the first %d frames at 0 dB, then %d gap rows, then 0 dB", i, row, kept, s.Dropped)
		}
	}
}

// TestSinkAllocs: in the steady state the sink allocates
// nothing per frame, on the engine goroutine or in its writer (NPY to a
// file; PNG folding of the engine's columns).
func TestSinkAllocs(t *testing.T) {
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
		img := plot.ImageOptions{Width: 200, Height: 100}
		total := 1 << 20
		var rw encode.RowWriter
		if format == encode.FormatNPY {
			rw, err = encode.NewNPYRows(o, bins)
		} else {
			rw = NewImage(o, plot.NewSpectrogram(img, plot.Geometry{Rate: 48000, FFT: fft, Hop: fft / 4, Frames: total}), total)
		}
		if err != nil {
			t.Fatal(err)
		}
		s := New(rw, -1, 2, bins, total)
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
					ids[i] %= int64(img.Width)
				}
			}
			copy(out.ColumnIDs, ids)
			out.NumColumns = batch
			next += batch
			s.Batch(out)
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
		s.Close(s.Next)
		if s.Err != nil || s.Dropped != 0 {
			t.Fatal(s.Err, s.Dropped)
		}
	}
}

// TestImageGridMaxColumns: no batch of n frames touches more columns of a
// capture image's grid than the live plan is sized for (one more is kept
// for a column a gap left open), with more columns than frames or fewer.
func TestImageGridMaxColumns(t *testing.T) {
	for _, g := range []ImageGrid{{1000, 90}, {1920, 43}, {64, 90}, {1920, 720000}, {7, 7}} {
		for _, n := range []int{1, 2, 6, 20} {
			for f0 := 0; f0+n <= g.Frames; f0 += max(1, g.Frames/500) {
				first, _ := g.FrameColumns(int64(f0))
				_, last := g.FrameColumns(int64(f0 + n - 1))
				if touched := int(last - first + 1); touched > g.MaxColumns(n)-1 {
					t.Fatalf("grid %+v: frames %d…%d touch %d columns, sized for %d", g, f0, f0+n-1, touched, g.MaxColumns(n)-1)
				}
			}
		}
	}
}
