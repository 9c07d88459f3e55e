package out

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/prismaudio/prism/app/encode"
)

// sidecar is the JSON written beside an NPY file (OUT.npy → OUT.json).
type sidecar struct {
	Kind         string         `json:"kind"`
	Title        string         `json:"title"`
	Unit         string         `json:"unit"`
	Shape        [2]int         `json:"shape"` // time bins × frequency bins
	TimeUTC      []string       `json:"time_utc"`
	AudioSeconds []float64      `json:"audio_seconds"`
	FreqHz       []float64      `json:"freq_hz"`
	BandLoHz     []float64      `json:"band_lo_hz,omitempty"`
	BandHiHz     []float64      `json:"band_hi_hz,omitempty"`
	Parameters   map[string]any `json:"parameters"`
}

// SidecarPath is the JSON sidecar of an NPY output: OUT.npy → OUT.json.
func SidecarPath(npyPath string) string {
	return strings.TrimSuffix(npyPath, filepath.Ext(npyPath)) + ".json"
}

// npyWriter streams rows into an NPY file (little-endian float32, time
// bins × frequency bins) and writes the sidecar on Commit.
type npyWriter struct {
	o, side *encode.Output
	s       sidecar
	raw     []byte
}

func newNPY(o, side *encode.Output, m Meta) (*npyWriter, error) {
	if _, err := o.W.Write(encode.NPYHeader(0, len(m.FreqHz))); err != nil {
		return nil, fmt.Errorf("out: write: %w", err)
	}
	s := sidecar{Kind: m.Kind, Title: m.Title, Unit: m.Unit, FreqHz: m.FreqHz,
		BandLoHz: m.BandLoHz, BandHiHz: m.BandHiHz, Parameters: map[string]any{}, TimeUTC: []string{}, AudioSeconds: []float64{}}
	s.Shape[1] = len(m.FreqHz)
	for _, a := range m.Attrs {
		s.Parameters[a.Name] = a.Value
	}
	if m.Shard != "" {
		s.Parameters["shard"] = m.Shard
	}
	return &npyWriter{o: o, side: side, s: s}, nil
}

func (w *npyWriter) Write(r Row) error {
	if len(r.Level) != w.s.Shape[1] {
		panic(fmt.Sprintf("out: a row of %d levels for %d columns", len(r.Level), w.s.Shape[1]))
	}
	w.raw = w.raw[:0]
	for _, v := range r.Level {
		w.raw = binary.LittleEndian.AppendUint32(w.raw, math.Float32bits(v))
	}
	if _, err := w.o.W.Write(w.raw); err != nil {
		return fmt.Errorf("out: write: %w", err)
	}
	w.s.Shape[0]++
	w.s.TimeUTC = append(w.s.TimeUTC, isoTime(r.Start))
	w.s.AudioSeconds = append(w.s.AudioSeconds, r.Seconds)
	return nil
}

// Commit writes the sidecar, then the NPY file: an NPY file in place
// always has its sidecar.
func (w *npyWriter) Commit() error {
	b, err := json.MarshalIndent(w.s, "", " ")
	if err != nil {
		return fmt.Errorf("out: sidecar: %w", err)
	}
	if _, err := w.side.W.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("out: write: %w", err)
	}
	if err := w.side.Commit(); err != nil {
		return err
	}
	if err := w.o.WriteAt(encode.NPYHeader(w.s.Shape[0], w.s.Shape[1]), 0); err != nil {
		return err
	}
	return w.o.Commit()
}

func (w *npyWriter) Discard() {
	w.o.Discard()
	w.side.Discard()
}
