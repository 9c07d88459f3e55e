package session

import (
	"context"
	"testing"

	"github.com/prismaudio/prism/app/live"
)

// TestMeasureSettingsChecked: a channel the input lacks, the reference on
// the measured channel and a sweep count out of range are refused before
// anything plays.
func TestMeasureSettingsChecked(t *testing.T) {
	for _, tc := range []struct {
		s    MeasureSettings
		want string
	}{
		{MeasureSettings{Channel: 2, RefChannel: -1, Sweeps: 1}, "session: the input has 2 channels, no channel 3 to measure"},
		{MeasureSettings{Channel: 0, RefChannel: 2, Sweeps: 1}, "session: the input has 2 channels, no channel 3 for the reference"},
		{MeasureSettings{Channel: 1, RefChannel: 1, Sweeps: 1}, "session: the reference channel is the measured channel"},
		{MeasureSettings{Channel: 0, RefChannel: -1, Sweeps: 0}, "session: 0 sweeps (want 1…16)"},
	} {
		if err := tc.s.check(2); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	if err := DefaultMeasureSettings().check(1); err != nil {
		t.Errorf("the defaults on a mono input: %v", err)
	}
}

// TestAverageAligns: recordings shifted by their lags average to the
// first one's alignment.
func TestAverageAligns(t *testing.T) {
	a := []float32{0, 0, 1, 0, 0, 0}
	b := []float32{0, 0, 0, 0, 3, 0} // the same impulse 2 samples later, 3 times as large
	got := average([][]float32{a, b}, []int{2, 4})
	want := []float32{0, 0, 2, 0, 0, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestMeasureNeedsAnInputDevice: with the generator as the input nothing
// is played: it cannot hear the sweep, and the error says what to do.
func TestMeasureNeedsAnInputDevice(t *testing.T) {
	m, _, err := New(SourceSpec{Kind: SourceGenerator, Generator: "sine:1000:-6", Rate: 48000, Channels: 1}, live.DefaultSettings(), testEngines(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = m.Measure(context.Background(), DefaultMeasureSettings(), nil)
	if want := "session: the input is the generator, which cannot hear the sweep: choose an input device in the Live tab's Source"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
