// Calibration to dB SPL: a level offset (from a stated level or from a
// calibrator recording) and a microphone's frequency response read from
// the text files REW and miniDSP use.

package dsp

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// LevelCal turns dBFS into dB SPL: dB SPL = dBFS + OffsetDB, where dBFS is
// sine level (a full-scale sine reads 0 dBFS).
type LevelCal struct {
	OffsetDB float64
}

// maxSPL bounds calibration levels: 0 … 200 dB SPL covers every microphone.
const maxSPL = 200

// CalFromDBSPL is --cal-dbspl LEVEL: a full-scale sine reads LEVEL dB SPL.
func CalFromDBSPL(level float64) (LevelCal, error) {
	if !(level >= 0 && level <= maxSPL) {
		return LevelCal{}, fmt.Errorf("dsp: calibration level %v dB SPL (want 0 … %d)", level, maxSPL)
	}
	return LevelCal{OffsetDB: level}, nil
}

// CalFromRecording is a calibrator recording: a tone measured at
// measuredDBFS (sine level) is known to be referenceDBSPL (e.g. 94 dB SPL).
func CalFromRecording(measuredDBFS, referenceDBSPL float64) (LevelCal, error) {
	if !(measuredDBFS <= 3.02 && measuredDBFS > -200) {
		return LevelCal{}, fmt.Errorf("dsp: calibrator tone measured at %v dBFS (want −200 … 0)", measuredDBFS)
	}
	if !(referenceDBSPL >= 0 && referenceDBSPL <= maxSPL) {
		return LevelCal{}, fmt.Errorf("dsp: calibrator level %v dB SPL (want 0 … %d)", referenceDBSPL, maxSPL)
	}
	return LevelCal{OffsetDB: referenceDBSPL - measuredDBFS}, nil
}

// CalFromCalibrator measures the calibrator tone of toneHz (e.g. 1000) in
// one channel x at sampleRate Hz, its sine level being the fundamental of
// DistortionOfSamples (noise, hum and the tone's harmonics excluded), and
// makes the calibration that reads it as referenceDBSPL.
func CalFromCalibrator(x []float32, sampleRate, toneHz, referenceDBSPL float64) (LevelCal, error) {
	d, err := DistortionOfSamples(x, sampleRate, toneHz)
	if err != nil {
		return LevelCal{}, fmt.Errorf("dsp: calibrator recording: %w", err)
	}
	if math.Abs(d.FundamentalHz-toneHz) > 0.02*toneHz {
		return LevelCal{}, fmt.Errorf("dsp: calibrator recording: strongest tone near %v Hz is at %.1f Hz", toneHz, d.FundamentalHz)
	}
	return CalFromRecording(d.FundamentalDBFS, referenceDBSPL)
}

// DBSPL converts a dBFS level.
func (c LevelCal) DBSPL(dBFS float64) float64 { return dBFS + c.OffsetDB }

// MicResponse is a microphone's frequency response: at FreqHz[i] it reads
// DB[i] dB above its nominal sensitivity. The correction applied to a
// measurement is −ResponseDB(f).
type MicResponse struct {
	Name     string    // file name, for display
	FreqHz   []float64 // > 0, increasing
	DB       []float64
	PhaseDeg []float64 // nil when the file has no phase column
}

// CalFileError is a bad line of a microphone response file.
type CalFileError struct {
	Name   string
	Line   int // 1-based
	Text   string
	Reason string
}

func (e *CalFileError) Error() string {
	return fmt.Sprintf("dsp: calibration file %s line %d %q: %s", e.Name, e.Line, e.Text, e.Reason)
}

// ParseMicResponse reads a response file in the REW/miniDSP text format:
// lines "freq dB" or "freq dB phase", fields separated by spaces, tabs or
// commas; lines starting with * or " (miniDSP's "Sens Factor" header
// among them) are comments, blank lines are skipped. Frequencies must be
// positive and increasing; every line has the same number of fields. A bad
// line gives a *CalFileError naming it. name labels errors and displays.
func ParseMicResponse(r io.Reader, name string) (*MicResponse, error) {
	m := &MicResponse{Name: name}
	sc := bufio.NewScanner(r)
	fields := 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '*' || text[0] == '"' {
			continue
		}
		v, n, reason := m.parseLine(text, fields)
		if reason != "" {
			return nil, &CalFileError{Name: name, Line: line, Text: text, Reason: reason}
		}
		fields = n
		m.FreqHz = append(m.FreqHz, v[0])
		m.DB = append(m.DB, v[1])
		if fields == 3 {
			m.PhaseDeg = append(m.PhaseDeg, v[2])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dsp: calibration file %s: %w", name, err)
	}
	if len(m.FreqHz) == 0 {
		return nil, fmt.Errorf("dsp: calibration file %s: no data lines", name)
	}
	return m, nil
}

// parseLine reads one data line of fields values (0: not known yet)
// following the points already in m: the values, their count, or why the
// line is bad.
func (m *MicResponse) parseLine(text string, fields int) (v [3]float64, n int, reason string) {
	f := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
	switch {
	case len(f) != 2 && len(f) != 3:
		return v, 0, fmt.Sprintf("want 2 or 3 fields (frequency, dB[, phase]), got %d", len(f))
	case fields != 0 && len(f) != fields:
		return v, 0, fmt.Sprintf("%d fields after lines of %d", len(f), fields)
	}
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return v, 0, fmt.Sprintf("field %d %q is not a finite number", i+1, s)
		}
		v[i] = x
	}
	if !(v[0] > 0) {
		return v, 0, fmt.Sprintf("frequency %v Hz is not positive", v[0])
	}
	if k := len(m.FreqHz); k > 0 && !(v[0] > m.FreqHz[k-1]) {
		return v, 0, fmt.Sprintf("frequency %v Hz does not increase (previous %v Hz)", v[0], m.FreqHz[k-1])
	}
	return v, len(f), ""
}

// WriteTo writes the response in the format ParseMicResponse reads
// (a * comment naming it, then tab-separated lines, %.17g so a round trip
// is exact).
func (m *MicResponse) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "* %s\n", m.Name)
	for i, f := range m.FreqHz {
		fmt.Fprintf(&b, "%.17g\t%.17g", f, m.DB[i])
		if m.PhaseDeg != nil {
			fmt.Fprintf(&b, "\t%.17g", m.PhaseDeg[i])
		}
		b.WriteByte('\n')
	}
	n, err := io.WriteString(w, b.String())
	if err != nil {
		return int64(n), fmt.Errorf("dsp: calibration file %s: %w", m.Name, err)
	}
	return int64(n), nil
}

// ResponseDB is the response at freqHz: linear in log-frequency between
// points, held at the end values outside them.
func (m *MicResponse) ResponseDB(freqHz float64) float64 {
	return interpLogFreq(m.FreqHz, m.DB, freqHz)
}

// Correct subtracts the response from levels measured at freqHz
// (level[i] −= ResponseDB(freqHz[i])). It does not allocate; it panics if
// the lengths differ.
func (m *MicResponse) Correct(level, freqHz []float64) {
	if len(level) != len(freqHz) {
		panic(fmt.Sprintf("dsp: MicResponse.Correct: %d levels, %d frequencies", len(level), len(freqHz)))
	}
	for i, f := range freqHz {
		level[i] -= m.ResponseDB(f)
	}
}

// interpLogFreq interpolates v over increasing xs ≥ 0 at x: linearly in
// log x (linearly in x on a segment starting at 0 Hz), held flat outside
// [xs[0], xs[last]]. Where an end value is not finite (a −Inf level) the
// nearer end is used.
func interpLogFreq(xs, v []float64, x float64) float64 {
	n := len(xs)
	if x <= xs[0] || math.IsNaN(x) {
		return v[0]
	}
	if x >= xs[n-1] {
		return v[n-1]
	}
	i := sort.SearchFloat64s(xs, x) // xs[i-1] < x ≤ xs[i]
	x0, x1, v0, v1 := xs[i-1], xs[i], v[i-1], v[i]
	var t float64
	if x0 > 0 {
		t = math.Log(x/x0) / math.Log(x1/x0)
	} else {
		t = (x - x0) / (x1 - x0)
	}
	if math.IsInf(v0, 0) || math.IsInf(v1, 0) {
		if t < 0.5 {
			return v0
		}
		return v1
	}
	return v0 + t*(v1-v0)
}
