package live

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/gpufft"
)

// captureSink writes one output channel's frames as dB rows, and gap rows
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
type captureSink struct {
	ch, total, bins int
	img             *imageRows // the image's writer, nil for rows
	origin          int        // the timeline frame of row 0 (a recording's start)

	// the engine goroutine's
	next      int // timeline frame after the last one queued or dropped
	dropped   int // frames dropped because the writer was behind
	cur       *rowChunk
	free      chan *rowChunk
	queue     chan *rowChunk
	chunks    int // allocated so far, at most cap(queue)
	failed    atomic.Bool
	closeOnce sync.Once
	done      chan struct{}

	// the writer goroutine's (the caller's after close; the engine
	// goroutine's for an image)
	rw            encode.RowWriter
	written, gaps int
	gap           []float32 // one row of NaN
	err           error
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

func newCaptureSink(rw encode.RowWriter, opts CaptureOptions, channels, total int) *captureSink {
	ch := channels // the mix is output channel `channels`
	if opts.Channel >= 0 {
		ch = opts.Channel
	}
	bins := opts.FFT/2 + 1
	chunks := min(max(sinkQueueBytes/(4*chunkRows*bins), 4), 1024)
	s := &captureSink{rw: rw, ch: ch, total: total, bins: bins, gap: make([]float32, bins),
		free: make(chan *rowChunk, chunks), queue: make(chan *rowChunk, chunks), done: make(chan struct{})}
	s.img, _ = rw.(*imageRows)
	for k := range s.gap {
		s.gap[k] = float32(math.NaN())
	}
	go s.write()
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

// batch is Live's onBatch: it takes only its channel of the completed
// columns. Rows are queued for the writer (or dropped if the writer is too
// far behind); image columns are folded at once. It does not block, and
// allocates only while the queue grows.
func (s *captureSink) batch(out *gpufft.LiveOutput) {
	for j := range out.NumColumns {
		id := int(out.ColumnIDs[j]) - s.origin // a frame, or a pixel column of the image
		if id < 0 {
			continue
		}
		col := out.Column(j, s.ch)
		if s.img != nil {
			if s.err == nil {
				lo, hi := plot.ColumnFrames(id, s.img.layout.Columns(), s.total)
				s.gaps += max(0, lo-s.written)
				s.img.column(id, col)
				s.written = max(s.written, hi)
				s.next = s.written
			}
			continue
		}
		if id >= s.total {
			break
		}
		s.row(id, col)
	}
	s.flush()
}

// row adds frame id's dB row to the chunk being filled, starting another
// (and queueing the full one) at a jump in the timeline.
func (s *captureSink) row(id int, db []float32) {
	if c := s.cur; c != nil && (c.first+c.n != id || c.n == chunkRows) {
		s.flush()
	}
	if s.cur == nil {
		if s.cur = s.chunk(); s.cur == nil {
			s.dropped++
			s.next = max(s.next, id+1)
			return
		}
		s.cur.first, s.cur.n = id, 0
	}
	c := s.cur
	copy(c.db[c.n*s.bins:(c.n+1)*s.bins], db)
	c.n++
	s.next = max(s.next, id+1)
}

// flush queues the chunk being filled.
func (s *captureSink) flush() {
	if s.cur != nil {
		s.queue <- s.cur // never blocks: the queue holds every chunk
		s.cur = nil
	}
}

// chunk is a free chunk, a new one while fewer than the queue holds
// exist, or nil.
func (s *captureSink) chunk() *rowChunk {
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
func (s *captureSink) write() {
	defer close(s.done)
	for c := range s.queue {
		if s.err == nil {
			s.padTo(c.first)
			if s.err == nil {
				s.err = s.rw.Rows(s.written, c.db[:c.n*s.bins])
				s.written += c.n
			}
			if s.err != nil {
				s.failed.Store(true)
			}
		}
		s.free <- c
	}
}

// padTo writes gap rows up to frame n.
func (s *captureSink) padTo(n int) {
	for s.err == nil && s.written < min(n, s.total) {
		s.err = s.rw.Rows(s.written, s.gap)
		s.written++
		s.gaps++
	}
}

// close ends the writer once it has written everything queued, and then
// writes gap rows up to frame `to` (the end of the timeline when the
// source stopped for good). After it, the caller owns written, gaps and
// err. The engine goroutine calls it; twice is harmless.
func (s *captureSink) close(to int) {
	s.closeOnce.Do(func() {
		s.flush()
		close(s.queue)
	})
	<-s.done
	s.padTo(to)
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
func (p *imageRows) column(col int, db []float32) {
	rows := p.layout.Rows()
	pix := p.pix[col*rows : (col+1)*rows]
	for r := range pix {
		pix[r] = plot.MaxLevel(pix[r], db[p.lo[r]:p.hi[r]])
	}
}

// Finish encodes the image.
func (p *imageRows) Finish(int) error {
	if err := encode.PNG(p.o.W, p.layout.Render(p.pix)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
