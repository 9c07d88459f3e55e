package dsp

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestTraceInfoRoundTrip: a reference with its unit and how it was
// measured is written with the "# key: value" lines (the exact text
// checked) and reads back field for field, every value exact.
func TestTraceInfoRoundTrip(t *testing.T) {
	tr, err := NewTrace("bench", []float64{0, 11.71875, 1000.5}, []float64{math.Inf(-1), 81.25, 94.000000000000014})
	if err != nil {
		t.Fatal(err)
	}
	tr.Unit = UnitDBSPL
	tr.Info = &TraceInfo{CalNote: "calibrator 94 dB SPL\nat 1 kHz", CalOffsetDB: 120.30000000000001, Mic: "umik 1.txt",
		SampleRateHz: 48000, FFT: 4096, Window: "kaiser(8)", ENBWBins: 1.4986, Averaging: "exp 1 s"}
	var b strings.Builder
	if err := tr.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "# prism reference\n# unit: dB SPL\n# calibration: calibrator 94 dB SPL at 1 kHz\n# calibration_offset_db: 120.30000000000001\n" +
		"# microphone: umik 1.txt\n# sample_rate_hz: 48000\n# fft: 4096\n# window: kaiser(8)\n# enbw_bins: 1.4986\n# averaging: exp 1 s\n" +
		"freq_hz,level\n0,-Inf\n11.71875,81.25\n1000.5,94.000000000000014\n"
	if b.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b.String(), want)
	}
	got, err := ReadTrace(strings.NewReader(b.String()), "bench")
	if err != nil {
		t.Fatal(err)
	}
	wantInfo := *tr.Info
	wantInfo.CalNote = "calibrator 94 dB SPL at 1 kHz" // one line
	if got.Unit != UnitDBSPL || got.Info == nil || *got.Info != wantInfo || got.IsTransfer() {
		t.Errorf("read back unit %q info %+v, want %+v", got.Unit, got.Info, wantInfo)
	}
	if !slices.Equal(got.FreqHz, tr.FreqHz) || !slices.Equal(got.Level, tr.Level) {
		t.Errorf("read back %v %v", got.FreqHz, got.Level)
	}
	// a trace of no unit and no record is the file of before: header first
	tr.Unit, tr.Info = "", nil
	b.Reset()
	tr.WriteCSV(&b)
	if !strings.HasPrefix(b.String(), "freq_hz,level\n0,-Inf\n") {
		t.Errorf("unit-less trace written as %q", b.String())
	}
}

// TestTransferTraceRoundTrip: a transfer function (magnitude, phase,
// coherence) is written with prism transfer's header and reads back
// exactly as a transfer function; without coherence (REW's) too.
func TestTransferTraceRoundTrip(t *testing.T) {
	f := []float64{0, 23.4375, 1000, 24000}
	mag := []float64{-200, -6.0000000000000009, 0.5, 3}
	ph := []float64{0, -179.99999999999997, 45.125, 180}
	coh := []float64{0, 0.25, 0.99999999999999989, 1}
	for _, c := range []struct {
		name string
		coh  []float64
		head string
	}{{"with coherence", coh, "freq_hz,magnitude_db,phase_deg,coherence\n"}, {"without", nil, "freq_hz,magnitude_db,phase_deg\n"}} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := NewTransferTrace("tf", f, mag, ph, c.coh)
			if err != nil {
				t.Fatal(err)
			}
			tr.Info = &TraceInfo{SampleRateHz: 48000, FFT: 2048, Window: "hann", ENBWBins: 1.5, Averaging: "complex 16"}
			var b strings.Builder
			if err := tr.WriteCSV(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "# unit: dB\n") || !strings.Contains(b.String(), "\n"+c.head) {
				t.Fatalf("wrote %q", b.String())
			}
			got, err := ReadTrace(strings.NewReader(b.String()), "tf")
			if err != nil {
				t.Fatal(err)
			}
			if !got.IsTransfer() || got.Unit != UnitDB || *got.Info != *tr.Info || !slices.Equal(got.FreqHz, f) ||
				!slices.Equal(got.Level, mag) || !slices.Equal(got.PhaseDeg, ph) || !slices.Equal(got.Coherence, c.coh) {
				t.Errorf("read back %+v", got)
			}
		})
	}
	if _, err := NewTransferTrace("x", f, mag, ph[:2], nil); err == nil {
		t.Error("phases of another length accepted")
	}
	if _, err := NewTransferTrace("x", f, mag, ph, []float64{0, 0.5, 1.5, 1}); err == nil || !strings.Contains(err.Error(), "between 0 and 1") {
		t.Errorf("coherence 1.5: %v", err)
	}
}

// TestReadTracesFormats: each CSV Prism writes and REW's text read as
// the traces they hold, named, of the unit their columns or comments
// say, with the values written.
func TestReadTracesFormats(t *testing.T) {
	type want struct {
		name, unit string
		transfer   bool
		level      []float64
		phase, coh []float64
	}
	for _, c := range []struct {
		label, text string
		want        []want
	}{
		{"window export", "freq_hz,current_dbfs_hz,average_dbfs_hz,peak_hold_dbfs_hz\n0,-120.50,-121.00,-99.25\n11.71875,-80.00,-81.25,-70.00\n",
			[]want{{"x current", UnitDBFSPerHz, false, []float64{-120.5, -80}, nil, nil},
				{"x average", UnitDBFSPerHz, false, []float64{-121, -81.25}, nil, nil},
				{"x peak hold", UnitDBFSPerHz, false, []float64{-99.25, -70}, nil, nil}}},
		{"long-term export", "freq_hz,current_dbspl,long_term_average_dbspl\n0,40.00,41.00\n10,42.00,43.00\n",
			[]want{{"x current", UnitDBSPL, false, []float64{40, 42}, nil, nil}, {"x long term average", UnitDBSPL, false, []float64{41, 43}, nil, nil}}},
		{"prism spectrum", "freq_hz,level\n0,-50.2500\n11.71875,-51.7500\n",
			[]want{{"x", "", false, []float64{-50.25, -51.75}, nil, nil}}},
		{"prism spectrum -a", "freq_hz,ch0,ch1\n0,-1.0000,-2.0000\n5,-3.0000,-4.0000\n",
			[]want{{"x ch0", "", false, []float64{-1, -3}, nil, nil}, {"x ch1", "", false, []float64{-2, -4}, nil, nil}}},
		{"prism transfer", "freq_hz,magnitude_db,phase_deg,coherence\n0,-200.0000,0.000,0.000000\n23.4375,6.0206,-90.500,0.998000\n",
			[]want{{"x", UnitDB, true, []float64{-200, 6.0206}, []float64{0, -90.5}, []float64{0, 0.998}}}},
		{"prism transfer, channels", "freq_hz,magnitude_db_ch1,phase_deg_ch1,coherence_ch1,magnitude_db_ch3,phase_deg_ch3,coherence_ch3\n" +
			"10,1.0000,2.000,0.500000,3.0000,4.000,0.250000\n20,5.0000,6.000,0.750000,7.0000,8.000,1.000000\n",
			[]want{{"x ch1", UnitDB, true, []float64{1, 5}, []float64{2, 6}, []float64{0.5, 0.75}},
				{"x ch3", UnitDB, true, []float64{3, 7}, []float64{4, 8}, []float64{0.25, 1}}}},
		{"REW, commas", "* Measurement data measured by REW V5.19\n* Smoothing: 1/48 octave\n*\n* Freq(Hz), SPL(dB), Phase(degrees)\n20.000, 0.000, 64.208\n1000.000, 3.000, 63.426\n",
			[]want{{"x", UnitDBSPL, true, []float64{0, 3}, []float64{64.208, 63.426}, nil}}},
		{"REW, no phase", "* Measurement data measured by REW V5.20\n20 70\n100 71.5\n",
			[]want{{"x", UnitDBSPL, false, []float64{70, 71.5}, nil, nil}}},
		{"rows, semicolons", "20;70\n100; 71.5\n",
			[]want{{"x", "", false, []float64{70, 71.5}, nil, nil}}},
	} {
		t.Run(c.label, func(t *testing.T) {
			got, err := ReadTraces(strings.NewReader(c.text), "x")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d traces, want %d", len(got), len(c.want))
			}
			for i, w := range c.want {
				g := got[i]
				if g.Name != w.name || g.Unit != w.unit || g.IsTransfer() != w.transfer || g.Info != nil ||
					!slices.Equal(g.Level, w.level) || !slices.Equal(g.PhaseDeg, w.phase) || !slices.Equal(g.Coherence, w.coh) {
					t.Errorf("trace %d: %q %q transfer %v %v %v %v, want %+v", i, g.Name, g.Unit, g.IsTransfer(), g.Level, g.PhaseDeg, g.Coherence, w)
				}
			}
		})
	}
}

// TestReadREWFile: REW's "Export measurement as text" (testdata, as REW
// V5.20 writes it: CRLF lines, "*" comments, tab-separated frequency, SPL
// and phase) reads as a transfer function in dB SPL named after the file.
func TestReadREWFile(t *testing.T) {
	ts, err := ReadTracesFile("testdata/rew_measurement.txt")
	if err != nil {
		t.Fatal(err)
	}
	g := ts[0]
	if len(ts) != 1 || g.Name != "rew_measurement" || g.Unit != UnitDBSPL || !g.IsTransfer() || g.Coherence != nil {
		t.Fatalf("read %d traces: %+v", len(ts), g)
	}
	if !slices.Equal(g.FreqHz, []float64{20, 20.292, 1000, 10000, 20000}) || !slices.Equal(g.Level, []float64{68.421, 68.903, 75.55, 71.25, 60}) ||
		!slices.Equal(g.PhaseDeg, []float64{-12.3, -14.125, 45, -179.5, 3}) {
		t.Errorf("read %v %v %v", g.FreqHz, g.Level, g.PhaseDeg)
	}
}

// TestReadTracesErrors: each bad file is refused with the line at fault
// and a reason a user can act on.
func TestReadTracesErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"time_s,0,11.71875\n0,-10,-20\n", "line 1: this is a spectrogram"},
		{"freq_hz,level,colour\n1,2,3\n", `line 1: column "colour"`},
		{"freq_hz,magnitude_db,coherence\n1,2,0.5\n", "line 1: a transfer function needs"},
		{"freq_hz,level,level\n1,2,3\n", `line 1: column "level" twice`},
		{"freq_hz,magnitude_db,phase_deg,coherence\n1,2,3,0.5\n2,2,3,1.5\n", "line 3: coherence must be between 0 and 1"},
		{"freq_hz,magnitude_db,phase_deg\n1,2,NaN\n", "line 2: phase must be"},
		{"# prism reference\n# unit: dBFS\n# fft: many\nfreq_hz,level\n1,2\n", `line 3: fft "many" is not a number`},
		{"* REW\n20 70 1 2\n", "line 2: 4 values in a row"},
		{"* REW\n20 70 1\n30 71\n", "line 3: 2 values where the first row has 3"},
		{"* REW\n20 70 1\n\n10 71 2\n", "line 4: frequencies must increase"},
		{"* REW\n20 70 1\n30 71 x\n", `line 3: "x" is not a number`},
		{"# only a comment\n", "no header and no rows"},
		{"freq_hz,ch0,ch1\n0,1\n", "line 2: 2 values where the header has 3"},
	} {
		_, err := ReadTraces(strings.NewReader(c.text), "r.csv")
		var te *TraceError
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dsp: trace r.csv") || !asTraceError(err, &te) {
			t.Errorf("%q: %v, want a TraceError with %q", c.text, err, c.want)
		}
	}
	_, err := ReadTrace(strings.NewReader("freq_hz,ch0,ch1\n0,1,2\n"), "two")
	if err == nil || !strings.Contains(err.Error(), "holds 2 traces (two ch0, two ch1): choose one") {
		t.Errorf("ReadTrace of two channels: %v", err)
	}
}

func asTraceError(err error, te **TraceError) bool {
	e, ok := err.(*TraceError)
	*te = e
	return ok && e.Reason != ""
}

// TestTransferAt: a transfer function's phase between points goes the
// shorter way round (170° to −170° passes 180°, not 0°), interpolated in
// log-frequency like the magnitude; coherence likewise; REW's (none) is NaN.
func TestTransferAt(t *testing.T) {
	tr, err := NewTransferTrace("tf", []float64{100, 400, 1600}, []float64{0, 6, 0}, []float64{170, -170, -10}, []float64{0.5, 1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ f, phase, coh, mag float64 }{
		{50, 170, 0.5, 0},
		{100, 170, 0.5, 0},
		{200, 180, 0.75, 3},                  // halfway in log f: 170 + 10
		{400 * math.Sqrt2, -130, 0.875, 4.5}, // a quarter of the way to 1600 in log f: −170 + 40
		{1600, -10, 0.5, 0},
		{5000, -10, 0.5, 0},
	} {
		if p := tr.PhaseAt(c.f); math.Abs(p-c.phase) > 1e-9 {
			t.Errorf("phase at %v Hz: %v, want %v", c.f, p, c.phase)
		}
		if h := tr.CoherenceAt(c.f); math.Abs(h-c.coh) > 1e-12 {
			t.Errorf("coherence at %v Hz: %v, want %v", c.f, h, c.coh)
		}
		if m := tr.At(c.f); math.Abs(m-c.mag) > 1e-12 {
			t.Errorf("magnitude at %v Hz: %v, want %v", c.f, m, c.mag)
		}
	}
	tr.Coherence = nil
	if !math.IsNaN(tr.CoherenceAt(200)) {
		t.Error("coherence of a trace without it is not NaN")
	}
}
