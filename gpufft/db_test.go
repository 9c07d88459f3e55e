package gpufft

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// TestPowerDBEdges pins PowerDB's rule at the ends of float32: 10·log10
// inside, FloorDB at and below 1e-20 (zero and negatives included),
// CeilDB for +Inf and NaN, and never above CeilDB (float32's largest
// power is 10·log10(3.4028235e38) = 385.3184 dB, float64 reference).
func TestPowerDBEdges(t *testing.T) {
	ceil := float32(CeilDB)
	for _, c := range []struct {
		p    float32
		want float32
	}{
		{0, FloorDB}, {-1, FloorDB}, {1e-21, FloorDB}, {float32(math.Inf(-1)), FloorDB},
		{float32(math.Inf(1)), ceil}, {float32(math.NaN()), ceil},
	} {
		if got := PowerDB(c.p); got != c.want {
			t.Errorf("PowerDB(%g) = %g, want %g", c.p, got, c.want)
		}
	}
	for _, p := range []float32{1, 1e-10, 0.5, 1e30, math.MaxFloat32} {
		got, want := PowerDB(p), 10*math.Log10(float64(p))
		if math.Abs(float64(got)-want) > 1e-4 || got > ceil {
			t.Errorf("PowerDB(%g) = %.6f, want %.6f (at most CeilDB %.6f)", p, got, want, ceil)
		}
	}
}

// TestNonFiniteSamplesAgree: frames holding a 1e30, an infinite or a NaN
// sample read the same in both engines, bin by bin: CeilDB in every bin of
// a frame where such a sample has weight in the window (an overload, never
// silence or NaN), and within 0.01 dB elsewhere. Single-pass and four-step
// plans (16384 points on PoCL, whose single-pass limit is 4096), with and
// without BinGain (a different dB path on the GPU), a mix and planar
// channels.
func TestNonFiniteSamplesAgree(t *testing.T) {
	g := requireGPU(t)
	rng := rand.New(rand.NewPCG(37, 1))
	ceil := float32(CeilDB)
	for _, n := range []int{1024, 16384} {
		hop := n / 4
		length := 12 * hop
		bad := []struct {
			name string
			at   int // sample index in channel 0
			v    float32
		}{{"1e30", 2*hop + n/2, 1e30}, {"+Inf", 5*hop + n/3, float32(math.Inf(1))}, {"NaN", 9*hop + n/2 + 7, float32(math.NaN())}}
		src := make([]float32, 2*length)
		for i := range src {
			src[i] = float32(0.3 * rng.NormFloat64())
		}
		for _, b := range bad {
			src[b.at] = b.v
		}
		gain := make([]float32, n/2+1)
		for k := range gain {
			gain[k] = float32(0.5 + 0.5*math.Cos(float64(k)))
		}
		win := window.Func{Kind: window.Hann}
		w := win.Values(n)
		for _, mix := range []bool{true, false} {
			for _, bg := range [][]float32{nil, gain} {
				name := fmt.Sprintf("n=%d/mix=%v/bingain=%v", n, mix, bg != nil)
				cfg := SpectrogramConfig{Size: n, Hop: hop, Window: win, Channels: 2, Mix: mix, MaxSamples: length, BinGain: bg}
				cpu, gpu := spectrogram(t, testCPU, cfg, src), spectrogram(t, g, cfg, src)
				bins, frames := cfg.Bins(), cfg.Frames(length)
				overloads := 0
				for f := range frames {
					hit := false // channel 0 (every output of a mix) holds a bad sample of weight in this frame
					for _, b := range bad {
						if i := b.at - f*hop; i >= 0 && i < n && w[i] > 0.01 {
							hit = true
						}
					}
					for k := range bins {
						i := f*bins + k // channel 0's output
						a, b := cpu[i], gpu[i]
						if a != a || b != b || math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) {
							t.Fatalf("%s: frame %d bin %d: CPU %g, GPU %g: not finite", name, f, k, a, b)
						}
						if hit && (a != ceil || b != ceil) {
							t.Fatalf("%s: frame %d bin %d (a bad sample in the frame): CPU %g, GPU %g, want CeilDB %g", name, f, k, a, b, ceil)
						}
						if (a > -120 || b > -120) && math.Abs(float64(a-b)) > 0.01 {
							t.Fatalf("%s: frame %d bin %d: CPU %.4f dB, GPU %.4f dB", name, f, k, a, b)
						}
					}
					if hit {
						overloads++
					}
				}
				if overloads < 3 {
					t.Fatalf("%s: %d frames hold a bad sample, want every kind in at least one", name, overloads)
				}
				if !mix { // channel 1 is clean: the engines agree there too, and nothing reads CeilDB
					for i := frames * bins; i < len(cpu); i++ {
						if a, b := cpu[i], gpu[i]; a >= ceil || b >= ceil || ((a > -120 || b > -120) && math.Abs(float64(a-b)) > 0.01) {
							t.Fatalf("%s: clean channel, value %d: CPU %.4f dB, GPU %.4f dB", name, i-frames*bins, a, b)
						}
					}
				}
			}
		}
	}
}

// TestPowerDB: the host dB rule against math.Log10 in float64, and its
// floor.
func TestPowerDB(t *testing.T) {
	for _, p := range []float32{1, 0.5, 1e-3, 3.7e-12, 2e-20, 123.4} {
		want := 10 * math.Log10(float64(p))
		if got := float64(PowerDB(p)); math.Abs(got-want) > 1e-4 {
			t.Errorf("PowerDB(%g) = %g, want %g", p, got, want)
		}
	}
	if PowerDB(0) != FloorDB || PowerDB(1e-21) != FloorDB {
		t.Error("no floor")
	}
	got := AppendPowerDB(nil, []float32{1, 0.25}, []float32{0.5, 4})
	if math.Abs(float64(got[0])+3.0103) > 1e-4 || math.Abs(float64(got[1])) > 1e-4 {
		t.Errorf("AppendPowerDB with gains: %v", got)
	}
}
