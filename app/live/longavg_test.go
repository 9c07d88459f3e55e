package live

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/gpufft"
)

// TestLongFramesFollowsTheTraces: Latest's LongFrames is the number of
// frames published since the reset as of the last batch whose traces
// crossed back (the frames the LongAvg it copies holds), and a reset
// starts it from 0; LongAvg is that trace's power in dB.
func TestLongFramesFollowsTheTraces(t *testing.T) {
	const outCh = 2
	geo := Geometry{Rate: 48000, FFT: 64, Hop: 16}
	bins := geo.Bins()
	var l Live
	l.pub.reset(geo, outCh, 0, 1, true)
	out := &gpufft.LiveOutput{Traces: make([]float32, outCh*gpufft.NumTraces*bins)}
	setLong := func(p float32) {
		for c := range outCh {
			tr := out.Traces[(c*gpufft.NumTraces+gpufft.TraceLong)*bins:][:bins]
			for k := range tr {
				tr[k] = p
			}
		}
	}
	win := gpufft.Window{Kind: gpufft.Hann}
	var sp Spectrum
	for i, st := range []struct {
		frames int
		traces bool
		power  float32
		want   uint64
		wantDB float64 // the LongAvg Latest reads
	}{
		{3, true, 0.01, 3, -20},
		{2, false, 0.5, 3, -20}, // no traces: LongAvg and its count stay as they were
		{4, true, 0.001, 9, -30},
		{1, false, 1, 9, -30},
		{5, true, 1, 15, 0},
	} {
		setLong(st.power)
		l.pub.publish(out, nil, win, st.frames, st.traces)
		for c := range outCh {
			l.Latest(c, &sp)
			if sp.LongFrames != st.want || math.Abs(float64(sp.LongAvg[7])-st.wantDB) > 1e-4 {
				t.Errorf("step %d channel %d: LongFrames %d LongAvg %.4f dB, want %d and %.1f", i, c, sp.LongFrames, sp.LongAvg[7], st.want, st.wantDB)
			}
		}
	}
	l.pub.reset(geo, outCh, 0, 1, true)
	if l.Latest(0, &sp); sp.LongFrames != 0 {
		t.Errorf("after a reset: LongFrames %d, want 0", sp.LongFrames)
	}
	setLong(0.1)
	l.pub.publish(out, nil, win, 6, true)
	if l.Latest(1, &sp); sp.LongFrames != 6 {
		t.Errorf("6 frames after a reset: LongFrames %d", sp.LongFrames)
	}
	if n := testing.AllocsPerRun(20, func() { l.Latest(0, &sp) }); n != 0 && !raceEnabled {
		t.Errorf("Latest allocates %v times", n)
	}
}
