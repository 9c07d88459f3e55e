// Reference traces: a named spectrum (frequency, level) kept to compare
// others against, stored as CSV with the header freq_hz,level.

package dsp

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Trace is a named spectrum: Level[i] (dB, any unit) at FreqHz[i] (≥ 0,
// increasing). A level may be −Inf (a silent bin), never NaN.
//
// A trace of a transfer function (a dual-channel measurement) has Level
// the magnitude in dB and PhaseDeg and Coherence set too (the same
// length as FreqHz; nil for a spectrum). Unit names Level's unit as the
// axes name it ("dBFS", "dBFS/Hz", "dB SPL", "dB" for a transfer
// function); "" is a trace of unknown unit (an old file).
type Trace struct {
	Name      string
	FreqHz    []float64
	Level     []float64
	Unit      string
	PhaseDeg  []float64 // transfer function: phase, degrees; nil for a spectrum
	Coherence []float64 // transfer function: γ² in 0…1; nil for a spectrum
}

// IsTransfer reports whether t is a transfer function's trace.
func (t *Trace) IsTransfer() bool { return t.PhaseDeg != nil }

// NewTrace copies freqHz and level into a trace, checking them.
func NewTrace(name string, freqHz, level []float64) (*Trace, error) {
	if len(freqHz) != len(level) || len(freqHz) == 0 {
		return nil, fmt.Errorf("dsp: trace %s: %d frequencies and %d levels (want the same number, ≥ 1)", name, len(freqHz), len(level))
	}
	for i, f := range freqHz {
		if err := checkTracePoint(freqHz, i, level[i]); err != nil {
			return nil, fmt.Errorf("dsp: trace %s: point %d (%v Hz, %v): %w", name, i, f, level[i], err)
		}
	}
	return &Trace{Name: name, FreqHz: append([]float64(nil), freqHz...), Level: append([]float64(nil), level...)}, nil
}

func checkTracePoint(freqHz []float64, i int, level float64) error {
	f := freqHz[i]
	switch {
	case !(f >= 0) || math.IsInf(f, 0):
		return errors.New("frequency must be finite and ≥ 0")
	case i > 0 && !(f > freqHz[i-1]):
		return errors.New("frequencies must increase")
	case math.IsNaN(level) || math.IsInf(level, 1):
		return errors.New("level must be a number or -Inf")
	}
	return nil
}

// ReadTrace reads a trace from CSV: the header freq_hz,level, then one
// row per point. Errors name the row.
func ReadTrace(r io.Reader, name string) (*Trace, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("dsp: trace %s: header: %w", name, err)
	}
	if head[0] != "freq_hz" || head[1] != "level" {
		return nil, fmt.Errorf("dsp: trace %s: header %q, want \"freq_hz,level\"", name, head)
	}
	t := &Trace{Name: name}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dsp: trace %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		var v [2]float64
		for i, s := range rec {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("dsp: trace %s line %d: %q is not a number", name, line, s)
			}
		}
		t.FreqHz = append(t.FreqHz, v[0])
		t.Level = append(t.Level, v[1])
		if err := checkTracePoint(t.FreqHz, len(t.FreqHz)-1, v[1]); err != nil {
			return nil, fmt.Errorf("dsp: trace %s line %d %q: %w", name, line, rec, err)
		}
	}
	if len(t.FreqHz) == 0 {
		return nil, fmt.Errorf("dsp: trace %s: no points", name)
	}
	return t, nil
}

// ReadTraceFile reads the trace CSV at path (ReadTrace), named after the
// file: its base name without the extension.
func ReadTraceFile(path string) (*Trace, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dsp: trace: %w", err)
	}
	defer r.Close()
	return ReadTrace(r, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
}

// WriteCSV writes the trace in the form ReadTrace reads, every value with
// %.17g (−Inf as -Inf) so a round trip is exact.
func (t *Trace) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"freq_hz", "level"}); err != nil {
		return fmt.Errorf("dsp: trace %s: %w", t.Name, err)
	}
	for i, f := range t.FreqHz {
		if err := cw.Write([]string{strconv.FormatFloat(f, 'g', 17, 64), strconv.FormatFloat(t.Level[i], 'g', 17, 64)}); err != nil {
			return fmt.Errorf("dsp: trace %s: %w", t.Name, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("dsp: trace %s: %w", t.Name, err)
	}
	return nil
}

// At is the trace's level at freqHz: linear in log-frequency between
// points (in frequency on a segment from 0 Hz), held at the end values
// outside them.
func (t *Trace) At(freqHz float64) float64 { return interpLogFreq(t.FreqHz, t.Level, freqHz) }

// Difference writes level[i] − At(freqHz[i]) into dst: a spectrum against
// the reference interpolated onto its frequencies. dst may be level. It
// does not allocate; it panics if the lengths differ.
func (t *Trace) Difference(dst, freqHz, level []float64) {
	if len(dst) != len(freqHz) || len(level) != len(freqHz) {
		panic(fmt.Sprintf("dsp: Trace.Difference: dst %d, freqHz %d, level %d", len(dst), len(freqHz), len(level)))
	}
	for i, f := range freqHz {
		dst[i] = level[i] - t.At(f)
	}
}
