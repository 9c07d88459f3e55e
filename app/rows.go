package app

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/prismaudio/prism/gpufft"
)

// rowWriter writes spectra (dBFS rows of N/2+1 bins) as NPY or CSV, the
// formats `prism analyze` and `prism capture` share.
type rowWriter interface {
	// rows writes consecutive frames, the first being frame number first.
	rows(first int, db []float32) error
	// finish completes the file (f is the file behind the writer) after
	// frames rows.
	finish(f *os.File, frames int) error
}

// ---- NPY: float32 dBFS, shape (frames, N/2+1), streamed; the header's
// shape is written last (fixed 128-byte header, space-padded).

type npyRows struct {
	w    *bufio.Writer
	bins int
	raw  []byte
}

const npyHeaderLen = 128

func newNPYRows(w *bufio.Writer, bins int) (*npyRows, error) {
	if _, err := w.Write(npyHeader(0, bins)); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return &npyRows{w: w, bins: bins}, nil
}

// npyHeader is NumPy format v1.0 for little-endian float32, C order.
func npyHeader(rows, cols int) []byte {
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	h := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(h[8:], npyHeaderLen-10)
	h = append(h, dict...)
	for len(h) < npyHeaderLen-1 {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

func (n *npyRows) rows(_ int, db []float32) error {
	if cap(n.raw) < 4*len(db) {
		n.raw = make([]byte, 4*len(db))
	}
	raw := n.raw[:4*len(db)]
	for i, v := range db {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	if _, err := n.w.Write(raw); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

func (n *npyRows) finish(f *os.File, frames int) error {
	if err := n.w.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if _, err := f.WriteAt(npyHeader(frames, n.bins), 0); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// ---- CSV: header time_s, then each bin's centre frequency in Hz; one row
// per frame at the time of the frame's centre.

type csvRows struct {
	w       *bufio.Writer
	bins, n int
	hop     int
	rate    float64
	line    []byte
}

func newCSVRows(w *bufio.Writer, n, hop, rate int) (*csvRows, error) {
	c := &csvRows{w: w, bins: n/2 + 1, n: n, hop: hop, rate: float64(rate)}
	line := []byte("time_s")
	for k := range c.bins {
		line = append(line, ',')
		line = strconv.AppendFloat(line, float64(k)*c.rate/float64(n), 'f', -1, 64)
	}
	line = append(line, '\n')
	if _, err := w.Write(line); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return c, nil
}

func (c *csvRows) rows(first int, db []float32) error {
	for f := range len(db) / c.bins {
		line := c.line[:0]
		t := (float64((first+f)*c.hop) + float64(c.n)/2) / c.rate
		line = strconv.AppendFloat(line, t, 'f', -1, 64)
		for _, v := range db[f*c.bins : (f+1)*c.bins] {
			line = append(line, ',')
			line = strconv.AppendFloat(line, float64(v), 'g', -1, 32)
		}
		line = append(line, '\n')
		c.line = line
		if _, err := c.w.Write(line); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

func (c *csvRows) finish(*os.File, int) error {
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// ---- PNG from dB rows on the host (capture; analyze reduces on the engine)

type pngRows struct {
	layout *plotLayout
	ic     gpufft.ImageConfig
	w      *bufio.Writer
	pix    []float32
	bins   int
}

func newPNGRows(w *bufio.Writer, layout *plotLayout, bins int) *pngRows {
	ic := layout.imageConfig()
	p := &pngRows{layout: layout, ic: ic, w: w, pix: make([]float32, ic.Columns*ic.Rows()), bins: bins}
	for i := range p.pix {
		p.pix[i] = gpufft.FloorDB
	}
	return p
}

// rows folds frames into the pixels they cover by maximum, as the engines'
// image plans do.
func (p *pngRows) rows(first int, db []float32) error {
	rows := p.ic.Rows()
	for f := range len(db) / p.bins {
		frame := first + f
		row := db[f*p.bins : (f+1)*p.bins]
		// columns whose frame range holds this frame (more than one when
		// frames are fewer than columns)
		c := int(int64(frame) * int64(p.ic.Columns) / int64(p.ic.TotalFrames))
		for c > 0 {
			if _, hi := p.ic.ColumnFrames(c - 1); hi <= frame {
				break
			}
			c--
		}
		for ; c < p.ic.Columns; c++ {
			lo, hi := p.ic.ColumnFrames(c)
			if lo > frame {
				break
			}
			if frame >= hi {
				continue
			}
			col := p.pix[c*rows : (c+1)*rows]
			for r := range col {
				for _, v := range row[p.ic.RowLo[r]:p.ic.RowHi[r]] {
					col[r] = max(col[r], v)
				}
			}
		}
	}
	return nil
}

func (p *pngRows) finish(*os.File, int) error {
	if err := p.layout.encode(p.w, p.pix); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
