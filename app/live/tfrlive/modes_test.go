package tfrlive

import (
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestModesLevelThroughRunner: in every mode, a sine at one of the
// mode's bin centres reads through the Runner's live path (deinterleave,
// batches of whatever frames are complete, the mix) the level the
// Transform itself gives the same frame of samples, and that is the
// sine's level 20·log10(A) within the mode's own tolerance; the peak
// readout finds it at its frequency, at that level; a steady-state Step
// allocates nothing with the mode's real transform.
func TestModesLevelThroughRunner(t *testing.T) {
	rec := apptest.StartGenerator(t, "sine:1000:-20", 48000, 2)
	cpu := gpufft.NewCPU(1)
	t.Cleanup(func() { cpu.Close() })
	hann := window.Func{Kind: window.Hann}
	for _, tc := range []struct {
		cfg tfr.Config
		tol float64 // dB: the mode's reading of a bin-centred sine against 20·log10(A)
	}{
		{tfr.Config{Mode: tfr.STFT, Size: 4096, Hop: 1024, Window: hann}, 0.01},
		{tfr.Config{Mode: tfr.MultiRes, Sizes: []int{16384, 4096, 1024}, Hop: 512, Window: hann}, 0.01},
		{tfr.Config{Mode: tfr.VQT, BinsPerOctave: 24, FMin: 50, Hop: 512}, 0.05},
		{tfr.Config{Mode: tfr.Reassigned, Size: 2048, Hop: 256, Window: hann}, 0.1},
	} {
		t.Run(tc.cfg.Mode.String(), func(t *testing.T) {
			r, err := New(rec, cpu, Settings{TFR: tc.cfg, AvgTau: time.Second, AvgFrames: 4, PeakHold: time.Second, PeakDecay: 20})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			r.pub.every = 0
			freqs := r.Freqs()
			k := nearest(freqs, 1000)
			f := freqs[k]
			span, hop := r.span, r.hop
			total := span + 12*hop + 100
			const a = 0.5
			feed(r, total, a, f)
			written := (total + 479) / 480 * 480 // feed writes whole blocks of 480
			frames := (written-span)/hop + 1
			if got := int(r.Frames()); got != frames {
				t.Fatalf("%d frames analyzed, want %d", got, frames)
			}
			// the transform's own reading of the last frame (left channel)
			one := tc.cfg
			one.Rate, one.Channels, one.MaxSamples = 48000, 1, span
			ref, err := tfr.New(cpu, one)
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Close()
			x := make([]float32, span)
			for i := range x {
				x[i] = float32(a * math.Sin(2*math.Pi*f*float64((frames-1)*hop+i)/48000))
			}
			out := make([]float32, len(freqs))
			if _, err := ref.Execute(out, x); err != nil {
				t.Fatal(err)
			}
			var sp live.Spectrum
			r.Latest(0, &sp)
			if d := math.Abs(float64(sp.Current[k] - out[k])); d > 1e-3 {
				t.Errorf("bin %d (%.1f Hz): the Runner reads %.4f dB, the Transform %.4f", k, f, sp.Current[k], out[k])
			}
			lvl := 20 * math.Log10(a)
			if d := math.Abs(float64(sp.Current[k]) - lvl); d > tc.tol {
				t.Errorf("bin %d (%.1f Hz): %.4f dB, want %.4f ± %g", k, f, sp.Current[k], lvl, tc.tol)
			}
			if math.Abs(sp.Peak.LevelDB-float64(sp.Current[k])) > 1e-6 || math.Abs(sp.Peak.Freq/f-1) > 0.01 {
				t.Errorf("peak %.2f Hz %.3f dB, want %.2f Hz %.3f dB", sp.Peak.Freq, sp.Peak.LevelDB, f, sp.Current[k])
			}
			if !raceEnabled {
				stepAllocs(t, r) // the live path with the real transform allocates nothing either
			}
		})
	}
}

// nearest is the index of the bin centre nearest f.
func nearest(freqs []float64, f float64) int {
	best := 0
	for k, g := range freqs {
		if math.Abs(g-f) < math.Abs(freqs[best]-f) {
			best = k
		}
	}
	return best
}
