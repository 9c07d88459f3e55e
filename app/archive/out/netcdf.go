package out

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/encode"
)

// NetCDF classic-format tags and types (the NetCDF classic format
// specification, "netcdf_file" grammar).
const (
	ncDimension = 0x0A
	ncVariable  = 0x0B
	ncAttribute = 0x0C

	ncChar   = 2
	ncInt    = 4
	ncFloat  = 5
	ncDouble = 6
)

// ncAttr is one attribute; value is a string, float64, float32, int32 or
// []float64.
type ncAttr struct {
	name  string
	value any
}

// ncVar is a variable: its dimensions (indices into the header's
// dimensions; dimension 0 is the unlimited time) and type.
type ncVar struct {
	name  string
	dims  []int
	typ   int32
	attrs []ncAttr
	begin int64 // set by layout
	vsize int64
}

// ncHeader is a file's dimensions, attributes and variables.
type ncHeader struct {
	dimNames []string
	dimLens  []int // 0: unlimited
	attrs    []ncAttr
	vars     []ncVar
}

// Offset of numrecs in a CDF-2 file.
const numrecsOffset = 4

func typeSize(t int32) int64 {
	switch t {
	case ncChar:
		return 1
	case ncInt, ncFloat:
		return 4
	}
	return 8
}

func pad4(n int64) int64 { return (n + 3) &^ 3 }

// isRecord says whether v varies along the unlimited dimension.
func (h *ncHeader) isRecord(v *ncVar) bool {
	return len(v.dims) > 0 && h.dimLens[v.dims[0]] == 0
}

// layout sets each variable's vsize and begin and returns the header
// length, the size of one record and where records start.
func (h *ncHeader) layout() (headerLen, recSize, recBegin int64) {
	for i := range h.vars {
		v := &h.vars[i]
		n := typeSize(v.typ)
		for _, d := range v.dims {
			if h.dimLens[d] != 0 {
				n *= int64(h.dimLens[d])
			}
		}
		v.vsize = pad4(n)
	}
	headerLen = int64(len(h.encode(0)))
	off := headerLen
	for i := range h.vars {
		if v := &h.vars[i]; !h.isRecord(v) {
			v.begin, off = off, off+v.vsize
		}
	}
	recBegin = off
	for i := range h.vars {
		if v := &h.vars[i]; h.isRecord(v) {
			v.begin, off = off, off+v.vsize
			recSize += v.vsize
		}
	}
	return headerLen, recSize, recBegin
}

// encode writes the header with numrecs records.
func (h *ncHeader) encode(numrecs int) []byte {
	b := []byte("CDF\x02")
	b = be32(b, uint32(numrecs))
	b = be32(b, ncDimension)
	b = be32(b, uint32(len(h.dimNames)))
	for i, name := range h.dimNames {
		b = ncName(b, name)
		b = be32(b, uint32(h.dimLens[i]))
	}
	b = ncAttrs(b, h.attrs)
	b = be32(b, ncVariable)
	b = be32(b, uint32(len(h.vars)))
	for _, v := range h.vars {
		b = ncName(b, v.name)
		b = be32(b, uint32(len(v.dims)))
		for _, d := range v.dims {
			b = be32(b, uint32(d))
		}
		b = ncAttrs(b, v.attrs)
		b = be32(b, uint32(v.typ))
		b = be32(b, uint32(min(v.vsize, math.MaxUint32)))
		b = binary.BigEndian.AppendUint64(b, uint64(v.begin))
	}
	return b
}

func be32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }

func ncName(b []byte, s string) []byte {
	b = be32(b, uint32(len(s)))
	b = append(b, s...)
	return padTo4(b, len(s))
}

func padTo4(b []byte, n int) []byte {
	for range int(pad4(int64(n))) - n {
		b = append(b, 0)
	}
	return b
}

func ncAttrs(b []byte, attrs []ncAttr) []byte {
	if len(attrs) == 0 {
		return append(b, 0, 0, 0, 0, 0, 0, 0, 0) // ABSENT
	}
	b = be32(b, ncAttribute)
	b = be32(b, uint32(len(attrs)))
	for _, a := range attrs {
		b = ncName(b, a.name)
		switch v := a.value.(type) {
		case string:
			b = be32(b, ncChar)
			b = be32(b, uint32(len(v)))
			b = append(b, v...)
			b = padTo4(b, len(v))
		case float64:
			b = be32(b, ncDouble)
			b = be32(b, 1)
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
		case []float64:
			b = be32(b, ncDouble)
			b = be32(b, uint32(len(v)))
			for _, x := range v {
				b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
			}
		case float32:
			b = be32(b, ncFloat)
			b = be32(b, 1)
			b = be32(b, math.Float32bits(v))
		case int32:
			b = be32(b, ncInt)
			b = be32(b, 1)
			b = be32(b, uint32(v))
		default:
			panic(fmt.Sprintf("out: attribute %s of type %T", a.name, a.value))
		}
	}
	return b
}

// ncWriter streams rows into a NetCDF file: the header and the fixed
// variables first, then one record per row; Commit writes the number of
// records and the percentiles into the header's place.
type ncWriter struct {
	o        *encode.Output
	h        ncHeader
	meta     Meta
	rows     int
	rec      []byte // one record's bytes, reused
	pctBegin int64  // where level_percentile's data go (HMD), 0 if none
	pct      []byte
}

// headerOf builds the CF header of m.
func headerOf(m *Meta) ncHeader {
	F := len(m.FreqHz)
	h := ncHeader{dimNames: []string{"time", "frequency"}, dimLens: []int{0, F}}
	h.attrs = []ncAttr{{"Conventions", "CF-1.8"}, {"title", m.Title}, {"prism_kind", m.Kind}}
	for _, a := range m.Attrs {
		h.attrs = append(h.attrs, ncAttr{a.Name, a.Value})
	}
	if m.Shard != "" {
		h.attrs = append(h.attrs, ncAttr{"prism_shard", m.Shard}) // last: a merge drops it
	}
	freq := ncVar{name: "frequency", dims: []int{1}, typ: ncDouble, attrs: []ncAttr{
		{"units", "Hz"}, {"long_name", "frequency"}, {"axis", "Y"}}}
	if m.BandLoHz != nil {
		h.dimNames, h.dimLens = append(h.dimNames, "nv"), append(h.dimLens, 2)
		freq.attrs = append(freq.attrs, ncAttr{"bounds", "frequency_bounds"})
	}
	h.vars = append(h.vars, freq)
	if m.BandLoHz != nil {
		h.vars = append(h.vars, ncVar{name: "frequency_bounds", dims: []int{1, 2}, typ: ncDouble,
			attrs: []ncAttr{{"units", "Hz"}, {"long_name", "band edges"}}})
	}
	if m.Percentiles != nil {
		p := len(h.dimNames)
		h.dimNames, h.dimLens = append(h.dimNames, "percentile"), append(h.dimLens, len(m.Percentiles))
		h.vars = append(h.vars,
			ncVar{name: "percentile", dims: []int{p}, typ: ncDouble, attrs: []ncAttr{
				{"units", "percent"}, {"long_name", "percentile of the time bins' levels (L5 … L95: the level exceeded that percent of the time is percentile 100−5 …)"}}},
			ncVar{name: "level_percentile", dims: []int{p, 1}, typ: ncFloat, attrs: []ncAttr{
				{"units", m.Unit}, {"long_name", "percentiles of level over the file's time bins"}, {"_FillValue", float32(math.NaN())}}})
	}
	h.vars = append(h.vars,
		ncVar{name: "time", dims: []int{0}, typ: ncDouble, attrs: []ncAttr{
			{"units", "seconds since 1970-01-01 00:00:00 UTC"}, {"calendar", "standard"},
			{"standard_name", "time"}, {"long_name", "start of the time bin"}, {"axis", "T"}}},
		ncVar{name: "audio_seconds", dims: []int{0}, typ: ncDouble, attrs: []ncAttr{
			{"units", "s"}, {"long_name", "seconds of audio averaged in the time bin"}}},
		ncVar{name: "level", dims: []int{0, 1}, typ: ncFloat, attrs: []ncAttr{
			{"units", m.Unit}, {"long_name", m.Kind + " level"}, {"_FillValue", float32(math.NaN())}}})
	return h
}

// newNetCDF starts a NetCDF file on o.
func newNetCDF(o *encode.Output, m Meta) (*ncWriter, error) {
	w := &ncWriter{o: o, h: headerOf(&m), meta: m}
	headerLen, recSize, _ := w.h.layout()
	b := w.h.encode(0)
	if int64(len(b)) != headerLen {
		panic("out: NetCDF header length changed with its offsets")
	}
	for _, v := range w.h.vars {
		if w.h.isRecord(&v) {
			continue
		}
		fixed := make([]byte, 0, v.vsize)
		switch v.name {
		case "frequency":
			fixed = appendF64(fixed, m.FreqHz)
		case "frequency_bounds":
			for i := range m.FreqHz {
				fixed = appendF64(fixed, []float64{m.BandLoHz[i], m.BandHiHz[i]})
			}
		case "percentile":
			fixed = appendF64(fixed, m.Percentiles)
		case "level_percentile":
			// written by SetPercentiles; until then (and for a file of no
			// rows, whose percentiles are none) the fill value, NaN
			w.pctBegin = v.begin
			for len(fixed) < int(v.vsize) {
				fixed = binary.BigEndian.AppendUint32(fixed, math.Float32bits(float32(math.NaN())))
			}
		}
		b = append(b, fixed...)
	}
	if _, err := o.W.Write(b); err != nil {
		return nil, fmt.Errorf("out: write: %w", err)
	}
	w.rec = make([]byte, 0, recSize)
	return w, nil
}

func appendF64(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func appendF32(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// Write appends a row as a record.
func (w *ncWriter) Write(r Row) error {
	if len(r.Level) != len(w.meta.FreqHz) {
		panic(fmt.Sprintf("out: a row of %d levels for %d columns", len(r.Level), len(w.meta.FreqHz)))
	}
	b := binary.BigEndian.AppendUint64(w.rec[:0], math.Float64bits(unixSeconds(r.Start)))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(r.Seconds))
	b = appendF32(b, r.Level)
	w.rec = b
	if _, err := w.o.W.Write(b); err != nil {
		return fmt.Errorf("out: write: %w", err)
	}
	w.rows++
	return nil
}

// SetPercentiles gives the percentile levels (len(Meta.Percentiles) rows
// of one level per band), written on Commit.
func (w *ncWriter) SetPercentiles(levels [][]float32) {
	w.pct = w.pct[:0]
	for _, l := range levels {
		w.pct = appendF32(w.pct, l)
	}
}

// Commit completes the header and renames the file into place.
func (w *ncWriter) Commit() error {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(w.rows))
	if err := w.o.WriteAt(n[:], numrecsOffset); err != nil {
		return err
	}
	if w.pctBegin != 0 && len(w.pct) > 0 {
		if err := w.o.WriteAt(w.pct, w.pctBegin); err != nil {
			return err
		}
	}
	return w.o.Commit()
}
