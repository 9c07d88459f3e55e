//go:build cgo

package live

import (
	"math"
	"testing"
	"time"

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
