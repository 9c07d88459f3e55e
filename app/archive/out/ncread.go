package out

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Part is a NetCDF file this package wrote, opened for reading its rows:
// a shard's part for `prism ltsa merge`.
type Part struct {
	Meta Meta
	Rows int // records
	f    *os.File
	h    ncHeader
	rec  int64 // bytes per record
	at   int64 // first record's offset
}

// ErrNotOurs is returned by OpenPart for a file that is not a NetCDF
// file in the layout this package writes.
var ErrNotOurs = errors.New("not a NetCDF file written by prism ltsa")

// OpenPart opens path and reads its header and fixed variables.
func OpenPart(path string) (*Part, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("out: %w", err)
	}
	p := &Part{f: f}
	if err := p.readHeader(bufio.NewReader(f)); err != nil {
		f.Close()
		return nil, fmt.Errorf("out: %s: %w", path, err)
	}
	return p, nil
}

// Close closes the file; calling it twice is harmless.
func (p *Part) Close() error {
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	p.f = nil
	return err
}

// ncReader decodes the header's big-endian fields, remembering the first
// error.
type ncReader struct {
	r   io.Reader
	err error
}

func (d *ncReader) u32() uint32 {
	var b [4]byte
	if d.err == nil {
		_, d.err = io.ReadFull(d.r, b[:])
	}
	return binary.BigEndian.Uint32(b[:])
}

func (d *ncReader) bytes(n int64) []byte {
	if d.err != nil || n > 1<<24 {
		if d.err == nil {
			d.err = ErrNotOurs
		}
		return nil
	}
	b := make([]byte, pad4(n))
	_, d.err = io.ReadFull(d.r, b)
	return b[:n]
}

func (d *ncReader) name() string { return string(d.bytes(int64(d.u32()))) }

func (d *ncReader) attrs() []ncAttr {
	tag, n := d.u32(), d.u32()
	if tag == 0 {
		return nil
	}
	var out []ncAttr
	for range min(n, 1<<16) {
		name, typ, cnt := d.name(), d.u32(), int64(d.u32())
		b := d.bytes(cnt * typeSize(int32(typ)))
		if d.err != nil {
			return nil
		}
		switch {
		case typ == ncChar:
			out = append(out, ncAttr{name, string(b)})
		case typ == ncDouble && cnt == 1:
			out = append(out, ncAttr{name, math.Float64frombits(binary.BigEndian.Uint64(b))})
		case typ == ncFloat && cnt == 1:
			out = append(out, ncAttr{name, math.Float32frombits(binary.BigEndian.Uint32(b))})
		case typ == ncInt && cnt == 1:
			out = append(out, ncAttr{name, int32(binary.BigEndian.Uint32(b))})
		default:
			d.err = ErrNotOurs
		}
	}
	return out
}

// readHeader reads the header and turns it into p.Meta.
func (p *Part) readHeader(r io.Reader) error {
	d := &ncReader{r: r}
	magic := d.bytes(4)
	if d.err != nil || string(magic) != "CDF\x02" {
		return ErrNotOurs
	}
	p.Rows = int(d.u32())
	if d.u32() != ncDimension && d.err == nil {
		return ErrNotOurs
	}
	for range min(d.u32(), 16) {
		p.h.dimNames = append(p.h.dimNames, d.name())
		p.h.dimLens = append(p.h.dimLens, int(d.u32()))
	}
	p.h.attrs = d.attrs()
	if d.u32() != ncVariable && d.err == nil {
		return ErrNotOurs
	}
	for range min(d.u32(), 16) {
		v := ncVar{name: d.name()}
		for range min(d.u32(), 4) {
			v.dims = append(v.dims, int(d.u32()))
		}
		v.attrs = d.attrs()
		v.typ = int32(d.u32())
		d.u32() // vsize: recomputed by layout
		hi, lo := d.u32(), d.u32()
		v.begin = int64(hi)<<32 | int64(lo)
		p.h.vars = append(p.h.vars, v)
	}
	if d.err != nil {
		return fmt.Errorf("%w: %v", ErrNotOurs, d.err)
	}
	return p.metaOf()
}

// metaOf rebuilds Meta from the header and the fixed variables, and
// checks the header is the one headerOf writes for it.
func (p *Part) metaOf() error {
	h := &p.h
	if len(h.attrs) < 3 || h.attrs[2].name != "prism_kind" {
		return ErrNotOurs
	}
	m := Meta{Title: str(h.attrs[1].value), Kind: str(h.attrs[2].value)}
	for _, a := range h.attrs[3:] {
		if a.name == "prism_shard" {
			m.Shard = str(a.value)
			continue
		}
		m.Attrs = append(m.Attrs, Attr{a.name, a.value})
	}
	for _, v := range h.vars {
		if v.name == "level" && len(v.attrs) > 0 {
			m.Unit = str(v.attrs[0].value)
		}
	}
	var err error
	if m.FreqHz, err = p.fixed("frequency"); err != nil {
		return err
	}
	if bounds, err := p.fixed("frequency_bounds"); err != nil {
		return err
	} else if bounds != nil {
		for i := 0; i+1 < len(bounds); i += 2 {
			m.BandLoHz, m.BandHiHz = append(m.BandLoHz, bounds[i]), append(m.BandHiHz, bounds[i+1])
		}
	}
	if m.Percentiles, err = p.fixed("percentile"); err != nil {
		return err
	}
	p.Meta = m
	want := headerOf(&m)
	_, p.rec, p.at = want.layout()
	_, _, _ = p.h.layout()
	if string(want.encode(p.Rows)) != string(p.h.encode(p.Rows)) {
		return fmt.Errorf("%w (its header differs from the one prism writes)", ErrNotOurs)
	}
	return nil
}

func str(v any) string { s, _ := v.(string); return s }

// fixed reads the float64 values of the fixed variable name (nil if
// there is none).
func (p *Part) fixed(name string) ([]float64, error) {
	for _, v := range p.h.vars {
		if v.name != name || v.typ != ncDouble || p.h.isRecord(&v) {
			continue
		}
		n := int64(1)
		for _, d := range v.dims {
			n *= int64(p.h.dimLens[d])
		}
		b := make([]byte, 8*n)
		if _, err := p.f.ReadAt(b, v.begin); err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(b[8*i:]))
		}
		return out, nil
	}
	return nil, nil
}

// Each calls fn with each row in file order; the row's Level is reused
// between calls.
func (p *Part) Each(fn func(Row) error) error {
	F := len(p.Meta.FreqHz)
	r := bufio.NewReaderSize(io.NewSectionReader(p.f, p.at, int64(p.Rows)*p.rec), 1<<20)
	b := make([]byte, p.rec)
	row := Row{Level: make([]float32, F)}
	for range p.Rows {
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("out: read %s: %w", p.f.Name(), err)
		}
		row.Start = timeOf(math.Float64frombits(binary.BigEndian.Uint64(b)))
		row.Seconds = math.Float64frombits(binary.BigEndian.Uint64(b[8:]))
		for i := range row.Level {
			row.Level[i] = math.Float32frombits(binary.BigEndian.Uint32(b[16+4*i:]))
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}
