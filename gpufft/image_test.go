package gpufft

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// TestImage: both engines fold frames into the same image as the plain
// definition (per column, the maximum over its frames and each row's bins),
// whatever the batch boundaries, for more and for fewer frames than columns;
// on the GPU also through the two four-step passes (as N > 8192 runs).
func TestImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	es := engines(t)
	if testGPU != nil {
		es = append(es, fourStepEngine(t, 0))
	}
	const n, hop = 256, 64
	for _, c := range []struct{ samples, cols int }{{40000, 97}, {3000, 64}} {
		x := make([]float32, c.samples)
		for i := range x {
			x[i] = float32(0.3*rng.NormFloat64() + 0.5*math.Sin(float64(i)*float64(i)*1e-6))
		}
		cfg := SpectrogramConfig{Size: n, Hop: hop, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: c.samples}
		total := cfg.Frames(c.samples)
		// rows: single bins at the bottom, growing ranges above
		var ic ImageConfig
		ic.Columns, ic.TotalFrames = c.cols, total
		for k := 0; k < cfg.Bins(); {
			w := 1 + k/20
			ic.RowLo = append(ic.RowLo, int32(k))
			ic.RowHi = append(ic.RowHi, int32(min(k+w, cfg.Bins())))
			k += w
		}
		// reference: the full dB matrix from the CPU spectrogram
		full := spectrogram(t, testCPU, cfg, x)
		bins, rows := cfg.Bins(), ic.Rows()
		want := make([]float32, c.cols*rows)
		for col := range c.cols {
			lo, hi := ic.ColumnFrames(col)
			for r := range rows {
				m := float32(math.Inf(-1))
				for f := lo; f < hi; f++ {
					for k := ic.RowLo[r]; k < ic.RowHi[r]; k++ {
						m = max(m, full[f*bins+int(k)])
					}
				}
				want[col*rows+r] = m
			}
		}
		for ei, e := range es {
			batchCfg := cfg
			batchCfg.MaxSamples = n + 37*hop // batches of 38 frames: boundaries inside columns
			p, err := e.NewImage(batchCfg, ic)
			if err != nil {
				t.Fatal(err)
			}
			for f0 := 0; f0 < total; {
				end := min(c.samples, f0*hop+batchCfg.MaxSamples)
				got, err := p.Add(x[f0*hop:end], f0)
				if err != nil {
					t.Fatal(err)
				}
				f0 += got
			}
			img := make([]float32, c.cols*rows)
			if err := p.Image(img); err != nil {
				t.Fatal(err)
			}
			p.Close()
			for i := range img {
				if math.Abs(float64(img[i]-want[i])) > 0.01 {
					t.Fatalf("%s (engine %d) %+v: pixel %d (col %d row %d) = %.3f, want %.3f", e.Name(), ei, c, i, i/rows, i%rows, img[i], want[i])
				}
			}
		}
	}
}

func TestImageInvalid(t *testing.T) {
	cfg := SpectrogramConfig{Size: 64, Hop: 64, Channels: 2, Mix: true, MaxSamples: 640}
	good := ImageConfig{Columns: 10, TotalFrames: 10, RowLo: []int32{0, 5}, RowHi: []int32{5, 33}}
	for _, e := range engines(t) {
		p, err := e.NewImage(cfg, good)
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		bad := []func(*SpectrogramConfig, *ImageConfig){
			func(c *SpectrogramConfig, i *ImageConfig) { c.Mix = false },
			func(c *SpectrogramConfig, i *ImageConfig) { c.Output = Power },
			func(c *SpectrogramConfig, i *ImageConfig) { i.Columns = 0 },
			func(c *SpectrogramConfig, i *ImageConfig) { i.RowHi = []int32{5, 34} },
			func(c *SpectrogramConfig, i *ImageConfig) { i.RowHi = []int32{0, 33} },
			func(c *SpectrogramConfig, i *ImageConfig) { i.RowHi = i.RowHi[:1] },
		}
		for k, f := range bad {
			c, i := cfg, good
			f(&c, &i)
			if _, err := e.NewImage(c, i); err == nil {
				t.Errorf("%s case %d: no error", e.Name(), k)
			}
		}
	}
}

// TestFoldMaxNaN: the CPU engine's folds keep the fold rule of app/plot
// (and of OpenCL's fmax in the kernels): a NaN never wins a maximum, and
// only an all-NaN input stays NaN.
func TestFoldMaxNaN(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct{ m, v, want float32 }{
		{nan, -3, -3}, {-3, nan, -3}, {1, 2, 2}, {2, 1, 2}, {-200, -200, -200},
	} {
		if got := foldMax(c.m, c.v); got != c.want {
			t.Errorf("foldMax(%v, %v) = %v, want %v", c.m, c.v, got, c.want)
		}
	}
	if got := foldMax(nan, nan); got == got {
		t.Errorf("foldMax(NaN, NaN) = %v, want NaN", got)
	}
	dst := []float32{nan, 1, -5}
	maxInto(dst, []float32{-7, nan, -4})
	if dst[0] != -7 || dst[1] != 1 || dst[2] != -4 {
		t.Errorf("maxInto: %v, want [-7 1 -4]", dst)
	}
}
