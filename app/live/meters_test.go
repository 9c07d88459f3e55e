package live

import (
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/meter"
)

func nearDB(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.4f, want %.4f ± %g", what, got, want, tol)
	}
}

// TestLiveMeters: the engine feeds the meters every block it reads: a
// generator's stereo 1 kHz sine at −23 dBFS reads −23.0 ± 0.1 LUFS
// momentary and short-term after 3 s of live analysis, and taken as a
// 94 dB SPL calibrator it calibrates to 94 + 23 = 117 dB.
func TestLiveMeters(t *testing.T) {
	l := startCPULive(t, "sine:1000:-23", DefaultSettings())
	defer l.Close()
	// another goroutine reads the meters, measures and resets meanwhile
	// (what the window does): the race detector checks the hand-over
	stop, read := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(read)
		var m meter.Meters
		for {
			select {
			case <-stop:
				return
			default:
			}
			l.ReadMeters(&m)
			l.MeasureCalibrator(0, 1000, 94)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	runLive(l, 300*time.Millisecond)
	l.ResetMeters()
	var got meter.Meters
	for deadline := time.Now().Add(30 * time.Second); got.Seconds < 3.1 && time.Now().Before(deadline); {
		runLive(l, 100*time.Millisecond)
		l.ReadMeters(&got)
	}
	close(stop)
	<-read
	if got.Channels != 2 || got.Seconds < 3.1 {
		t.Fatalf("meters %+v", got)
	}
	// the reset came mid-stream: no start-up overshoot in the true peak
	nearDB(t, "true peak max", got.Ch[0].TruePeakMax, -23, 0.05)
	nearDB(t, "momentary", got.Momentary, -23, 0.1)
	nearDB(t, "short-term", got.ShortTerm, -23, 0.1)
	for c := range 2 {
		nearDB(t, "rms", got.Ch[c].RMS, -23, 0.05)
	}
	cal, err := l.MeasureCalibrator(1, 1000, 94)
	if err != nil {
		t.Fatal(err)
	}
	nearDB(t, "calibration offset", cal.OffsetDB, 117, 0.02)
	t.Logf("live, generator sine 1 kHz −23 dBFS stereo, %.1f s: M %.3f S %.3f I %.3f LUFS, RMS %.3f dBFS, TP max %.3f dBTP, calibrator offset %.3f dB",
		got.Seconds, got.Momentary, got.ShortTerm, got.Integrated, got.Ch[0].RMS, got.Ch[0].TruePeakMax, cal.OffsetDB)
}
