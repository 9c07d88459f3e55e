package live

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/kaiser"
)

// upsample4 is x at four times its rate: zeros stuffed, then a Kaiser
// (β = 14, about 136 dB stopband) windowed-sinc low-pass of 1023 taps
// cut at 22.5 kHz of the 192-kHz output, gain 4.
func upsample4(x []float64) []float64 {
	const taps, fc = 1023, 22500.0 / 192000
	h := make([]float64, taps)
	kaiser.Window(h, 14)
	for i := range h {
		t := float64(i - taps/2)
		s := 2 * fc
		if t != 0 {
			s = math.Sin(2*math.Pi*fc*t) / (math.Pi * t)
		}
		h[i] *= 4 * s
	}
	y := make([]float64, 4*len(x))
	for n := range y {
		sum := 0.0
		for k := (n + taps/2) % 4; k < taps; k += 4 { // only the taps on input samples
			if j := (n - k + taps/2) / 4; n-k+taps/2 >= 0 && j < len(x) {
				sum += h[k] * x[j]
			}
		}
		y[n] = sum
	}
	return y
}

// TestBandLimitLive: a 192-kHz input made by upsampling 48-kHz white
// noise is reported as carrying nothing above 24 kHz once a second of it
// is analyzed (Stats.BandLimitHz, and its notice); white noise made at
// 192 kHz is not.
func TestBandLimitLive(t *testing.T) {
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	dir := t.TempDir()
	up := upsample4(apptest.WhiteNoise(48000, 3, 0.1))
	native := apptest.WhiteNoise(192000, 4, 0.1)
	for _, c := range []struct {
		name string
		x    []float64
		want float64
	}{{"upsampled", up, 24000}, {"native", native, 0}} {
		x := make([]float32, len(c.x))
		for i, v := range c.x {
			x[i] = float32(v)
		}
		in := dir + "/" + c.name + ".wav"
		apptest.WriteWAV(t, in, 192000, [][]float32{x})
		rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.OpenFileSource(in, true) }, 2)
		if err != nil {
			t.Fatal(err)
		}
		s := DefaultSettings()
		s.FFT, s.Hop = 4096, 4096
		l, err := New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, s)
		if err != nil {
			t.Fatal(err)
		}
		runFrames(l, 60) // 1.3 s
		st := l.Stats()
		t.Logf("%s: band limit %g Hz (%q)", c.name, st.BandLimitHz, st.BandLimitNotice())
		if st.BandLimitHz != c.want {
			t.Errorf("%s: band limit %g Hz, want %g", c.name, st.BandLimitHz, c.want)
		}
		if c.want > 0 && st.BandLimitNotice() != "this 192 kHz input carries nothing above 24 kHz: it may be upsampled" {
			t.Errorf("notice %q", st.BandLimitNotice())
		}
		l.Close()
		rec.Stop()
	}
}
