package view

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

// TestRefOffset: the offsets that put a reference on an axis of another
// unit, computed here by hand, and the refusals with their reasons.
func TestRefOffset(t *testing.T) {
	// Hann, N=4096 at 48 kHz: ENBW 1.5 bins of 11.71875 Hz = 17.578125 Hz;
	// dBFS/Hz = dBFS − 10·log10(2·17.578125) = dBFS − 15.4600254...
	const nbwDB = 15.460025441274754 // 10·log10(35.15625), by hand
	hann := &dsp.TraceInfo{SampleRateHz: 48000, FFT: 4096, Window: "hann", ENBWBins: 1.5}
	cal := RefAxis{Calibrated: true, CalOffsetDB: 120.25}
	ax := func(u string, a RefAxis) RefAxis { a.Unit = u; return a }
	tr := func(u string, in *dsp.TraceInfo) *dsp.Trace {
		t, _ := dsp.NewTrace("ref", []float64{100, 1000}, []float64{-40, -50})
		t.Unit, t.Info = u, in
		return t
	}
	withMic := &dsp.TraceInfo{Mic: "umik.txt"}
	for _, c := range []struct {
		name   string
		t      *dsp.Trace
		a      RefAxis
		offset float64
		reason string // "" converted
	}{
		{"same unit", tr(dsp.UnitDBFS, nil), ax(dsp.UnitDBFS, RefAxis{}), 0, ""},
		{"unit not known", tr("", nil), ax(dsp.UnitDBSPL, cal), 0, ""},
		{"dBFS on dB SPL", tr(dsp.UnitDBFS, nil), ax(dsp.UnitDBSPL, cal), 120.25, ""},
		{"dB SPL on dBFS, calibrated", tr(dsp.UnitDBSPL, nil), ax(dsp.UnitDBFS, cal), -120.25, ""},
		{"dB SPL on dBFS, no calibration", tr(dsp.UnitDBSPL, &dsp.TraceInfo{CalNote: "94 dB calibrator", CalOffsetDB: 118}), ax(dsp.UnitDBFS, RefAxis{}), 0,
			"It is in dB SPL (calibration: 94 dB calibrator); the axis is dBFS and no calibration is set — use Calibrate… or switch the unit to dB SPL."},
		{"dBFS on dBFS/Hz", tr(dsp.UnitDBFS, hann), ax(dsp.UnitDBFSPerHz, RefAxis{}), -nbwDB, ""},
		{"dBFS/Hz on dBFS", tr(dsp.UnitDBFSPerHz, hann), ax(dsp.UnitDBFS, RefAxis{}), nbwDB, ""},
		{"dBFS/Hz on dB SPL", tr(dsp.UnitDBFSPerHz, hann), ax(dsp.UnitDBSPL, cal), nbwDB + 120.25, ""},
		{"dB SPL on dBFS/Hz", tr(dsp.UnitDBSPL, hann), ax(dsp.UnitDBFSPerHz, cal), -120.25 - nbwDB, ""},
		{"dBFS on dBFS/Hz, window not known", tr(dsp.UnitDBFS, nil), ax(dsp.UnitDBFSPerHz, RefAxis{}), 0,
			"Its window and FFT size are not recorded, so its dBFS levels cannot be shown in dBFS/Hz — switch the unit to dBFS."},
		{"microphone on none", tr(dsp.UnitDBSPL, withMic), ax(dsp.UnitDBSPL, cal), 0,
			"It was made with the microphone file umik.txt and the axis with no microphone file — load the microphone file umik.txt to show it."},
		{"none on microphone", tr(dsp.UnitDBSPL, hann), ax(dsp.UnitDBSPL, RefAxis{Calibrated: true, Mic: "umik.txt"}), 0,
			"It was made with no microphone file and the axis with the microphone file umik.txt — remove the microphone file to show it."},
		{"same microphone", tr(dsp.UnitDBFS, withMic), ax(dsp.UnitDBSPL, RefAxis{Calibrated: true, CalOffsetDB: 3, Mic: "umik.txt"}), 3, ""},
		{"microphone not known", tr(dsp.UnitDBSPL, nil), ax(dsp.UnitDBSPL, RefAxis{Calibrated: true, Mic: "umik.txt"}), 0, ""},
		{"other unit", tr("dBu", nil), ax(dsp.UnitDBFS, RefAxis{}), 0, `Prism does not convert "dBu" levels — switch the unit to dBu.`},
	} {
		off, why := RefOffset(c.t, c.a)
		if why != c.reason || math.Abs(off-c.offset) > 1e-12 {
			t.Errorf("%s: %v, %q; want %v, %q", c.name, off, why, c.offset, c.reason)
		}
	}
	// the engine's own rule for densities agrees with the hand value
	hw := make([]float64, 4096)
	for i := range hw {
		hw[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/4096)
	}
	s := dsp.SumsOf(hw)
	if d := s.UnitOffsetDB(dsp.DBFSPerHz, 48000) + nbwDB; math.Abs(d) > 1e-9 || math.Abs(s.ENBW()-1.5) > 1e-12 {
		t.Errorf("UnitOffsetDB %v, ENBW %v: differ from the hand values", s.UnitOffsetDB(dsp.DBFSPerHz, 48000), s.ENBW())
	}
	tf, _ := dsp.NewTransferTrace("tf", []float64{1, 2}, []float64{0, 0}, []float64{0, 0}, nil)
	if _, why := RefOffset(tf, RefAxis{Unit: dsp.UnitDB}); why == "" {
		t.Error("a transfer function was put on a spectrum axis")
	}
}
