package encode

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// RowWriter writes spectrogram rows (dBFS, N/2+1 bins each) to an Output:
// the formats `prism analyze` and `prism capture` share.
type RowWriter interface {
	// Rows writes consecutive frames, the first being frame number first.
	Rows(first int, db []float32) error
	// Finish completes the file after frames rows (it does not commit).
	Finish(frames int) error
}

// NPYRows writes NumPy v1.0 files of little-endian float32, shape (frames,
// bins), streamed: the header's shape is written last (a fixed 128-byte
// header, space-padded).
type NPYRows struct {
	o    *Output
	bins int
	raw  []byte
}

const npyHeaderLen = 128

// littleEndian says whether float32 values sit in memory as NPY's '<f4'.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// NewNPYRows starts an NPY file of rows of bins values on o.
func NewNPYRows(o *Output, bins int) (*NPYRows, error) {
	if _, err := o.W.Write(NPYHeader(0, bins)); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return &NPYRows{o: o, bins: bins}, nil
}

// NPYHeader is the 128-byte NumPy format v1.0 header for a little-endian
// float32 array of shape (rows, cols), C order.
func NPYHeader(rows, cols int) []byte {
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	h := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(h[8:], npyHeaderLen-10)
	h = append(h, dict...)
	for len(h) < npyHeaderLen-1 {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// Rows writes frames' levels; it allocates only when a batch is larger
// than any before. On a little-endian host the values' memory is already
// the file's bytes and is written as it is (converting a 10-minute file's
// 230 MB first took a fifth of `prism analyze` to NPY).
func (n *NPYRows) Rows(_ int, db []float32) error {
	if len(db) == 0 {
		return nil
	}
	if littleEndian {
		if _, err := n.o.W.Write(unsafe.Slice((*byte)(unsafe.Pointer(&db[0])), 4*len(db))); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
	if cap(n.raw) < 4*len(db) {
		n.raw = make([]byte, 4*len(db))
	}
	raw := n.raw[:4*len(db)]
	for i, v := range db {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	if _, err := n.o.W.Write(raw); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Finish writes the header with the final shape.
func (n *NPYRows) Finish(frames int) error {
	return n.o.WriteAt(NPYHeader(frames, n.bins), 0)
}

// CSVRows writes a header time_s, then each bin's centre frequency in Hz,
// and one row per frame at the time of the frame's centre.
type CSVRows struct {
	o       *Output
	bins, n int
	hop     int
	rate    float64
	line    []byte
}

// NewCSVRows starts a CSV of n-point frames hop samples apart at rate Hz
// on o.
func NewCSVRows(o *Output, n, hop, rate int) (*CSVRows, error) {
	c := &CSVRows{o: o, bins: n/2 + 1, n: n, hop: hop, rate: float64(rate)}
	line := []byte("time_s")
	for k := range c.bins {
		line = append(line, ',')
		line = strconv.AppendFloat(line, float64(k)*c.rate/float64(n), 'f', -1, 64)
	}
	line = append(line, '\n')
	if _, err := o.W.Write(line); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return c, nil
}

// Rows writes frames' levels, one line each.
func (c *CSVRows) Rows(first int, db []float32) error {
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
		if _, err := c.o.W.Write(line); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

// Finish flushes what is buffered.
func (c *CSVRows) Finish(int) error {
	if err := c.o.W.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
