package encode

import (
	"encoding/binary"
	"fmt"
	"math"
)

// WAVWriter streams a WAV file (float32/64 or PCM 8…32 bits) and patches
// the sizes at the end; over 4 GiB it becomes RF64 (the reserved JUNK chunk
// turns into ds64). Float files carry the 18-byte fmt and the fact chunk
// the format requires.
type WAVWriter struct {
	o        *Output
	ch       int
	bits     int
	float    bool
	dataSize int64
	headLen  int64 // bytes before the samples
	buf      []byte
}

// NewWAVWriter starts a WAV of ch channels at rate Hz on o: bits 8, 16, 24
// or 32 of PCM, or 32 or 64 of float.
func NewWAVWriter(o *Output, rate, ch, bits int, float bool) (*WAVWriter, error) {
	w := &WAVWriter{o: o, ch: ch, bits: bits, float: float}
	h := w.header(rate)
	w.headLen = int64(len(h))
	if _, err := o.W.Write(h); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return w, nil
}

func (w *WAVWriter) header(rate int) []byte {
	le := binary.LittleEndian
	h := []byte("RIFF\x00\x00\x00\x00WAVEJUNK")
	h = le.AppendUint32(h, 28)
	h = append(h, make([]byte, 28)...)
	tag, fmtLen := 1, 16
	if w.float {
		tag, fmtLen = 3, 18
	}
	ba := w.ch * w.bits / 8
	h = append(h, "fmt "...)
	h = le.AppendUint32(h, uint32(fmtLen))
	h = le.AppendUint16(h, uint16(tag))
	h = le.AppendUint16(h, uint16(w.ch))
	h = le.AppendUint32(h, uint32(rate))
	h = le.AppendUint32(h, uint32(rate*ba))
	h = le.AppendUint16(h, uint16(ba))
	h = le.AppendUint16(h, uint16(w.bits))
	if w.float {
		h = le.AppendUint16(h, 0)                // cbSize
		h = append(h, "fact\x04\x00\x00\x00"...) // sample frames, patched at the end
		h = le.AppendUint32(h, 0)
	}
	h = append(h, "data\x00\x00\x00\x00"...)
	return h
}

// Write appends interleaved frames x (full scale ±1; PCM is rounded and
// clipped). It allocates only when x is longer than any before.
func (w *WAVWriter) Write(x []float32) error {
	bps := w.bits / 8
	if cap(w.buf) < len(x)*bps {
		w.buf = make([]byte, len(x)*bps)
	}
	b := w.buf[:len(x)*bps]
	for i, v := range x {
		switch {
		case w.float && w.bits == 64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(float64(v)))
		case w.float:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		default:
			q := math.Round(math.Max(-1, math.Min(1, float64(v))) * math.Exp2(float64(w.bits-1)))
			q = math.Min(q, math.Exp2(float64(w.bits-1))-1)
			switch w.bits {
			case 8:
				b[i] = byte(int(q) + 128)
			case 16:
				binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(q)))
			case 24:
				u := uint32(int32(q))
				b[3*i], b[3*i+1], b[3*i+2] = byte(u), byte(u>>8), byte(u>>16)
			default:
				binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(q)))
			}
		}
	}
	w.dataSize += int64(len(b))
	if _, err := w.o.W.Write(b); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Finish completes the header (it does not commit the Output).
func (w *WAVWriter) Finish() error {
	if w.dataSize%2 == 1 {
		w.o.W.WriteByte(0)
	}
	if err := w.o.W.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	le := binary.LittleEndian
	riff := w.dataSize + w.headLen - 8 + w.dataSize%2
	frames := w.dataSize / int64(w.ch*w.bits/8)
	f := w.o.tmp
	if w.float {
		if _, err := f.WriteAt(le.AppendUint32(nil, uint32(min(frames, math.MaxUint32))), w.headLen-12); err != nil {
			return err
		}
	}
	if riff <= math.MaxUint32 {
		if _, err := f.WriteAt(le.AppendUint32(nil, uint32(riff)), 4); err != nil {
			return err
		}
		_, err := f.WriteAt(le.AppendUint32(nil, uint32(w.dataSize)), w.headLen-4)
		return err
	}
	// RF64: ds64 in place of JUNK, 32-bit sizes at 0xFFFFFFFF
	ds := append([]byte("ds64"), le.AppendUint32(nil, 28)...)
	ds = le.AppendUint64(ds, uint64(riff))
	ds = le.AppendUint64(ds, uint64(w.dataSize))
	ds = le.AppendUint64(ds, uint64(frames))
	ds = le.AppendUint32(ds, 0)
	for _, p := range []struct {
		off  int64
		data []byte
	}{{0, []byte("RF64\xff\xff\xff\xff")}, {12, ds}, {w.headLen - 4, []byte{0xff, 0xff, 0xff, 0xff}}} {
		if _, err := f.WriteAt(p.data, p.off); err != nil {
			return err
		}
	}
	return nil
}
