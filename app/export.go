package app

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"strconv"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// ParseWindow reads a window name (hann, blackman-harris, kaiser:BETA, …)
// for the UI, which does not import the engine package.
func ParseWindow(s string) (gpufft.Window, error) { return gpufft.ParseWindow(s) }

// WindowNames lists the window names ParseWindow accepts (kaiser takes
// :BETA).
func WindowNames() []string { return gpufft.WindowNames() }

// Trace is one named spectrum of a trace export.
type Trace struct {
	Name string    // column name, e.g. "current_dbfs"
	DB   []float32 // dBFS per bin, bins 0…N/2
}

// WriteTraces writes spectra of equal length (bins 0…N/2, binHz apart) to
// path as CSV (a header freq_hz,NAME…, one row per bin) or NPY (float32,
// shape (1+len(traces), bins): the frequencies, then each trace), written
// to a temporary file and renamed into place.
func WriteTraces(path, format string, binHz float64, traces []Trace) error {
	if len(traces) == 0 || len(traces[0].DB) == 0 {
		return fmt.Errorf("write %s: no spectrum to write", path)
	}
	bins := len(traces[0].DB)
	for _, t := range traces {
		if len(t.DB) != bins {
			return fmt.Errorf("write %s: traces of %d and %d bins", path, bins, len(t.DB))
		}
	}
	of, err := createOutput(path)
	if err != nil {
		return err
	}
	defer of.Discard()
	w := of.w
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
		w.Write(npyHeader(1+len(traces), bins))
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
	return of.Commit()
}

// WritePNG writes an image to path (temporary file, then renamed).
func WritePNG(path string, img *image.RGBA) error {
	of, err := createOutput(path)
	if err != nil {
		return err
	}
	defer of.Discard()
	if err := encodePNG(of.w, img); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return of.Commit()
}

// AnalyzeView is app.AnalyzeView on the monitor's engines.
func (m *Monitor) AnalyzeView(ctx context.Context, path string, o ViewOptions, progress Progress) (*FileSpectrogram, error) {
	return AnalyzeView(ctx, path, o, m.engines, progress)
}

// ExportSpectrogram writes a file's spectrogram to out (npy, csv or png,
// by format) exactly as `prism analyze` does, on the monitor's engines.
func (m *Monitor) ExportSpectrogram(ctx context.Context, in, out, format string, o ViewOptions, img ImageOptions, progress Progress) error {
	opts := AnalyzeOptions{FFT: o.FFT, Hop: o.Hop, Window: o.Window, Channel: o.Channel, Image: img}
	_, err := AnalyzeFile(ctx, in, out, format, opts, m.engines, progress)
	return err
}

// ParseGeneratorSpec checks a signal generator spec (sine:F:DB,
// tones:F1,F2:DB, sweep:F0:F1:DB[:S], white:DB, pink:DB) for the UI.
func ParseGeneratorSpec(s string) (string, error) {
	g, err := audio.ParseGenerator(s)
	if err != nil {
		return "", err
	}
	return g.String(), nil
}
