package dsp

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const umik = `"Sens Factor =-1.378dB, AGain =18dB, SERNO: 7001234"
* a REW-style comment
10	-2.5	12

20,-1.0,8
  1000 0 0
20000	 3.25	-40
`

func TestParseMicResponse(t *testing.T) {
	m, err := ParseMicResponse(strings.NewReader(umik), "umik.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.FreqHz) != 4 || m.PhaseDeg == nil || m.DB[3] != 3.25 || m.PhaseDeg[0] != 12 {
		t.Fatalf("parsed %+v", m)
	}
	// Linear in log f: halfway between 20 Hz and 1 kHz in log is
	// √(20·1000) Hz, where the response is halfway, −0.5 dB.
	for _, c := range []struct{ f, want float64 }{
		{5, -2.5}, {10, -2.5}, {math.Sqrt(200), -1.75}, {math.Sqrt(20000), -0.5},
		{1000, 0}, {math.Sqrt(2e7), 1.625}, {20000, 3.25}, {96000, 3.25},
	} {
		if got := m.ResponseDB(c.f); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ResponseDB(%v) = %v, want %v", c.f, got, c.want)
		}
	}
	lv := []float64{60, 60}
	m.Correct(lv, []float64{10, 20000})
	if lv[0] != 62.5 || lv[1] != 56.75 {
		t.Errorf("Correct: %v", lv)
	}
}

// TestMicResponseRoundTrip: WriteTo then ParseMicResponse gives the same
// values bit for bit, with and without phase.
func TestMicResponseRoundTrip(t *testing.T) {
	for _, phase := range []bool{false, true} {
		m := &MicResponse{Name: "mic"}
		for i := range 200 {
			m.FreqHz = append(m.FreqHz, 5*math.Pow(1.05, float64(i)))
			m.DB = append(m.DB, math.Sin(float64(i)/7)/3)
			if phase {
				m.PhaseDeg = append(m.PhaseDeg, float64(i)*0.1)
			}
		}
		var b strings.Builder
		n, err := m.WriteTo(&b)
		if err != nil || n != int64(b.Len()) {
			t.Fatalf("WriteTo: %v, %d of %d bytes", err, n, b.Len())
		}
		got, err := ParseMicResponse(strings.NewReader(b.String()), "mic")
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.FreqHz {
			if got.FreqHz[i] != m.FreqHz[i] || got.DB[i] != m.DB[i] || (phase && got.PhaseDeg[i] != m.PhaseDeg[i]) {
				t.Fatalf("point %d differs", i)
			}
		}
		if !phase && got.PhaseDeg != nil {
			t.Error("phase appeared")
		}
	}
}

func TestParseMicResponseErrors(t *testing.T) {
	for _, c := range []struct {
		text string
		line int
		why  string
	}{
		{"10 1\n20 x\n", 2, "not a finite number"},
		{"10 1\n10 2\n", 2, "does not increase"},
		{"* c\n0 1\n", 2, "not positive"},
		{"-5 1\n", 1, "not positive"},
		{"10 1 2\n20 1\n", 2, "fields after"},
		{"10\n", 1, "want 2 or 3 fields"},
		{"10 1 2 3\n", 1, "want 2 or 3 fields"},
		{"10 nan\n", 1, "not a finite number"},
	} {
		_, err := ParseMicResponse(strings.NewReader(c.text), "bad.txt")
		var ce *CalFileError
		if !errors.As(err, &ce) || ce.Line != c.line || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "bad.txt line") {
			t.Errorf("%q: %v, want line %d %q", c.text, err, c.line, c.why)
		}
	}
	if _, err := ParseMicResponse(strings.NewReader("* only\n\n"), "empty.txt"); err == nil || !strings.Contains(err.Error(), "no data") {
		t.Errorf("empty file: %v", err)
	}
}

// TestLevelCalRoundTrip: a calibrator recording of a 1 kHz tone at
// −20 dBFS with hum and noise, declared 94 dB SPL, gives an offset of
// 114 dB; through it a full-scale sine reads 114 dB SPL and the tone
// itself 94.00.
func TestLevelCalRoundTrip(t *testing.T) {
	const fs = 48000
	x, _ := distortionSignal(5*fs, fs, 1000, 0.1, map[int]float64{3: 0.01}, 1e-3, 9)
	for i := range x {
		x[i] += float32(0.01 * math.Sin(2*math.Pi*50*float64(i)/fs)) // hum
	}
	c, err := CalFromCalibrator(x, fs, 1000, 94)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "offset", c.OffsetDB, 114, 0.01)
	near(t, "full scale", c.DBSPL(0), 114, 0.01)
	near(t, "the tone", c.DBSPL(-20), 94, 0.01)
	d, err := CalFromDBSPL(120)
	if err != nil || d.DBSPL(-6) != 114 {
		t.Errorf("CalFromDBSPL(120): %v, %v", d, err)
	}
	for _, bad := range []float64{-1, 250, math.NaN()} {
		if _, err := CalFromDBSPL(bad); err == nil {
			t.Errorf("CalFromDBSPL(%v): no error", bad)
		}
	}
	if _, err := CalFromRecording(math.Inf(-1), 94); err == nil {
		t.Error("silent calibrator: no error")
	}
	if _, err := CalFromCalibrator(x, fs, 250, 94); err == nil {
		t.Error("calibrator at the wrong frequency: no error")
	}
}
