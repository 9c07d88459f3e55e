//go:build cgo

package live

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestCaptureTones: tones played into the null sink are captured through
// PortAudio and analyzed live at the right frequencies (within one bin)
// and levels (within 0.5 dB).
func TestCaptureTones(t *testing.T) {
	apptest.RequireAudio(t)
	apptest.PlayTones(t, 5, 0.5, 1000, 3000)
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.OpenCapture(audio.CaptureConfig{}) }, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	s := DefaultSettings()
	s.Window = window.Func{Kind: window.FlatTop}
	l, err := New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runLive(l, 2*time.Second)
	var sp Spectrum
	for c, hz := range []float64{1000, 3000} {
		l.Latest(c, &sp)
		k := int(math.Round(hz / sp.BinHz))
		pk, lv := apptest.PeakIn(sp.Current, 1, len(sp.Current))
		// amplitude 0.5 in 16-bit: −6.02 dBFS
		if max(pk-k, k-pk) > 1 || math.Abs(float64(lv)+6.02) > 0.5 {
			t.Errorf("channel %d: peak at bin %d (%.0f Hz) %.2f dBFS; want %.0f Hz at −6.02 ± 0.5", c, pk, float64(pk)*sp.BinHz, lv, hz)
		}
	}
	st := l.Stats()
	if st.Frames < 40 || st.Stalls != 0 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("captured %d frames at %d Hz from %s; latency p50 %.2f ms p99 %.2f ms", st.Frames, st.SampleRate, st.Source, st.LatencyP50Ms, st.LatencyP99Ms)
}

// TestCaptureStalledSource: a source that delivers 0.1 s and then never
// again (each reopening stalls at once) ends the capture at its deadline
// with ErrIncomplete saying since when there was no input; the captured
// part is written, and the rest of the second as gap rows (real time
// kept), counted as outage in the statistics.
func TestCaptureStalledSource(t *testing.T) {
	first := true
	rec, err := audio.StartRecorder(func() (audio.Source, error) {
		blocks := 0
		if first {
			blocks, first = 20, false // 20 × 240 samples = 0.1 s
		}
		return &stallingSource{blocks: blocks, closed: make(chan struct{})}, nil
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	out := apptest.TempPath(t, "cap.npy")
	opts := CaptureOptions{FFT: 256, Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: -1,
		Seconds: 1, Out: out, Format: encode.FormatNPY, Grace: 300 * time.Millisecond}
	start := time.Now()
	st, err := Capture(context.Background(), rec, engine.Pair{Preferred: cpu, CPU: cpu}, opts)
	took := time.Since(start)
	t.Logf("ended after %v: %v", took, err)
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "outage: no input since") {
		t.Fatalf("error %v, want ErrIncomplete and the outage", err)
	}
	if took > 1300*time.Millisecond+time.Second { // deadline, plus a loaded machine's slack
		t.Errorf("took %v, want about 1.3 s", took)
	}
	rows, cols, vals := apptest.ReadNPY(t, out)
	real := 0
	for real < rows && !math.IsNaN(float64(vals[real*cols])) {
		real++
	}
	if cols != 129 || rows != 187 || real < 5 || real > 18 { // 187 frames: the whole second
		t.Fatalf("%d×%d written, %d real rows: want 187 rows, the first ≤ 18 (0.1 s) real", rows, cols, real)
	}
	for i, v := range vals[real*cols:] {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("row %d after the outage began is not a gap", real+i/cols)
		}
	}
	if st.DroppedOutageFrames < 48000-4800 || st.DroppedOutageFrames > uint64(48000-real*256) ||
		st.DroppedFrames != st.DroppedOutageFrames+st.DroppedOverflowFrames || st.Outages != 1 || st.GapFrames != uint64(187-real) {
		t.Errorf("stats: %d dropped (%d outage, %d overflow), %d outages, %d gap frames; want ~43200 outage, 1 outage, %d gap frames",
			st.DroppedFrames, st.DroppedOutageFrames, st.DroppedOverflowFrames, st.Outages, st.GapFrames, 187-real)
	}
}
