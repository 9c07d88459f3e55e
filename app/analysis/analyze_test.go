package analysis

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestNPYMatchesFloat64STFT: the NPY output equals an independent float64
// STFT of the mix within 0.02 dB wherever the reference is above −90 dBFS,
// on both engines, across many batch boundaries (batches forced small).
func TestNPYMatchesFloat64STFT(t *testing.T) {
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 5000
	const rate, length = 44100, 30011
	rng := rand.New(rand.NewPCG(1, 1))
	left := apptest.Tone(length, rate, 1000, 0.5)
	right := apptest.Tone(length, rate, 7350, 0.25)
	for i := range right {
		right[i] += float32(0.01 * rng.NormFloat64())
	}
	in := apptest.TempPath(t, "in.wav")
	apptest.WriteWAV(t, in, rate, [][]float32{left, right})
	mix := make([]float64, length)
	for i := range mix {
		mix[i] = float64(float32((float64(left[i]) + float64(right[i])) / 2))
	}
	for _, c := range []struct {
		n, hop int
		win    string
	}{{1024, 256, "hann"}, {4096, 1000, "blackman-harris"}, {256, 77, "kaiser:6"}} {
		w, _ := window.Parse(c.win)
		ref := apptest.STFT64(mix, c.n, c.hop, w)
		for _, eng := range testEngines(t) {
			out := apptest.TempPath(t, "out.npy")
			opts := AnalyzeOptions{FFT: c.n, Hop: c.hop, Window: w, Channel: -1}
			res, err := AnalyzeFile(context.Background(), in, out, encode.FormatNPY, opts, eng, nil)
			if err != nil {
				t.Fatal(err)
			}
			rows, cols, vals := apptest.ReadNPY(t, out)
			if rows != len(ref) || cols != c.n/2+1 || res.Frames != rows {
				t.Fatalf("shape (%d, %d), frames %d; want (%d, %d)", rows, cols, res.Frames, len(ref), c.n/2+1)
			}
			for f := range rows {
				for k := range cols {
					if r := ref[f][k]; r > -90 && math.Abs(float64(vals[f*cols+k])-r) > 0.02 {
						t.Fatalf("%s %+v: frame %d bin %d = %.4f dBFS, reference %.4f", eng.Preferred.Name(), c, f, k, vals[f*cols+k], r)
					}
				}
			}
		}
	}
}

// TestChannelSelection: --channel picks one channel.
func TestChannelSelection(t *testing.T) {
	const rate = 48000
	in := apptest.TempPath(t, "in.wav")
	apptest.WriteWAV(t, in, rate, [][]float32{apptest.Tone(8192, rate, 1500, 0.5), apptest.Tone(8192, rate, 6000, 0.5)})
	eng := testEngines(t)[0]
	for ch, hz := range []float64{1500, 6000} {
		out := apptest.TempPath(t, "c.npy")
		if _, err := AnalyzeFile(context.Background(), in, out, encode.FormatNPY, AnalyzeOptions{FFT: 4096, Hop: 4096, Window: window.Func{Kind: window.FlatTop}, Channel: ch}, eng, nil); err != nil {
			t.Fatal(err)
		}
		_, cols, vals := apptest.ReadNPY(t, out)
		k := int(hz * 4096 / rate)
		if math.Abs(float64(vals[k])+6.02) > 0.05 || vals[int(float64([]float64{6000, 1500}[ch])*4096/rate)] > -100 {
			t.Errorf("channel %d: bin %d reads %.2f dBFS (want −6.02), other tone %.1f", ch, k, vals[k], vals[cols+0])
		}
	}
	if _, err := AnalyzeFile(context.Background(), in, apptest.TempPath(t, "x.npy"), encode.FormatNPY, AnalyzeOptions{FFT: 4096, Hop: 1024, Channel: 2}, eng, nil); !errors.As(err, new(*InputError)) {
		t.Errorf("channel 2 of 2: %v", err)
	}
}

func TestCSV(t *testing.T) {
	const rate = 8000
	in := apptest.TempPath(t, "in.wav")
	apptest.WriteWAV(t, in, rate, [][]float32{apptest.Tone(3000, rate, 1000, 0.5)})
	eng := testEngines(t)[0]
	opts := AnalyzeOptions{FFT: 256, Hop: 100, Window: window.Func{Kind: window.Hann}, Channel: -1}
	csvPath, npyPath := apptest.TempPath(t, "o.csv"), apptest.TempPath(t, "o.npy")
	if _, err := AnalyzeFile(context.Background(), in, csvPath, encode.FormatCSV, opts, eng, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := AnalyzeFile(context.Background(), in, npyPath, encode.FormatNPY, opts, eng, nil); err != nil {
		t.Fatal(err)
	}
	rows, cols, vals := apptest.ReadNPY(t, npyPath)
	b, _ := os.ReadFile(csvPath)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != rows+1 {
		t.Fatalf("%d CSV lines for %d frames", len(lines), rows)
	}
	head := strings.Split(lines[0], ",")
	if head[0] != "time_s" || len(head) != cols+1 || head[1] != "0" || head[2] != "31.25" || head[cols] != "4000" {
		t.Errorf("header starts %q … ends %q", head[:3], head[len(head)-1])
	}
	for f := range rows {
		fields := strings.Split(lines[f+1], ",")
		tt, _ := strconv.ParseFloat(fields[0], 64)
		if want := (float64(f*100) + 128) / rate; math.Abs(tt-want) > 1e-12 {
			t.Errorf("row %d: time %g, want the frame centre %g", f, tt, want)
		}
		for k := range cols {
			v, err := strconv.ParseFloat(fields[k+1], 32)
			if err != nil || float32(v) != vals[f*cols+k] {
				t.Fatalf("row %d bin %d: %q, NPY has %v", f, k, fields[k+1], vals[f*cols+k])
			}
		}
	}
}

// TestPNG: size, axes drawn, and a tone as the brightest row at its
// frequency on log and linear axes.
func TestPNG(t *testing.T) {
	const rate = 48000
	in := apptest.TempPath(t, "in.wav")
	apptest.WriteWAV(t, in, rate, [][]float32{apptest.Tone(rate*3, rate, 2000, 0.5)})
	for _, eng := range testEngines(t) {
		for _, scale := range []plot.Scale{plot.Log, plot.Lin, plot.Mel} {
			out := apptest.TempPath(t, "o.png")
			io := plot.ImageOptions{Width: 300, Height: 200, Scale: scale, DBMin: -120, DBMax: 0, Colormap: plot.Gray}
			opts := AnalyzeOptions{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channel: -1, Image: io}
			if _, err := AnalyzeFile(context.Background(), in, out, encode.FormatPNG, opts, eng, nil); err != nil {
				t.Fatal(err)
			}
			f, _ := os.Open(out)
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			l := plot.NewSpectrogram(io, plot.Geometry{Rate: rate, FFT: 4096, Hop: 1024, Frames: 1})
			marginLeft, marginTop := l.Area().Min.X, l.Area().Min.Y
			if b := img.Bounds(); b != l.Bounds() || l.Area().Dx() != 300 || l.Area().Dy() != 200 {
				t.Fatalf("%s: image %v, want %v", scale, b, l.Bounds())
			}
			// axes: the frame line and tick labels in the left margin
			if r, _, _, _ := img.At(marginLeft-1, marginTop+100).RGBA(); r>>8 != uint32(plot.GridColor.R) {
				t.Errorf("%s: no axis line at the plot's left edge", scale)
			}
			ink := 0
			for y := marginTop; y < marginTop+200; y++ {
				for x := 5; x < marginLeft-10; x++ {
					if r, _, _, _ := img.At(x, y).RGBA(); r>>8 > 120 {
						ink++
					}
				}
			}
			if ink < 50 {
				t.Errorf("%s: no frequency labels (%d light pixels)", scale, ink)
			}
			// brightest row in the middle column
			x := marginLeft + 150
			best, by := uint32(0), 0
			for y := marginTop; y < marginTop+200; y++ {
				if r, _, _, _ := img.At(x, y).RGBA(); r > best {
					best, by = r, y
				}
			}
			axis := plot.NewFreqAxis(scale, rate, 4096)
			row := marginTop + 200 - 1 - by
			lo, hi := axis.Freq(float64(row-1)/200), axis.Freq(float64(row+2)/200)
			if 2000 < lo || 2000 > hi || best>>8 < 240 {
				t.Errorf("%s %s: brightest row %d spans %.0f…%.0f Hz (level %d), want 2000 Hz at full scale", eng.Preferred.Name(), scale, row, lo, hi, best>>8)
			}
		}
	}
}

func TestGPUFailureFallsBackToCPU(t *testing.T) {
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 2000
	in := apptest.TempPath(t, "in.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(20000, 8000, 500, 0.5)})
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	opts := AnalyzeOptions{FFT: 256, Hop: 64, Window: window.Func{Kind: window.Hann}, Channel: -1}
	want := apptest.TempPath(t, "want.npy")
	if _, err := AnalyzeFile(context.Background(), in, want, encode.FormatNPY, opts, engine.Pair{Preferred: cpu, CPU: cpu}, nil); err != nil {
		t.Fatal(err)
	}
	out := apptest.TempPath(t, "out.npy")
	res, err := AnalyzeFile(context.Background(), in, out, encode.FormatNPY, opts, engine.Pair{Preferred: &apptest.FailingEngine{Engine: cpu, After: 3}, CPU: cpu}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "GPU failed") || !strings.Contains(res.Warnings[0], "CL_OUT_OF_RESOURCES") {
		t.Errorf("warnings %q", res.Warnings)
	}
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(out)
	if !bytes.Equal(a, b) {
		t.Error("output after the fallback differs from a CPU run")
	}
}

// TestAnalyzeCancel: a cancelled analysis stops and leaves no file behind.
func TestAnalyzeCancel(t *testing.T) {
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 1000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(50000, 8000, 500, 0.5)})
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	ctx, cancel := context.WithCancel(context.Background())
	progress := func(done, total int) {
		if done > 100 {
			cancel()
		}
	}
	_, err := AnalyzeFile(ctx, in, filepath.Join(dir, "o.npy"), encode.FormatNPY, AnalyzeOptions{FFT: 256, Hop: 64, Channel: -1}, engine.Pair{Preferred: cpu, CPU: cpu}, progress)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// testEngines is every engine pair to test on (apptest.Engines).
func testEngines(t *testing.T) []engine.Pair {
	return apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} })
}
