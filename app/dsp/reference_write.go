// The reference file Prism writes: "# key: value" lines saying the unit
// and how the trace was measured, then the trace's CSV.

package dsp

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// refMarker is the first line of a reference file with its unit.
const refMarker = "prism reference"

// infoKeys are the "# key: value" lines of a TraceInfo, in the order
// WriteCSV writes them; field is the *string, *float64 or *int they set.
var infoKeys = []struct {
	key   string
	field func(*TraceInfo) any
}{
	{"calibration", func(in *TraceInfo) any { return &in.CalNote }},
	{"calibration_offset_db", func(in *TraceInfo) any { return &in.CalOffsetDB }}, // dB SPL − dBFS
	{"microphone", func(in *TraceInfo) any { return &in.Mic }},
	{"sample_rate_hz", func(in *TraceInfo) any { return &in.SampleRateHz }},
	{"fft", func(in *TraceInfo) any { return &in.FFT }},
	{"window", func(in *TraceInfo) any { return &in.Window }},
	{"enbw_bins", func(in *TraceInfo) any { return &in.ENBWBins }},
	{"averaging", func(in *TraceInfo) any { return &in.Averaging }},
}

// WriteCSV writes the trace in the form ReadTrace reads: with a unit or
// Info, first "# prism reference", "# unit: U" and a line per infoKeys
// field known (docs/window.md shows one), then the header freq_hz,level
// (a transfer function: freq_hz,magnitude_db,phase_deg[,coherence]) and a
// row per point, every value with %.17g (−Inf as -Inf; the "#" lines
// shortest) so a round trip is exact. A trace of no unit and no Info is
// written as before units: the header first.
func (t *Trace) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if t.Unit != "" || t.Info != nil {
		writeTraceInfo(bw, t)
	}
	head := "freq_hz,level"
	if t.IsTransfer() {
		head = "freq_hz,magnitude_db,phase_deg"
		if t.Coherence != nil {
			head += ",coherence"
		}
	}
	bw.WriteString(head + "\n")
	var b []byte
	for i, f := range t.FreqHz {
		b = strconv.AppendFloat(b[:0], f, 'g', 17, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, t.Level[i], 'g', 17, 64)
		if t.IsTransfer() {
			b = append(b, ',')
			b = strconv.AppendFloat(b, t.PhaseDeg[i], 'g', 17, 64)
			if t.Coherence != nil {
				b = append(b, ',')
				b = strconv.AppendFloat(b, t.Coherence[i], 'g', 17, 64)
			}
		}
		bw.Write(append(b, '\n'))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dsp: trace %s: %w", t.Name, err)
	}
	return nil
}

// writeTraceInfo writes the "#" lines of t's unit and Info: a value left
// out is none or not known (0, ""), except the calibration's offset,
// written whenever there is a calibration.
func writeTraceInfo(w *bufio.Writer, t *Trace) {
	w.WriteString("# " + refMarker + "\n")
	line := func(key, v string) {
		if v != "" { // one line each: a note cannot break the file
			w.WriteString("# " + key + ": " + strings.Join(strings.Fields(v), " ") + "\n")
		}
	}
	line("unit", t.Unit)
	for _, k := range infoKeys {
		if t.Info == nil {
			break
		}
		switch v := k.field(t.Info).(type) {
		case *string:
			line(k.key, *v)
		case *float64:
			if *v != 0 || (k.key == "calibration_offset_db" && t.Info.CalNote != "") {
				line(k.key, strconv.FormatFloat(*v, 'g', -1, 64))
			}
		case *int:
			if *v != 0 {
				line(k.key, strconv.Itoa(*v))
			}
		}
	}
}
