//go:build cgo && linux

package session

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/room"
	"github.com/prismaudio/prism/app/sweep"
)

// TestMeasureThroughPulse: two 1-s sweeps (50 Hz–20 kHz, −6 dBFS) played
// through PortAudio's default output into the null sink of a PulseAudio
// daemon of the test's own and recorded from its monitor (the default
// input) through the session are a wire's response: one clean impulse
// (SNR over 40 dB, the peak of the sweep's own deconvolution within 0.5 dB,
// positive polarity), a
// latency between 0 and 1 s for each sweep, and — the null sink being a
// wire — a magnitude flat within ±0.5 dB from 100 Hz to 10 kHz (1/6
// octave smoothing, re the mean there), computed here from the averaged
// impulse response.
func TestMeasureThroughPulse(t *testing.T) {
	pa := apptest.StartPulse(t)
	// silence played all along: the null sink never suspends and the
	// capture flows before the sweep comes
	pa.Play("3600", "sine", "1000", "vol", "0")
	const rate = 48000
	m, _, err := New(SourceSpec{Kind: SourceDevice, Rate: rate, Channels: 2}, live.DefaultSettings(), testEngines(t)[0])
	if err != nil {
		if apptest.Required("AUDIO") {
			t.Fatalf("no capture from the test's PulseAudio (PRISM_REQUIRE_AUDIO=1): %v", err)
		}
		t.Skipf("no capture from the test's PulseAudio: %v", err)
	}
	defer m.Close()
	// the capture flowing: a second of frames analyzed (hop 1024)
	var st live.Stats
	for deadline := time.Now().Add(10 * time.Second); st.Frames < rate/1024; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the capture did not start: %+v", st)
		}
		m.ReadStats(&st)
	}
	if _, err := m.OutputDevices(); err != nil {
		t.Fatalf("output devices: %v", err)
	}
	s := MeasureSettings{Channel: 0, RefChannel: -1, FromHz: 50, ToHz: 20000, Seconds: 1, LevelDB: -6, Sweeps: 2}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var steps []string
	res, err := m.Measure(ctx, s, func(s string) { steps = append(steps, s) })
	if err != nil {
		t.Fatal(err)
	}
	r := res.Result
	t.Logf("latency %v ms, peak %.2f dBFS, SNR %.1f dB, %d played again, steps %q", res.LatencyMs, r.PeakDBFS, r.SNRDB, res.Replayed, steps)
	if len(res.LatencyMs) != 2 || len(steps) < 3 || steps[0] != "sweep 1 of 2: playing" || steps[len(steps)-1] != "analyzing" {
		t.Fatalf("latencies %v, steps %q: want 2 sweeps, then the analysis", res.LatencyMs, steps)
	}
	for i, l := range res.LatencyMs {
		if !(l > 0 && l < 1000) {
			t.Errorf("sweep %d: latency %.1f ms, want 0…1000", i+1, l)
		}
	}
	// the band-limited unit impulse's peak: the sweep deconvolved as it
	// was played (a digital wire)
	wire := append(res.Spec.Signal(), make([]float32, rate)...)
	ideal, _, err := sweep.Analyze(ctx, testEngines(t)[0], res.Spec, wire, nil, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.SNRDB < 40 || r.Polarity != 1 || math.Abs(r.PeakDBFS-ideal.PeakDBFS) > 0.5 {
		t.Errorf("SNR %.1f dB, polarity %d, peak %.2f dBFS: want a clean unit impulse (its peak %.2f dBFS)", r.SNRDB, r.Polarity, r.PeakDBFS, ideal.PeakDBFS)
	}
	if r.Distortion == nil || len(r.Distortion.FreqHz) == 0 {
		t.Error("no distortion")
	}
	fr, err := room.FrequencyResponse(r.IR, rate, 6)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	var n int
	for k, f := range fr.FreqHz {
		if f >= 100 && f <= 10000 {
			sum += fr.MagnitudeDB[k]
			n++
		}
	}
	mean := sum / float64(n)
	if math.Abs(mean) > 0.5 {
		t.Errorf("mean magnitude 100 Hz–10 kHz %.2f dB, want 0 ± 0.5", mean)
	}
	for k, f := range fr.FreqHz {
		if f >= 100 && f <= 10000 && math.Abs(fr.MagnitudeDB[k]-mean) > 0.5 {
			t.Fatalf("%.1f Hz: %.2f dB, the mean %.2f: not flat within ±0.5 dB", f, fr.MagnitudeDB[k], mean)
		}
	}
}
