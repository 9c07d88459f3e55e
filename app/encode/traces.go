package encode

import (
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"strconv"
)

// Trace is one named spectrum of a trace export.
type Trace struct {
	Name string    // column name, e.g. "current_dbfs"
	DB   []float32 // dBFS per bin, bins 0…N/2
}

// WriteTraces writes spectra of equal length (bins 0…N/2, binHz apart) to
// path as CSV (a header freq_hz,NAME…, one row per bin) or NPY (float32,
// shape (1+len(traces), bins): the frequencies, then each trace), written
// to a temporary file and renamed into place.
func WriteTraces(path string, format Format, binHz float64, traces []Trace) error {
	if len(traces) == 0 || len(traces[0].DB) == 0 {
		return fmt.Errorf("write %s: no spectrum to write", path)
	}
	bins := len(traces[0].DB)
	for _, t := range traces {
		if len(t.DB) != bins {
			return fmt.Errorf("write %s: traces of %d and %d bins", path, bins, len(t.DB))
		}
	}
	o, err := Create(path)
	if err != nil {
		return err
	}
	defer o.Discard()
	w := o.W
	switch format {
	case FormatCSV:
		w.WriteString("freq_hz")
		for _, t := range traces {
			w.WriteString("," + t.Name)
		}
		w.WriteString("\n")
		var b []byte
		for k := range bins {
			b = strconv.AppendFloat(b[:0], float64(k)*binHz, 'f', -1, 64)
			for _, t := range traces {
				b = append(b, ',')
				b = strconv.AppendFloat(b, float64(t.DB[k]), 'f', 2, 32)
			}
			b = append(b, '\n')
			w.Write(b)
		}
	case FormatNPY:
		w.Write(NPYHeader(1+len(traces), bins))
		var raw [4]byte
		for k := range bins {
			binary.LittleEndian.PutUint32(raw[:], math.Float32bits(float32(float64(k)*binHz)))
			w.Write(raw[:])
		}
		for _, t := range traces {
			for _, v := range t.DB {
				binary.LittleEndian.PutUint32(raw[:], math.Float32bits(v))
				w.Write(raw[:])
			}
		}
	default:
		return fmt.Errorf("write %s: format %q: want csv or npy", path, format)
	}
	return o.Commit()
}

// WritePNG writes an image to path (temporary file, then renamed).
func WritePNG(path string, img *image.RGBA) error {
	o, err := Create(path)
	if err != nil {
		return err
	}
	defer o.Discard()
	if err := PNG(o.W, img); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return o.Commit()
}
