package analysis

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// writePCMWAV writes interleaved frames x of ch channels as a WAV of the
// given sample format (encode's WAV writer, as `prism filter` writes).
func writePCMWAV(t *testing.T, path string, rate, ch, bits int, float bool, x []float32) {
	t.Helper()
	o, err := encode.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := encode.NewWAVWriter(o, rate, ch, bits, float)
	if err == nil {
		err = w.Write(x)
	}
	if err == nil {
		err = w.Finish()
	}
	if err == nil {
		err = o.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestRawPCMPipeline: a WAV file analyzed on the GPU from its raw bytes
// (converted, mixed or picked, transformed and folded on the device) reads
// as the CPU engine's decoding pipeline does, within 0.01 dB above −120
// dBFS, for every sample format the device converts, the mix and a
// channel, across many batch boundaries and a length that ends mid-frame;
// and the PNG of it is the same image.
func TestRawPCMPipeline(t *testing.T) {
	gpu, cpu := openCLPair(t)
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 3000 // many batches
	const rate, ch, n = 16000, 3, 20011
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, n*ch)
	for i := range n {
		for c := range ch {
			x[i*ch+c] = float32(0.3*math.Sin(2*math.Pi*float64(300*(c+1))*float64(i)/rate) + 0.05*(rng.Float64()*2-1))
		}
	}
	dir := t.TempDir()
	for _, f := range []struct {
		name  string
		bits  int
		float bool
	}{{"int16", 16, false}, {"int24", 24, false}, {"int32", 32, false}, {"float32", 32, true}} {
		in := filepath.Join(dir, f.name+".wav")
		writePCMWAV(t, in, rate, ch, f.bits, f.float, x)
		for _, channel := range []int{-1, 2} {
			opts := AnalyzeOptions{FFT: 512, Hop: 160, Window: window.Func{Kind: window.Hann}, Channel: channel}
			want, got := filepath.Join(dir, "cpu.npy"), filepath.Join(dir, fmt.Sprintf("gpu-%s-%d.npy", f.name, channel))
			if _, err := AnalyzeFile(context.Background(), in, want, encode.FormatNPY, opts, cpu, nil); err != nil {
				t.Fatal(err)
			}
			var checkDone func()
			opts.EngineDone, checkDone = engineDoneCheck(t, got)
			res, err := AnalyzeFile(context.Background(), in, got, encode.FormatNPY, opts, gpu, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.RawPCM {
				t.Fatalf("%s: the raw PCM path was not taken", f.name)
			}
			checkDone()
			r1, c1, v1 := apptest.ReadNPY(t, want)
			r2, c2, v2 := apptest.ReadNPY(t, got)
			if r1 != r2 || c1 != c2 || r1 != (n-512)/160+1 {
				t.Fatalf("%s channel %d: %d×%d against %d×%d", f.name, channel, r2, c2, r1, c1)
			}
			worst := 0.0
			for i := range v1 {
				if v1[i] > -120 {
					worst = max(worst, math.Abs(float64(v1[i]-v2[i])))
				}
			}
			if worst > 0.01 {
				t.Errorf("%s channel %d: GPU raw PCM differs from the CPU by up to %.4f dB", f.name, channel, worst)
			}
		}
		// the image: the same pixels, but where a level sits on a colour
		// boundary (0.01 dB moves it one entry of 256)
		opts := AnalyzeOptions{FFT: 512, Hop: 160, Window: window.Func{Kind: window.Hann}, Channel: -1,
			Image: plot.ImageOptions{Width: 200, Height: 120, Scale: plot.Log, DBMin: -120, DBMax: 0, Colormap: plot.Gray}}
		a, b := filepath.Join(dir, "cpu.png"), filepath.Join(dir, "gpu-"+f.name+".png")
		if _, err := AnalyzeFile(context.Background(), in, a, encode.FormatPNG, opts, cpu, nil); err != nil {
			t.Fatal(err)
		}
		var checkDone func()
		opts.EngineDone, checkDone = engineDoneCheck(t, b)
		if _, err := AnalyzeFile(context.Background(), in, b, encode.FormatPNG, opts, gpu, nil); err != nil {
			t.Fatal(err)
		}
		checkDone()
		ia, ib := readPNG(t, a), readPNG(t, b)
		if ia.Bounds() != ib.Bounds() {
			t.Fatalf("%s: images %v and %v", f.name, ia.Bounds(), ib.Bounds())
		}
		for i := range ia.Pix {
			if d := int(ia.Pix[i]) - int(ib.Pix[i]); d > 1 || d < -1 {
				t.Errorf("%s: PNG byte %d: %d on the CPU, %d from raw PCM on the GPU", f.name, i, ia.Pix[i], ib.Pix[i])
				break
			}
		}
	}
}

// engineDoneCheck returns an AnalyzeOptions.EngineDone that checks it is
// called before the output out is in place, and a check, for after the
// analysis, that it was called exactly once.
func engineDoneCheck(t *testing.T, out string) (hook, check func()) {
	calls := 0
	hook = func() {
		calls++
		if _, err := os.Stat(out); err == nil {
			t.Errorf("EngineDone: %s is in place already; want it called before the output is finished", out)
		}
	}
	check = func() {
		if calls != 1 {
			t.Errorf("EngineDone called %d times for %s, want once", calls, out)
		}
	}
	return hook, check
}

func readPNG(t *testing.T, path string) *image.NRGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewNRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, image.Point{}, draw.Src)
	return out
}

// TestCPURawMatchesDecoding: the CPU engine fed a WAV's raw int16 bytes
// (converted and mixed on its workers) writes the same NPY and PNG, byte
// for byte, as its decoding pipeline fed the same samples from a 64-bit
// float WAV (a format the raw path does not take), across many batch
// boundaries, for the mix and a channel.
func TestCPURawMatchesDecoding(t *testing.T) {
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	eng := engine.Pair{Preferred: cpu, CPU: cpu}
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 3000
	const rate, ch, n = 16000, 3, 20011
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, n*ch)
	for i := range x { // on the int16 grid, so both files hold the same values
		v := 0.4*math.Sin(float64(i)*0.013) + 0.1*(rng.Float64()*2-1)
		x[i] = float32(math.Round(v*32768) / 32768)
	}
	dir := t.TempDir()
	raw, dec := filepath.Join(dir, "raw.wav"), filepath.Join(dir, "dec.wav")
	writePCMWAV(t, raw, rate, ch, 16, false, x)
	writePCMWAV(t, dec, rate, ch, 64, true, x)
	for _, format := range []encode.Format{encode.FormatNPY, encode.FormatPNG} {
		for _, channel := range []int{-1, 1} {
			opts := AnalyzeOptions{FFT: 512, Hop: 160, Window: window.Func{Kind: window.Hann}, Channel: channel,
				Image: plot.ImageOptions{Width: 200, Height: 100, DBMin: -120, DBMax: 0}}
			a, b := filepath.Join(dir, "a."+string(format)), filepath.Join(dir, "b."+string(format))
			ra, err := AnalyzeFile(context.Background(), raw, a, format, opts, eng, nil)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := AnalyzeFile(context.Background(), dec, b, format, opts, eng, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !ra.RawPCM || rb.RawPCM {
				t.Fatalf("raw path taken: int16 %v, float64 %v; want true, false", ra.RawPCM, rb.RawPCM)
			}
			ba, _ := os.ReadFile(a)
			bb, _ := os.ReadFile(b)
			if len(ba) == 0 || !bytes.Equal(ba, bb) {
				t.Errorf("%s, %s: the raw path's output differs from the decoding pipeline's", format, dsp.ChannelName(channel))
			}
		}
	}
}

// openCLPair is the OpenCL engine with its CPU fallback, and the CPU
// engine alone; it skips the test where there is no OpenCL engine.
func openCLPair(t *testing.T) (gpu, cpu engine.Pair) {
	for _, e := range testEngines(t) {
		if _, ok := e.Preferred.(*gpufft.OpenCL); ok {
			gpu = e
		}
	}
	if gpu.Preferred == nil {
		t.Skip("no OpenCL engine (PRISM_REQUIRE_OPENCL=1 makes this fail)")
	}
	return gpu, engine.Pair{Preferred: gpu.CPU, CPU: gpu.CPU}
}
