package ui

import (
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/app/sweep"
)

// TestMeasureTab: showing the Measure tab pauses the spectrum analysis
// and shows the Measure panel instead of the controls; Measure runs the
// engine's measurement with the panel's settings (the output listed by
// the engine offered), its result is drawn and Store response keeps it
// among the window's references as a transfer function; leaving the tab
// brings the controls back.
func TestMeasureTab(t *testing.T) {
	e := newFakeEngine()
	// a unit impulse 10 samples after the start of a 1-s sweep's response
	ir := make([]float64, 4800)
	ir[10] = 1
	e.measureRes = &session.Measurement{Settings: session.DefaultMeasureSettings(), Spec: sweep.NewSpec(20, 20000, 1, 48000),
		Result: sweep.Result{Rate: 48000, IR: ir, Zero: 10, Peak: 10, Polarity: 1}, RoomErr: "room: too short", LatencyMs: []float64{0}}
	w, _ := newTestWindow(t, e)
	w.tabs.Select(w.measTab)
	if !e.paused || w.liveSide.Visible() || w.xferSide.Visible() || !w.measSide.Visible() {
		t.Fatalf("measure tab: paused %v, controls shown %v, transfer panel %v, measure panel %v", e.paused, w.liveSide.Visible(), w.xferSide.Visible(), w.measSide.Visible())
	}
	w.mp.Start()
	waitFor(t, func() bool { return w.mp.Result() != nil })
	if len(e.measures) != 1 || e.measures[0] != session.DefaultMeasureSettings() {
		t.Errorf("measured with %+v", e.measures)
	}
	if d := w.mp.View().Data(); d == nil || len(d.FreqHz) == 0 || !strings.Contains(d.Summary, "20 Hz–20 kHz sweep") {
		t.Fatalf("the view shows %+v", d)
	}
	if err := w.mp.StoreResponse(); err != nil {
		t.Fatal(err)
	}
	refs := w.rp.Refs()
	if len(refs) != 1 || !refs[0].IsTransfer() || !strings.HasPrefix(refs[0].Trace.Name, "sweep ch 1 ") {
		t.Fatalf("references %v", refs)
	}
	w.tabs.Select(w.liveTab)
	if e.paused || !w.liveSide.Visible() || w.measSide.Visible() {
		t.Errorf("live tab: paused %v, controls shown %v, measure panel %v", e.paused, w.liveSide.Visible(), w.measSide.Visible())
	}
}
