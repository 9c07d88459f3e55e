// The reference file Prism writes: "# key: value" lines saying the unit
// and how the trace was measured, then the CSV of the trace (freq_hz,level
// for a spectrum; freq_hz,magnitude_db,phase_deg,coherence for a transfer
// function, the header `prism transfer` writes), every value exact.

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

// WriteCSV writes the trace in the form ReadTrace reads: with a unit or
// Info, first the lines
//
//	# prism reference
//	# unit: dB SPL
//	# calibration: calibrator 94 dB SPL at 1 kHz
//	# calibration_offset_db: 120.5
//	# microphone: umik.txt
//	# sample_rate_hz: 48000
//	# fft: 4096
//	# window: hann
//	# enbw_bins: 1.5
//	# averaging: exp 1 s
//
// (those not known left out), then the header freq_hz,level (a transfer
// function: freq_hz,magnitude_db,phase_deg[,coherence]) and one row per
// point, every value with %.17g (−Inf as -Inf; the "#" lines shortest) so a round
// trip is exact.
// A trace of no unit and no Info is written as before units: the header
// first.
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
		b = append(b, '\n')
		bw.Write(b)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dsp: trace %s: %w", t.Name, err)
	}
	return nil
}

// writeTraceInfo writes the "# key: value" lines of t's unit and Info.
func writeTraceInfo(w *bufio.Writer, t *Trace) {
	w.WriteString("# " + refMarker + "\n")
	line := func(key, v string) {
		if v != "" {
			// one line each: a note cannot break the file
			w.WriteString("# " + key + ": " + strings.Join(strings.Fields(v), " ") + "\n")
		}
	}
	num := func(v float64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	line("unit", t.Unit)
	in := t.Info
	if in == nil {
		return
	}
	line("calibration", in.CalNote)
	if in.CalNote != "" {
		line("calibration_offset_db", strconv.FormatFloat(in.CalOffsetDB, 'g', -1, 64))
	}
	line("microphone", in.Mic)
	line("sample_rate_hz", num(in.SampleRateHz))
	if in.FFT > 0 {
		line("fft", strconv.Itoa(in.FFT))
	}
	line("window", in.Window)
	line("enbw_bins", num(in.ENBWBins))
	line("averaging", in.Averaging)
}
