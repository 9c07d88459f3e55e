// Package rowsink is the outage-aware spectrogram file of Prism's live
// analysis, shared by `prism capture` (package capture) and Live's
// full-resolution recording: Sink takes one output channel's dB columns
// from each batch the engine completes and writes them as rows through an
// encode.RowWriter on a writer goroutine of its own, with gap rows (NaN)
// where frames were lost, so a file keeps real time; Image folds rows or
// the engine's pixel columns into a PNG spectrogram, and ImageGrid is its
// column rule as the engine's column grid. It knows nothing of the
// analyzer (package live), devices or windows; the Sink's fields say which
// goroutine owns them.
package rowsink

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/gpufft"
)

// Sink writes one output channel's frames as dB rows, and gap rows
// for frames lost from the timeline; or, for an image, folds the columns
// the engine folded into their pixel columns (cheap: one spectrum per
// pixel column, on the engine goroutine). For rows, the engine goroutine
// only copies its channel's dB columns (one per frame) into a chunk and
// queues it (batch); a writer goroutine writes them, so the writer's work
// (a CSV line is 1.6 ms at N=16384 here) runs beside the analysis, not in
// its way. The queue is bounded (sinkQueueBytes): when the writer falls
// that far behind, the frames that find no free chunk are dropped
// (counted in dropped) and written as gap rows, so the file keeps real
// time and says what it lost, and the analysis itself never falls behind
// for it.
type Sink struct {
	Ch     int    // the output channel written (the mix is the input's channel count)
	Total  int    // the timeline's frames
	Origin int    // the timeline frame of row 0 (a recording's start)
	bins   int    // per row
	img    *Image // the image's writer, nil for rows

	// the engine goroutine's
	Next      int // timeline frame after the last one queued or dropped
	Dropped   int // frames dropped because the writer was behind
	cur       *rowChunk
	free      chan *rowChunk
	queue     chan *rowChunk
	chunks    int         // allocated so far, at most cap(queue)
	Failed    atomic.Bool // the writer failed (Err says why once closed)
	closeOnce sync.Once
	done      chan struct{}

	// the writer goroutine's (the caller's after close; the engine
	// goroutine's for an image)
	RW            encode.RowWriter
	Written, Gaps int
	gap           []float32 // one row of NaN
	Err           error
}

// rowChunk is up to chunkRows consecutive frames of one channel's dB
// rows, from timeline frame first.
type rowChunk struct {
	first, n int
	db       []float32
}

const (
	chunkRows      = 32
	sinkQueueBytes = 16 << 20 // at N=16384, 512 frames: 0.17 s at 3000 frames/s
)

// New starts a sink writing the rows of bins values (an FFT's size/2 + 1)
// of channel (0-based; −1 the mix, output channel `channels`) through rw
// (an *Image folds pixel columns instead), for a timeline of total
// frames, and its writer goroutine, which Close ends.
func New(rw encode.RowWriter, channel, channels, bins, total int) *Sink {
	ch := channels // the mix is output channel `channels`
	if channel >= 0 {
		ch = channel
	}
	chunks := min(max(sinkQueueBytes/(4*chunkRows*bins), 4), 1024)
	s := &Sink{RW: rw, Ch: ch, Total: total, bins: bins, gap: make([]float32, bins),
		free: make(chan *rowChunk, chunks), queue: make(chan *rowChunk, chunks), done: make(chan struct{})}
	s.img, _ = rw.(*Image)
	for k := range s.gap {
		s.gap[k] = float32(math.NaN())
	}
	go s.write()
	return s
}

// Grid is the columns the engine folds for the sink: the image's pixel
// columns (plot.ColumnFrames over the whole capture), else every frame.
func (s *Sink) Grid() gpufft.ColumnGrid {
	if s.img != nil {
		return ImageGrid{Columns: s.img.layout.Columns(), Frames: s.Total}
	}
	return gpufft.FixedColumns{Frames: 1}
}

// Batch is Live's batch hook (live.Live.OnBatch): it takes only its channel of the completed
// columns. Rows are queued for the writer (or dropped if the writer is too
// far behind); image columns are folded at once. It does not block, and
// allocates only while the queue grows.
func (s *Sink) Batch(out *gpufft.LiveOutput) {
	for j := range out.NumColumns {
		id := int(out.ColumnIDs[j]) - s.Origin // a frame, or a pixel column of the image
		if id < 0 {
			continue
		}
		col := out.Column(j, s.Ch)
		if s.img != nil {
			if s.Err == nil {
				lo, hi := plot.ColumnFrames(id, s.img.layout.Columns(), s.Total)
				s.Gaps += max(0, lo-s.Written)
				s.img.column(id, col)
				s.Written = max(s.Written, hi)
				s.Next = s.Written
			}
			continue
		}
		if id >= s.Total {
			break
		}
		s.row(id, col)
	}
	s.flush()
}

// row adds frame id's dB row to the chunk being filled, starting another
// (and queueing the full one) at a jump in the timeline.
func (s *Sink) row(id int, db []float32) {
	if c := s.cur; c != nil && (c.first+c.n != id || c.n == chunkRows) {
		s.flush()
	}
	if s.cur == nil {
		if s.cur = s.chunk(); s.cur == nil {
			s.Dropped++
			s.Next = max(s.Next, id+1)
			return
		}
		s.cur.first, s.cur.n = id, 0
	}
	c := s.cur
	copy(c.db[c.n*s.bins:(c.n+1)*s.bins], db)
	c.n++
	s.Next = max(s.Next, id+1)
}

// flush queues the chunk being filled.
func (s *Sink) flush() {
	if s.cur != nil {
		s.queue <- s.cur // never blocks: the queue holds every chunk
		s.cur = nil
	}
}

// chunk is a free chunk, a new one while fewer than the queue holds
// exist, or nil.
func (s *Sink) chunk() *rowChunk {
	select {
	case c := <-s.free:
		return c
	default:
	}
	if s.chunks < cap(s.queue) {
		s.chunks++
		return &rowChunk{db: make([]float32, chunkRows*s.bins)}
	}
	return nil
}

// write is the writer goroutine: each chunk after the gap rows before it.
// After an error it only returns the chunks.
func (s *Sink) write() {
	defer close(s.done)
	for c := range s.queue {
		if s.Err == nil {
			s.PadTo(c.first)
			if s.Err == nil {
				s.Err = s.RW.Rows(s.Written, c.db[:c.n*s.bins])
				s.Written += c.n
			}
			if s.Err != nil {
				s.Failed.Store(true)
			}
		}
		s.free <- c
	}
}

// PadTo writes gap rows up to frame n.
func (s *Sink) PadTo(n int) {
	for s.Err == nil && s.Written < min(n, s.Total) {
		s.Err = s.RW.Rows(s.Written, s.gap)
		s.Written++
		s.Gaps++
	}
}

// Close ends the writer once it has written everything queued, and then
// writes gap rows up to frame `to` (the end of the timeline when the
// source stopped for good). After it, the caller owns Written, Gaps and
// Err. The engine goroutine calls it; twice is harmless.
func (s *Sink) Close(to int) {
	s.closeOnce.Do(func() {
		s.flush()
		close(s.queue)
	})
	<-s.done
	s.PadTo(to)
}

// ImageGrid is plot's column rule (Columns pixel columns over Frames
// frames) as the engine's column grid.
type ImageGrid struct{ Columns, Frames int }

// MaxColumns is the most columns a batch of n frames completes: each
// frame is in at most ⌈columns/frames⌉ + 1 of them (nearest-frame
// columns), and there are no more than all of them.
func (g ImageGrid) MaxColumns(n int) int {
	return min(g.Columns, n*((g.Columns+g.Frames-1)/g.Frames+1)) + 1
}

// ColumnFrames is gpufft.ColumnGrid's: the frames pixel column col shows.
func (g ImageGrid) ColumnFrames(col int64) (int64, int64) {
	lo, hi := plot.ColumnFrames(int(col), g.Columns, g.Frames)
	return int64(lo), int64(hi)
}

// FrameColumns is gpufft.ColumnGrid's: the pixel columns frame f shows in.
func (g ImageGrid) FrameColumns(f int64) (int64, int64) {
	first, last := plot.FrameColumns(int(min(f, int64(g.Frames-1))), g.Columns, g.Frames)
	return int64(first), int64(last)
}

// Image folds dB rows into a spectrogram image on the host, by the
// same rule as the engines' image plans (plot.ColumnFrames), and writes it
// as PNG at the end.
type Image struct {
	o      *encode.Output
	layout *plot.Spectrogram
	lo, hi []int32 // each row's bins
	pix    []float32
	bins   int // per dB row
	total  int
}

// NewImage is an image of layout over total frames, written to o by
// Finish.
func NewImage(o *encode.Output, layout *plot.Spectrogram, total int) *Image {
	lo, hi := layout.RowBins()
	p := &Image{o: o, layout: layout, lo: lo, hi: hi, pix: make([]float32, layout.Columns()*layout.Rows()),
		bins: int(hi[len(hi)-1]), total: total}
	for i := range p.pix {
		p.pix[i] = gpufft.FloorDB
	}
	return p
}

// Rows folds frames into the columns that show them, by maximum; gap
// rows (NaN) leave their columns at the floor.
func (p *Image) Rows(first int, db []float32) error {
	bins := p.bins
	for f := range len(db) / bins {
		row := db[f*bins : (f+1)*bins]
		if math.IsNaN(float64(row[0])) {
			continue
		}
		c0, c1 := plot.FrameColumns(first+f, p.layout.Columns(), p.total)
		for c := c0; c <= c1; c++ {
			p.column(c, row)
		}
	}
	return nil
}

// column folds pixel column col's spectrum (dB, folded on the engine over
// the column's frames) into its rows by maximum.
func (p *Image) column(col int, db []float32) {
	rows := p.layout.Rows()
	pix := p.pix[col*rows : (col+1)*rows]
	for r := range pix {
		pix[r] = plot.MaxLevel(pix[r], db[p.lo[r]:p.hi[r]])
	}
}

// Finish encodes the image.
func (p *Image) Finish(int) error {
	if err := encode.PNG(p.o.W, p.layout.Render(p.pix)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Pending is how many of the queue's chunks are not free: being filled,
// queued or being written. The engine goroutine calls it (tests wait on
// it for the writer to catch up).
func (s *Sink) Pending() int { return s.chunks - len(s.free) }
