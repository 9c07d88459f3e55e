//go:build cgo

package audio

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// requireAudio returns the default input device's index, or skips when the
// machine has no sound server or input (fails under PRISM_REQUIRE_AUDIO=1,
// as in CI, where make test starts a PulseAudio null sink).
func requireAudio(t *testing.T) {
	t.Helper()
	devs, err := Devices()
	ok := err == nil
	if ok {
		ok = false
		for _, d := range devs {
			if d.DefaultInput && d.MaxInputChannels > 0 {
				ok = true
			}
		}
	}
	if !ok {
		if os.Getenv("PRISM_REQUIRE_AUDIO") == "1" {
			t.Fatalf("audio input required (PRISM_REQUIRE_AUDIO=1): devices %v, err %v", devs, err)
		}
		t.Skipf("no audio input: %v", err)
	}
	if _, err := exec.LookPath("paplay"); err != nil && os.Getenv("PRISM_REQUIRE_AUDIO") == "1" {
		t.Fatalf("paplay required: %v", err)
	}
}

func TestDevices(t *testing.T) {
	requireAudio(t)
	devs, _ := Devices()
	def := 0
	for _, d := range devs {
		if d.Name == "" || d.HostAPI == "" || d.DefaultRate <= 0 {
			t.Errorf("incomplete device %+v", d)
		}
		if d.DefaultInput {
			def++
		}
	}
	if def != 1 {
		t.Errorf("%d default input devices", def)
	}
	if _, err := OpenCapture(CaptureConfig{Device: "no-such-device-xyz"}); !errors.Is(err, ErrNoInputDevice) {
		t.Errorf("bogus device: %v", err)
	}
	if _, err := OpenCapture(CaptureConfig{Device: "9999"}); !errors.Is(err, ErrNoInputDevice) {
		t.Errorf("bogus index: %v", err)
	}
}

// TestSupportedRates: the default input (the sound server through ALSA's
// pulse plugin, which resamples) takes the common rates; a rate it does
// not take is refused by OpenCapture with the list of those it does.
func TestSupportedRates(t *testing.T) {
	requireAudio(t)
	rates, err := SupportedRates("", 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the default input takes %v", rates)
	for _, want := range []int{44100, 48000, 96000} {
		found := false
		for _, r := range rates {
			found = found || r == want
		}
		if !found {
			t.Errorf("rates %v lack %d", rates, want)
		}
	}
	if _, err := OpenCapture(CaptureConfig{Rate: 12345678, Channels: 2}); err == nil || !strings.Contains(err.Error(), "12345678 Hz") || !strings.Contains(err.Error(), "48000") {
		t.Errorf("an impossible rate: %v", err)
	}
}
