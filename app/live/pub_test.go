package live

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/meter"
	"github.com/prismaudio/prism/gpufft"
)

// TestChannelCountChangesWhileViewsPull: the source's channel count goes
// up and down (mono, stereo, four channels, three) while another goroutine
// pulls every output channel a view might still ask for — those of the
// source before, the mix of each, one past the end — through Latest,
// Columns, ReadMeters and ReadStats, as the window's views do between
// switches. A channel the new source lacks reads empty (the old code
// indexed the 2-channel source's mix, 2, in the mono source's results and
// panicked); every channel it has reads its bins and the tone.
func TestChannelCountChangesWhileViewsPull(t *testing.T) {
	rec := apptest.StartGenerator(t, "sine:1000:-6", 48000, 2)
	cpu := gpufft.NewCPU(0)
	t.Cleanup(func() { cpu.Close() })
	s := DefaultSettings()
	s.FFT, s.Hop = 1024, 512
	l, err := New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	stopRun, stopPull := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { l.Run(stopRun) })
	wg.Go(func() { pullEveryChannel(t, l, stopPull) })
	defer func() {
		close(stopPull)
		close(stopRun)
		wg.Wait()
	}()
	for _, ch := range []int{1, 2, 4, 1, 3, 2, 1} {
		done := make(chan error, 1)
		l.SwitchSource(apptest.StartGenerator(t, "sine:1000:-6", 48000, ch), func(err error) { done <- err })
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("switch to %d channels: %v", ch, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("switch to %d channels: not made in 10 s", ch)
		}
		waitFrames(t, l, l.Frames()+8)
		var sp Spectrum
		for c := range ch + 1 { // each channel, then the mix
			l.Latest(c, &sp)
			if len(sp.Current) != 513 || math.Abs(sp.Peak.Freq-1000) > sp.BinHz {
				t.Errorf("%d channels, output %d: %d bins, peak %+v", ch, c, len(sp.Current), sp.Peak)
			}
		}
		for _, c := range []int{-1, ch + 1, 5} { // none of this source's
			l.Latest(c, &sp)
			if len(sp.Current)+len(sp.PeakHold)+len(sp.Bands) != 0 || sp.Peak.Freq != 0 || sp.Geometry.FFT != 1024 {
				t.Errorf("%d channels, output %d: %d bins, peak %+v, geometry %+v; want none", ch, c, len(sp.Current), sp.Peak, sp.Geometry)
			}
			if n, _, _ := l.Columns(c, make([][]float32, 4), 0); n != 0 {
				t.Errorf("%d channels, output %d: %d columns, want none", ch, c, n)
			}
		}
		if st := l.Stats(); st.Channels != ch {
			t.Errorf("stats say %d channels, want %d", st.Channels, ch)
		}
	}
}

// pullEveryChannel reads every output channel 0…5 (and −1) as the views
// do until stop, checking that what it reads is whole: a trace has the
// bins of the geometry it came with.
func pullEveryChannel(t *testing.T, l *Live, stop <-chan struct{}) {
	var sp Spectrum
	var m meter.Meters
	var st Stats
	cols := make([][]float32, 8)
	after := make([]uint64, 7)
	for {
		select {
		case <-stop:
			return
		default:
		}
		for c := -1; c <= 5; c++ {
			sp.Want = []Traces{WantAll, WantCurrent | WantPeakHold, WantBandsOnly}[(c+1)%3]
			l.Latest(c, &sp)
			if n := len(sp.Current); n != 0 && n != sp.Geometry.Bins() {
				t.Errorf("output %d: %d bins in a spectrum of geometry %+v", c, n, sp.Geometry)
				return
			}
			var n int
			n, after[c+1], _ = l.Columns(c, cols, after[c+1])
			for _, col := range cols[:n] {
				if len(col) != 513 {
					t.Errorf("output %d: a column of %d bins", c, len(col))
					return
				}
			}
		}
		l.ReadMeters(&m)
		if m.Channels > meter.MaxChannels {
			t.Errorf("meters: %d channels", m.Channels)
			return
		}
		l.ReadStats(&st)
	}
}

// waitFrames waits until l (run by another goroutine) has analyzed want
// frames in all, for at most 10 s.
func waitFrames(t *testing.T, l *Live, want uint64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); l.Frames() < want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d frames analyzed in 10 s, want %d", l.Frames(), want)
		}
	}
}

// TestColumnsEveryFrame: the live history holds every analyzed frame, in
// order, and a reader gets each exactly once.
func TestColumnsEveryFrame(t *testing.T) {
	engs := testEngines(t)
	rec := apptest.StartGenerator(t, "sweep:100:10000:-6:1", 48000, 1)
	s := DefaultSettings()
	s.FFT, s.Hop = 1024, 128
	l, err := New(rec, engs[0], s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cols := make([][]float32, 64)
	var after uint64
	got := 0
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if n, _ := l.Step(); n == 0 {
			time.Sleep(time.Millisecond)
		}
		n, next, _ := l.Columns(1, cols, after)
		if next != after+uint64(n) {
			t.Fatalf("Columns after %d: %d columns, next %d", after, n, next)
		}
		for _, c := range cols[:n] {
			if len(c) != 513 {
				t.Fatalf("column of %d bins", len(c))
			}
		}
		got += n
		after = next
	}
	st := l.Stats()
	if uint64(got) != st.Frames || got < 100 {
		t.Errorf("read %d columns, %d frames analyzed", got, st.Frames)
	}
}
