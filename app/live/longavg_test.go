package live

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
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
	win := window.Func{Kind: window.Hann}
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

// TestLiveLongAverage: on every engine, a steady tone's long-term average
// reads what the current spectrum reads at the tone, over no more frames
// than were analyzed; Apply (the window's reset) starts it again, with
// no more frames than analyzed since.
func TestLiveLongAverage(t *testing.T) {
	for _, engs := range testEngines(t) {
		rec := apptest.StartGenerator(t, "sine:1000:-6", 48000, 1)
		l, err := New(rec, engs, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		runLive(l, 600*time.Millisecond)
		runFrames(l, 10)
		var sp Spectrum
		l.Latest(0, &sp)
		k := int(math.Round(1000 / sp.BinHz))
		before := sp.LongFrames
		if before == 0 || before > l.Frames() || math.Abs(float64(sp.LongAvg[k]-sp.Current[k])) > 0.2 {
			t.Errorf("%s: %d frames averaged of %d; at 1 kHz long-term %.2f dBFS, current %.2f", engs.Preferred.Name(),
				before, l.Frames(), sp.LongAvg[k], sp.Current[k])
		}
		l.Apply(DefaultSettings())
		since := 0
		for since < 8 { // Apply takes effect at the next Step
			n, err := l.Step()
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				time.Sleep(time.Millisecond)
			}
			since += n
		}
		l.Latest(0, &sp)
		if sp.LongFrames > uint64(since) {
			t.Errorf("%s: after Apply the long-term average holds %d frames, %d analyzed since", engs.Preferred.Name(), sp.LongFrames, since)
		}
		l.Close()
	}
}

// TestLatestWant: Latest fills the traces Want names and leaves the others
// empty, each equal to what a full read gives; the peak comes with the
// current spectrum; bands only fills no trace. It does not allocate.
func TestLatestWant(t *testing.T) {
	l := startCPULive(t, "sine:1000:-6", DefaultSettings())
	defer l.Close()
	runFrames(l, 10)
	var all, some, bands Spectrum
	l.Latest(0, &all) // no Step in between: the same published traces
	some.Want = WantCurrent | WantPeakHold
	l.Latest(0, &some)
	bands.Want = WantBandsOnly
	l.Latest(0, &bands)
	full := all.traces()
	for i, tr := range some.traces() {
		switch {
		case some.Want&(1<<i) == 0 && len(*tr) != 0:
			t.Errorf("trace %d: %d bins, want none", i, len(*tr))
		case some.Want&(1<<i) != 0 && !slices.Equal(*tr, *full[i]):
			t.Errorf("trace %d differs from the full read", i)
		}
		if n := len(*bands.traces()[i]); n != 0 {
			t.Errorf("bands only: trace %d has %d bins", i, n)
		}
	}
	if len(all.MinHold) != 2049 || some.Peak != all.Peak || all.Peak.Freq == 0 || bands.Peak.Freq != 0 || bands.BinHz != all.BinHz {
		t.Errorf("peaks %+v / %+v / %+v, %d bins", all.Peak, some.Peak, bands.Peak, len(all.MinHold))
	}
	if n := testing.AllocsPerRun(20, func() { l.Latest(0, &some) }); n != 0 && !raceEnabled {
		t.Errorf("Latest allocates %v times", n)
	}
}

// BenchmarkLatest is one read of a 2^20-point spectrum (524,289 bins of
// every power a trace holds, so every bin takes its logarithm): all six
// traces (Want 0), the three a spectrum view draws by default (current,
// exponential average, peak hold), and the bands alone (the RTA's read).
func BenchmarkLatest(b *testing.B) {
	s := DefaultSettings()
	s.FFT, s.Hop = 1<<20, 1<<18
	l := startCPULive(b, "sine:1000:-6", s)
	defer l.Close()
	for _, sp := range l.pub.spectra {
		for _, tr := range [][]float32{sp.Current, sp.ExpAvg, sp.LinAvg, sp.LongAvg, sp.PeakHold, sp.MinHold} {
			for k := range tr {
				tr[k] = 1e-9 * float32(k+1)
			}
		}
	}
	for _, c := range []struct {
		name string
		want Traces
	}{{"all", 0}, {"drawn", WantCurrent | WantExpAvg | WantPeakHold}, {"bands", WantBandsOnly}} {
		b.Run(c.name, func(b *testing.B) {
			sp := Spectrum{Want: c.want}
			for b.Loop() {
				l.Latest(2, &sp)
			}
		})
	}
}

// TestTraceInterval: the traces cross back every 15 ms up to sizes whose
// crossings would pass traceBytesPerSecond, and then as often as it
// allows (a display's frame rate at the usual sizes; 2^20 points on 8
// channels and the mix: 113 MB a crossing, about 9 a second).
func TestTraceInterval(t *testing.T) {
	for _, c := range []struct {
		fft, outCh int
		want       time.Duration
	}{
		{4096, 3, 15 * time.Millisecond},
		{65536, 3, 15 * time.Millisecond},
		{1 << 20, 3, 35 * time.Millisecond},  // 37.7 MB
		{1 << 20, 9, 105 * time.Millisecond}, // 113 MB
		{1 << 18, 9, 26 * time.Millisecond},  // 28 MB
	} {
		got := traceInterval(c.fft/2+1, c.outCh)
		bytes := float64(6 * 4 * (c.fft/2 + 1) * c.outCh)
		if d := got - c.want; d < -time.Millisecond || d > time.Millisecond || bytes/got.Seconds() > traceBytesPerSecond*1.0001 {
			t.Errorf("N=%d, %d outputs: every %v, want %v", c.fft, c.outCh, got, c.want)
		}
	}
}
