package live

import (
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestLiveLargestFFT: the live path runs at the largest FFT size the
// analyses take (2^20 points, the window's largest too) on every engine,
// and its bins resolve what smaller sizes cannot: a tone at 1000.3 Hz
// (192 kHz mono, bins of 0.18 Hz) is found within 0.1 bin, 0.02 Hz, of
// its frequency and within 0.3 dB of its level; the spectrum has
// N/2+1 bins.
func TestLiveLargestFFT(t *testing.T) {
	const rate, freq = 192000, 1000.3
	for _, engs := range testEngines(t) {
		t.Run(engs.Preferred.Name(), func(t *testing.T) {
			t.Parallel() // each waits 5.5 s for its first frame
			largestFFT(t, engs, rate, freq)
		})
	}
}

func largestFFT(t *testing.T, engs engine.Pair, rate int, freq float64) {
	{
		rec := apptest.StartGenerator(t, "sine:1000.3:-6", rate, 1)
		s := DefaultSettings()
		s.FFT, s.Hop = engine.MaxFFT, engine.MaxFFT/8
		l, err := New(rec, engs, s)
		if err != nil {
			t.Fatal(err)
		}
		// one frame spans 5.5 s of the paced generator
		deadline := time.Now().Add(40 * time.Second)
		for l.Frames() == 0 && time.Now().Before(deadline) {
			if n, _ := l.Step(); n == 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
		var sp Spectrum
		l.Latest(1, &sp) // the mix of one channel
		st := l.Stats()
		l.Close()
		if st.Frames == 0 {
			t.Fatalf("%s: no frame of %d points in 40 s: %+v", engs.Preferred.Name(), engine.MaxFFT, st)
		}
		if len(sp.Current) != engine.MaxFFT/2+1 || math.Abs(sp.BinHz-float64(rate)/engine.MaxFFT) > 1e-9 {
			t.Fatalf("%s: %d bins of %g Hz", engs.Preferred.Name(), len(sp.Current), sp.BinHz)
		}
		if math.Abs(sp.Peak.Freq-freq) > 0.1*sp.BinHz || math.Abs(sp.Peak.LevelDB+6.02) > 0.3 {
			t.Errorf("%s: peak %.4f Hz at %.2f dBFS, want %.1f Hz ± %.3f at −6.02", engs.Preferred.Name(), sp.Peak.Freq, sp.Peak.LevelDB, freq, 0.1*sp.BinHz)
		}
		t.Logf("%s: peak %.4f Hz %.2f dBFS, bins %.4f Hz, %.1f ms/batch", st.Engine, sp.Peak.Freq, sp.Peak.LevelDB, sp.BinHz, st.MsPerBatch)
	}
}
