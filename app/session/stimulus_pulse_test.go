//go:build cgo && linux

package session

import (
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
)

// TestStimulusThroughPulse: for real, through the test's own PulseAudio
// daemon (its null sink the default output, the sink's monitor the
// default input): a stimulus played to the output (a 1-kHz sine at −6
// dBFS, as the Transfer workspace plays its periodic pink noise or MLS)
// reaches the input at its level (±0.2 dB) while the session measures
// the input; stopped, the output is silent again and the status says
// nothing plays.
func TestStimulusThroughPulse(t *testing.T) {
	pa := apptest.StartPulse(t)
	pa.Play("3600", "sine", "1000", "vol", "0") // the sink never suspends
	const rate = 48000
	m, _, err := New(SourceSpec{Kind: SourceDevice, Rate: rate, Channels: 2}, live.DefaultSettings(), testEngines(t)[0])
	if err != nil {
		t.Fatalf("capture from the test's PulseAudio: %v", err)
	}
	defer m.Close()
	if err := m.PlayStimulus("sine:1000:-6"); err != nil {
		t.Fatal(err)
	}
	if s := m.StimulusStatus(); s == "" {
		t.Error("no status while the stimulus plays")
	}
	var sp live.Spectrum
	level := func() float64 {
		m.Latest(0, &sp)
		if math.Abs(sp.Peak.Freq-1000) > 2 {
			return math.Inf(-1)
		}
		return sp.Peak.LevelDB
	}
	deadline := time.Now().Add(15 * time.Second) // a bound for a loaded machine, not a timing under test
	for math.Abs(level()+6) > 0.2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if l := level(); math.Abs(l+6) > 0.2 {
		t.Fatalf("the input reads the stimulus at %.2f dBFS (%.1f Hz), want −6 ± 0.2", l, sp.Peak.Freq)
	}
	m.StopStimulus()
	if s := m.StimulusStatus(); s != "" {
		t.Errorf("status %q after the stop", s)
	}
	for level() > -60 && time.Now().Before(deadline.Add(10*time.Second)) {
		time.Sleep(20 * time.Millisecond)
	}
	if l := level(); l > -60 {
		t.Errorf("the tone still reads %.1f dBFS after the stop", l)
	}
}
