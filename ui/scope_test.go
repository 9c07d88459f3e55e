package ui

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/app/live/scopetap"
	"github.com/prismaudio/prism/app/pitch"
	"github.com/prismaudio/prism/app/scope"
	"github.com/prismaudio/prism/ui/panel"
)

// ScopeSource is the fake's tap, which the tests write.
func (e *fakeEngine) ScopeSource() scope.Source { return e.scopeTap() }

func (e *fakeEngine) scopeTap() *scopetap.Tap {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tap == nil {
		e.tap = scopetap.New(2)
	}
	return e.tap
}

// FilePitch is the synthetic file's chirp (500·8^(t/4) Hz) every 10 ms.
func (e *fakeEngine) FilePitch(path string, o pitch.FileOptions) ([]pitch.Point, error) {
	e.mu.Lock()
	e.pitchCalls = append(e.pitchCalls, path)
	e.mu.Unlock()
	var pts []pitch.Point
	for t := 0.05; t < 3.95; t += 0.01 {
		pts = append(pts, pitch.Point{TimeS: t, Estimate: pitch.Estimate{F0Hz: 500 * math.Pow(8, t/4), Confidence: 0.9}})
	}
	return pts, nil
}

// FileSamples are 4 s of a 200 Hz sine (0.5) at 48 kHz.
func (e *fakeEngine) FileSamples(path string, ch int) ([]float32, int, error) {
	e.mu.Lock()
	e.pitchCalls = append(e.pitchCalls, "samples:"+path)
	e.mu.Unlock()
	x := make([]float32, 4*48000)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*200*float64(i)/48000))
	}
	return x, 48000, nil
}

// writeSine writes seconds of a two-channel 1 kHz sine (0.5) into tap
// from pos on and returns the position after it.
func writeSine(tap *scopetap.Tap, pos uint64, seconds float64) uint64 {
	buf := make([]float32, 2*480)
	for n := int(seconds * 100); n > 0; n-- {
		for i := range 480 {
			v := float32(0.5 * math.Sin(2*math.Pi*1000*float64(pos+uint64(i))/48000))
			buf[2*i], buf[2*i+1] = v, v
		}
		tap.Write(buf, 2, 48000, pos)
		pos += 480
	}
	return pos
}

// V cycles the lower pane waterfall → RTA → scope → pitch → waterfall,
// each shown alone with the scope's section only under scope and pitch;
// the scope pulls triggered traces through the window's tick; O arms a
// single shot that holds, O arms it again, O while armed goes back to
// auto; the pitch trace reads the tap's tone.
func TestScopeLowerPane(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	sv, pv := w.sp.ScopeView(), w.sp.PitchView()
	shown := func(want string) {
		t.Helper()
		settle(t, w)
		if w.set.Lower != want || w.wf.Visible() != (want == "waterfall") || w.rta.Visible() != (want == "rta") ||
			sv.Visible() != (want == panel.LowerScope) || pv.Visible() != (want == panel.LowerPitch) ||
			w.sp.Section().Visible() != (want == panel.LowerScope || want == panel.LowerPitch) {
			t.Fatalf("lower %q: waterfall %v, RTA %v, scope %v, pitch %v, section %v; want %q", w.set.Lower,
				w.wf.Visible(), w.rta.Visible(), sv.Visible(), pv.Visible(), w.sp.Section().Visible(), want)
		}
	}
	shown("waterfall")
	w.typedRune('v')
	shown("rta")
	w.typedRune('v')
	shown(panel.LowerScope)

	tap := e.scopeTap()
	pos := writeSine(tap, 0, 0.1)
	w.Pull()
	_, trig, triggered, ok := sv.Trace()
	if !ok || !triggered || math.Abs(trig-float64(len(mustTrace(t, sv)))/2) > 1 {
		t.Fatalf("scope trace: ok %v, triggered %v, trigger at %v", ok, triggered, trig)
	}
	w.typedRune('o') // single, armed
	if sv.Settings().Trigger.Mode != scope.Single {
		t.Fatalf("O: mode %v, want single", sv.Settings().Trigger.Mode)
	}
	for range 5 {
		pos = writeSine(tap, pos, 0.02)
		w.Pull()
	}
	if !sv.Held() {
		t.Fatalf("single shot not held after 0.1 s of a triggering sine")
	}
	held := append([]float32(nil), mustTrace(t, sv)...)
	pos = writeSine(tap, pos, 0.05)
	w.Pull()
	if got := mustTrace(t, sv); !sv.Held() || got[0] != held[0] || got[len(got)/3] != held[len(held)/3] {
		t.Errorf("the held trace changed")
	}
	w.typedRune('o') // armed again
	if sv.Held() {
		t.Errorf("O on a held shot: still held")
	}
	w.typedRune('o') // back to auto
	if sv.Settings().Trigger.Mode != scope.Auto {
		t.Errorf("O while armed: mode %v, want auto", sv.Settings().Trigger.Mode)
	}

	w.typedRune('v')
	shown(panel.LowerPitch)
	for range 10 {
		pos = writeSine(tap, pos, 0.05)
		w.Pull()
	}
	if r := pv.Readout(); len(pv.Points()) < 20 || len(r) < 3 || r[:3] != "B5 " {
		t.Errorf("pitch of a 1 kHz sine: %d points, readout %q (want B5, 1 kHz is B5 +14¢)", len(pv.Points()), r)
	}
	w.typedRune('v')
	shown("waterfall")
}

func mustTrace(t *testing.T, sv interface {
	Trace() ([]float32, float64, bool, bool)
}) []float32 {
	t.Helper()
	x, _, _, ok := sv.Trace()
	if !ok {
		t.Fatal("no trace")
	}
	return x
}

// P in the File workspace puts the file's pitch track (the engine's
// FilePitch, asked once per file) over the spectrogram (the view's test
// checks the drawing); P again takes it away; P in the Live workspace
// does nothing. O there shows the scope at the cursor, beside P's.
func TestFilePitchOverlay(t *testing.T) {
	e := newFakeEngine()
	e.file = syntheticFile()
	w, _ := newTestWindow(t, e)
	w.typedRune('p')
	if w.sp.FilePitchOn() {
		t.Fatalf("P in the Live workspace turned the file's pitch track on")
	}
	w.tabs.Select(w.fileTab)
	w.fp.OpenFile("synthetic.wav")
	waitFor(t, func() bool { return w.fview.File() != nil })
	w.typedRune('p')
	waitFor(t, func() bool { e.mu.Lock(); defer e.mu.Unlock(); return len(e.pitchCalls) == 1 && w.fview.Overlay != nil })
	waitFor(t, func() bool { return w.sp.FilePitchOn() })
	w.typedRune('p')
	if w.sp.FilePitchOn() || w.fview.Overlay != nil {
		t.Errorf("P again: the track is still on")
	}
	w.typedRune('p')
	w.typedRune('p')
	e.mu.Lock()
	if len(e.pitchCalls) != 1 {
		t.Errorf("FilePitch asked %d times, want once", len(e.pitchCalls))
	}
	e.mu.Unlock()

	// O in the File workspace: the scope at the cursor, the file's samples
	// read once; with P on as well both draw; O again leaves P's
	w.typedRune('o')
	waitFor(t, func() bool { return w.sp.FileScopeOn() && len(w.sp.FileScope().Samples) == 4*48000 })
	if w.fview.Overlay == nil || w.sp.ScopeView().Settings().Trigger.Mode != scope.Auto {
		t.Errorf("O in the File workspace: overlay %v, live scope mode %v", w.fview.Overlay != nil, w.sp.ScopeView().Settings().Trigger.Mode)
	}
	w.typedRune('p')
	w.typedRune('o')
	if w.sp.FileScopeOn() || !w.sp.FilePitchOn() || w.fview.Overlay == nil {
		t.Errorf("O again: scope %v, pitch %v, overlay %v", w.sp.FileScopeOn(), w.sp.FilePitchOn(), w.fview.Overlay != nil)
	}
	w.typedRune('p')
	if w.fview.Overlay != nil {
		t.Errorf("both off: an overlay is still set")
	}
}
