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
// for frames lost from the timeline. The engine goroutine only copies its
// channel's powers into a chunk and queues it (batch); a writer goroutine
// converts them to dB and writes them, so the writer's work (a CSV line
// is 1.6 ms at N=16384 here) runs beside the analysis, not in its way. The
// queue is bounded (sinkQueueBytes): when the writer falls that far
// behind, the frames that find no free chunk are dropped (counted in
// dropped) and written as gap rows, so the file keeps real time and says
// what it lost, and the analysis itself never falls behind for it.
type captureSink struct {
	ch, total, bins int
	gain            []float32 // the plan's gains, copied at the first batch

	// the engine goroutine's
	next      int // timeline frame after the last one queued or dropped
	dropped   int // frames dropped because the writer was behind
	free      chan *rowChunk
	queue     chan *rowChunk
	chunks    int // allocated so far, at most cap(queue)
	failed    atomic.Bool
	closeOnce sync.Once
	done      chan struct{}

	// the writer goroutine's (the caller's after close)
	rw            encode.RowWriter
	written, gaps int
	db            []float32 // one chunk's dB rows
	gap           []float32 // one row of NaN
	err           error
}

// rowChunk is up to chunkRows frames of one channel's powers, from
// timeline frame first.
type rowChunk struct {
	first, n int
	pow      []float32
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
	for k := range s.gap {
		s.gap[k] = float32(math.NaN())
	}
	go s.write()
	return s
}

// batch is Live's onBatch: it queues its channel's frames first…first+n
// for the writer (or drops them if the writer is too far behind). It does
// not block, and allocates only while the queue grows.
func (s *captureSink) batch(first uint64, n int, out, gain2 []float32) {
	if s.gain == nil {
		s.gain = append([]float32(nil), gain2...)
	}
	bins := s.bins
	base := s.ch * n * bins // out is channels×n×bins
	n = min(n, s.total-int(min(first, uint64(s.total))))
	for f := 0; f < n; {
		k := min(chunkRows, n-f)
		c := s.chunk()
		if c == nil {
			s.dropped += k
		} else {
			c.first, c.n = int(first)+f, k
			copy(c.pow, out[base+f*bins:base+(f+k)*bins])
			s.queue <- c // never blocks: the queue holds every chunk
		}
		f += k
	}
	s.next = max(s.next, int(min(first+uint64(n), uint64(s.total))))
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
		return &rowChunk{pow: make([]float32, chunkRows*s.bins)}
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
			s.db = s.db[:0]
			for f := range c.n {
				s.db = gpufft.AppendPowerDB(s.db, c.pow[f*s.bins:(f+1)*s.bins], s.gain)
			}
			if s.err == nil {
				s.err = s.rw.Rows(s.written, s.db)
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
	s.closeOnce.Do(func() { close(s.queue) })
	<-s.done
	s.padTo(to)
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

// Finish encodes the image.
func (p *imageRows) Finish(int) error {
	if err := encode.PNG(p.o.W, p.layout.Render(p.pix)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
