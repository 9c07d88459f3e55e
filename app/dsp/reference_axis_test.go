package dsp

import (
	"math"
	"strings"
	"testing"
)

// TestOffsetTo: the offsets that put a reference on an axis of another
// unit, computed here by hand, and the refusals with their reasons.
func TestOffsetTo(t *testing.T) {
	// Hann, N=4096 at 48 kHz: ENBW 1.5 bins of 11.71875 Hz = 17.578125 Hz;
	// dBFS/Hz = dBFS − 10·log10(2·17.578125) = dBFS − 15.4600254...
	const nbwDB = 15.460025441274754 // 10·log10(35.15625), by hand
	hann := &TraceInfo{SampleRateHz: 48000, FFT: 4096, Window: "hann", ENBWBins: 1.5}
	cal := Axis{Calibrated: true, CalOffsetDB: 120.25}
	ax := func(u string, a Axis) Axis { a.Unit = u; return a }
	tr := func(u string, in *TraceInfo) *Trace {
		t, _ := NewTrace("ref", []float64{100, 1000}, []float64{-40, -50})
		t.Unit, t.Info = u, in
		return t
	}
	withMic := &TraceInfo{Mic: "umik.txt"}
	for _, c := range []struct {
		name   string
		t      *Trace
		a      Axis
		offset float64
		reason string // "" converted
	}{
		{"same unit", tr(UnitDBFS, nil), ax(UnitDBFS, Axis{}), 0, ""},
		{"unit not known", tr("", nil), ax(UnitDBSPL, cal), 0, ""},
		{"dBFS on dB SPL", tr(UnitDBFS, nil), ax(UnitDBSPL, cal), 120.25, ""},
		{"dB SPL on dBFS, calibrated", tr(UnitDBSPL, nil), ax(UnitDBFS, cal), -120.25, ""},
		{"dB SPL on dBFS, no calibration", tr(UnitDBSPL, &TraceInfo{CalNote: "94 dB calibrator", CalOffsetDB: 118}), ax(UnitDBFS, Axis{}), 0,
			"It is in dB SPL (calibration: 94 dB calibrator); the axis is dBFS and no calibration is set — use Calibrate… or switch the unit to dB SPL."},
		{"dBFS on dBFS/Hz", tr(UnitDBFS, hann), ax(UnitDBFSPerHz, Axis{}), -nbwDB, ""},
		{"dBFS/Hz on dBFS", tr(UnitDBFSPerHz, hann), ax(UnitDBFS, Axis{}), nbwDB, ""},
		{"dBFS/Hz on dB SPL", tr(UnitDBFSPerHz, hann), ax(UnitDBSPL, cal), nbwDB + 120.25, ""},
		{"dB SPL on dBFS/Hz", tr(UnitDBSPL, hann), ax(UnitDBFSPerHz, cal), -120.25 - nbwDB, ""},
		{"dBFS on dBFS/Hz, window not known", tr(UnitDBFS, nil), ax(UnitDBFSPerHz, Axis{}), 0,
			"Its window and FFT size are not recorded, so its dBFS levels cannot be shown in dBFS/Hz — switch the unit to dBFS."},
		{"microphone on none", tr(UnitDBSPL, withMic), ax(UnitDBSPL, cal), 0,
			"It is corrected for the microphone umik.txt and the axis is not — load that microphone file to show it."},
		{"none on microphone", tr(UnitDBSPL, hann), ax(UnitDBSPL, Axis{Calibrated: true, Mic: "umik.txt"}), 0,
			"It has no microphone correction and the axis is corrected for umik.txt — remove the microphone file to show it."},
		{"same microphone", tr(UnitDBFS, withMic), ax(UnitDBSPL, Axis{Calibrated: true, CalOffsetDB: 3, Mic: "umik.txt"}), 3, ""},
		{"microphone not known", tr(UnitDBSPL, nil), ax(UnitDBSPL, Axis{Calibrated: true, Mic: "umik.txt"}), 0, ""},
		{"other unit", tr("dBu", nil), ax(UnitDBFS, Axis{}), 0, `Prism does not convert "dBu" levels — switch the unit to dBu.`},
	} {
		off, err := c.t.OffsetTo(c.a)
		var ae *AxisError
		switch {
		case c.reason == "" && (err != nil || math.Abs(off-c.offset) > 1e-12):
			t.Errorf("%s: %v, %v; want %v", c.name, off, err, c.offset)
		case c.reason != "" && (err == nil || !asAxisError(err, &ae) || ae.Reason != c.reason || !strings.HasPrefix(err.Error(), "dsp: trace ref: ")):
			t.Errorf("%s: %v, %v; want the reason %q", c.name, off, err, c.reason)
		}
	}
	// the engine's own rule for densities agrees with the hand value
	hw := make([]float64, 4096)
	for i := range hw {
		hw[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/4096)
	}
	s := SumsOf(hw)
	if d := s.UnitOffsetDB(DBFSPerHz, 48000) + nbwDB; math.Abs(d) > 1e-9 || math.Abs(s.ENBW()-1.5) > 1e-12 {
		t.Errorf("UnitOffsetDB %v, ENBW %v: differ from the hand values", s.UnitOffsetDB(DBFSPerHz, 48000), s.ENBW())
	}
	tf, _ := NewTransferTrace("tf", []float64{1, 2}, []float64{0, 0}, []float64{0, 0}, nil)
	if _, err := tf.OffsetTo(Axis{Unit: UnitDB}); err == nil {
		t.Error("a transfer function was put on a spectrum axis")
	}
}

func asAxisError(err error, ae **AxisError) bool {
	e, ok := err.(*AxisError)
	*ae = e
	return ok
}
