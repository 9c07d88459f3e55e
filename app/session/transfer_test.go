package session

import (
	"fmt"
	"math"
	"math/cmplx"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/window"
)

// systemWAV writes a stereo WAV of periods periods of white noise on
// channel 0 (the reference) and, on channel 1, that noise through a
// +6 dB, Q 2 peaking EQ at 1 kHz and a 2nd-order high-pass at 80 Hz,
// delayed by delay samples, with uncorrelated noise 40 dB down: apptest's
// float64 model. The noise repeats every period samples and the filtered
// copy is taken in its steady state, so the file loops without a seam.
// It returns the filters' response.
func systemWAV(t *testing.T, path string, rate, period, periods int, delay float64) func(f float64) complex128 {
	fs := float64(rate)
	eq, hp := apptest.PeakingEQ(1000, 6, 2, fs), apptest.HighPass(80, math.Sqrt2/2, fs)
	x := apptest.WhiteNoise(period, 1, 0.1)
	rep := make([]float64, 0, (periods+2)*period)
	for range periods + 2 {
		rep = append(rep, x...)
	}
	y := apptest.Delayed(eq.Filter(hp.Filter(rep)), delay)
	noise := apptest.WhiteNoise(periods*period, 2, 0.001)
	ref, meas := make([]float32, periods*period), make([]float32, periods*period)
	for i := range ref {
		ref[i] = float32(rep[2*period+i])
		meas[i] = float32(y[2*period+i] + noise[i])
	}
	apptest.WriteWAV(t, path, rate, [][]float32{ref, meas})
	return func(f float64) complex128 { return eq.Response(f, fs) * hp.Response(f, fs) }
}

// TestSessionTransfer: the session's transfer analyzer, fed from the live
// analysis's tee while the spectrum analysis is paused, measures a known
// system (a file played in real time: reference and a filtered, 2.5 ms
// delayed copy) as apptest's float64 model says: the tracked delay and
// Find within a sample of 120, the magnitude within 0.2 dB of the
// filters' where γ² ≥ 0.95. A new source restarts it; one without its
// channels stops it and says why.
func TestSessionTransfer(t *testing.T) {
	engs := testEngines(t)
	e := engs[len(engs)-1]
	const rate, delay = 48000, 120 // 2.5 ms
	path := filepath.Join(t.TempDir(), "system.wav")
	resp := systemWAV(t, path, rate, 1<<16, 4, delay)
	m, _, err := New(SourceSpec{Kind: SourceFile, File: path}, live.DefaultSettings(), e)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.SetPaused(true) // as the window does while the Transfer tab is shown
	if m.TransferStatus() != "" || m.TransferRunning() {
		t.Fatalf("transfer before StartTransfer: %q", m.TransferStatus())
	}
	set := transfer.LiveSettings{FFT: 8192, Hop: 2048, Window: window.Func{Kind: window.Hann}, RefChannel: 0, Channels: []int{1},
		Average: dual.AverageComplex, Frames: 8, Track: true}
	if err := m.StartTransfer(set); err != nil {
		t.Fatal(err)
	}
	var res transfer.LiveResult
	waitUntil(t, "the tracked delay and a full average after it", func() bool {
		return m.LatestTransfer(&res) && res.Delays[0].Delay.Found && res.Delays[0].Finds >= 2 && res.Averaged == set.Frames
	})
	if d := res.Delays[0].Delay; math.Abs(d.Samples-delay) > 1 || d.Polarity != 1 {
		t.Fatalf("tracked delay %+v, want %d samples, polarity +1", d, delay)
	}
	var found [1]dual.Delay
	if n := m.FindDelays(found[:], true); n != 1 || !found[0].Found || math.Abs(found[0].Samples-delay) > 1 {
		t.Fatalf("FindDelays: %d, %+v; want %d samples", n, found[0], delay)
	}
	// the magnitude where γ² ≥ 0.95, on an average of whole frames: the
	// file's loop (a reopened source) or a slow machine can break the
	// stream, which spoils the frames across the break until the FIFO
	// has moved past them, so the check waits for an average without one
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		why := "no result"
		if m.LatestTransfer(&res) {
			why = magnitudeError(res, resp)
		}
		if why == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
	}
	ir := make([]float64, set.FFT)
	if d, ok := m.TransferImpulse(0, ir, nil); !ok || !d.Found {
		t.Fatalf("TransferImpulse: %+v, %v", d, ok)
	}
	if _, ok := m.TransferImpulse(1, ir, nil); ok {
		t.Fatal("TransferImpulse of a channel that is not measured: ok")
	}
	if s := m.TransferStatus(); !strings.Contains(s, "transfer: 1 channel against ch 1, N=8192") {
		t.Fatalf("status %q", s)
	}

	// a new source of as many channels: the analyzer starts again on it
	if _, err := m.SetSource(SourceSpec{Kind: SourceGenerator, Generator: "pinkperiodic:8192:-20", Rate: 44100, Channels: 2}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the analyzer on the new source", func() bool {
		return m.TransferRunning() && m.LatestTransfer(&res) && res.Geometry.Rate == 44100 && res.Averaged == set.Frames
	})
	// the same periodic stimulus on both channels: H = 1, γ² = 1
	if k := 100; math.Abs(res.MagnitudeDB[0][k]) > 0.01 || res.Coherence[0][k] < 0.999 {
		t.Fatalf("generator on both channels: %.3f dB, γ² %.4f", res.MagnitudeDB[0][k], res.Coherence[0][k])
	}
	// a mono source has no channel 1: the analyzer stops and says so
	if _, err := m.SetSource(SourceSpec{Kind: SourceGenerator, Generator: "pink:-20", Channels: 1}); err != nil {
		t.Fatal(err)
	}
	if m.TransferRunning() || !strings.Contains(m.TransferStatus(), "transfer stopped") {
		t.Fatalf("mono source: running %v, status %q", m.TransferRunning(), m.TransferStatus())
	}
	m.StopTransfer()
	if m.TransferRunning() || m.LatestTransfer(&res) {
		t.Fatal("StopTransfer: still running")
	}
}

// magnitudeError says where the result's magnitude misses the filters'
// by more than 0.2 dB where γ² ≥ 0.95 (100 Hz … 15 kHz), or that too few
// bins are that coherent; "" when it matches.
func magnitudeError(res transfer.LiveResult, resp func(f float64) complex128) string {
	binHz := res.Geometry.BinHz()
	checked := 0
	for k := range res.MagnitudeDB[0] {
		f := float64(k) * binHz
		if f < 100 || f > 15000 || res.Coherence[0][k] < 0.95 {
			continue
		}
		want := 20 * math.Log10(cmplx.Abs(resp(f)))
		if got := res.MagnitudeDB[0][k]; math.Abs(got-want) > 0.2 {
			return fmt.Sprintf("%.0f Hz: %.3f dB, want %.3f (γ² %.4f)", f, got, want, res.Coherence[0][k])
		}
		checked++
	}
	if checked < 1000 {
		return fmt.Sprintf("only %d bins with γ² ≥ 0.95", checked)
	}
	return ""
}
