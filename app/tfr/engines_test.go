package tfr

import (
	"math"
	"math/cmplx"
	"os"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

var (
	testCPU    = gpufft.NewCPU(0)
	testGPU    gpufft.Engine
	testGPUErr error
	gpuOpened  bool
)

// engines returns the CPU engine and, when OpenCL opens, the OpenCL one;
// under PRISM_REQUIRE_OPENCL=1 its absence fails the test.
func engines(t *testing.T) []gpufft.Engine {
	t.Helper()
	if !gpuOpened {
		gpuOpened = true
		e, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{})
		if err == nil {
			testGPU = e
		}
		testGPUErr = err
	}
	if testGPU == nil {
		if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
			t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", testGPUErr)
		}
		t.Logf("no OpenCL (%v): CPU engine only", testGPUErr)
		return []gpufft.Engine{testCPU}
	}
	return []gpufft.Engine{testCPU, testGPU}
}

func mustNew(t *testing.T, e gpufft.Engine, cfg Config) Transform {
	t.Helper()
	tr, err := New(e, cfg)
	if err != nil {
		t.Fatalf("New(%s, %+v): %v", e.Name(), cfg, err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// run executes tr over src (channels planar blocks) and returns the
// frames and the levels.
func run(t *testing.T, tr Transform, src []float32) (int, []float32) {
	t.Helper()
	ch := tr.Config().Channels
	l := len(src) / ch
	frames := 0
	if l >= tr.Span() {
		frames = (l-tr.Span())/tr.Config().Hop + 1
	}
	dst := make([]float32, ch*frames*len(tr.Freqs()))
	got, err := tr.Execute(dst, src)
	if err != nil || got != frames {
		t.Fatalf("Execute: %d frames, %v; want %d", got, err, frames)
	}
	return frames, dst
}

// sine is n samples of a·sin(2πf·t + phase) at rate.
func sine(dst []float32, rate, f, a, phase float64) {
	for i := range dst {
		dst[i] += float32(a * math.Sin(2*math.Pi*f*float64(i)/rate+phase))
	}
}

// dftDB is the float64 reference of one bin: the level in dBFS of bin k
// of x (n samples) windowed by w, by the engines' DBFS rule.
func dftDB(x []float32, w window.Func, k int) float64 {
	n := len(x)
	h := w.Values(n)
	var s complex128
	sum := 0.0
	for m, v := range x {
		s += complex(float64(v)*h[m], 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(k*m%n)/float64(n)))
		sum += h[m]
	}
	c := 2.0
	if k == 0 || k == n/2 {
		c = 1
	}
	return 20 * math.Log10(max(cmplx.Abs(s)*c/sum, 1e-10))
}

// framePower64 is the float64 total DBFS-scaled power of a frame's bins.
func framePower64(x []float32, w window.Func) float64 {
	n := len(x)
	h := w.Values(n)
	seq := make([]float64, n)
	sum := 0.0
	for m, v := range x {
		seq[m] = float64(v) * h[m]
		sum += h[m]
	}
	total := 0.0
	for k, c := range fourier.NewFFT(n).Coefficients(nil, seq) {
		g := 2.0
		if k == 0 || k == n/2 {
			g = 1
		}
		a := cmplx.Abs(c) * g / sum
		total += a * a
	}
	return total
}

func TestModesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	for _, e := range engines(t) {
		for _, cfg := range []Config{
			{Mode: STFT, Rate: 48000, Channels: 2, Hop: 256, Size: 1024, MaxSamples: 8192, Window: window.Func{Kind: window.Hann}},
			{Mode: MultiRes, Rate: 48000, Channels: 2, Hop: 256, MaxSamples: 32768, Window: window.Func{Kind: window.Hann}},
			{Mode: Reassigned, Rate: 48000, Channels: 2, Hop: 256, Size: 1024, MaxSamples: 8192, Window: window.Func{Kind: window.Hann}},
			{Mode: Reassigned, Rate: 48000, Channels: 2, Hop: 256, Sizes: []int{4096, 2048, 1024}, MaxSamples: 16384, Window: window.Func{Kind: window.Hann}},
		} {
			tr := mustNew(t, e, cfg)
			src := make([]float32, 2*cfg.MaxSamples)
			sine(src, 48000, 1000, 0.5, 0)
			frames := (cfg.MaxSamples-tr.Span())/cfg.Hop + 1
			dst := make([]float32, 2*frames*len(tr.Freqs()))
			if n := testing.AllocsPerRun(3, func() { _, _ = tr.Execute(dst, src) }); n != 0 {
				t.Errorf("%s %v: Execute: %v allocs per call, want 0", e.Name(), cfg.Mode, n)
			}
		}
	}
}

func TestSTFTIsTheEnginePlan(t *testing.T) {
	cfg := Config{Mode: STFT, Rate: 48000, Channels: 1, Hop: 512, Size: 2048, MaxSamples: 4096, Window: window.Func{Kind: window.Hann}}
	tr := mustNew(t, testCPU, cfg)
	src := make([]float32, 4096)
	sine(src, 48000, 1000, 0.25, 0.3)
	frames, dst := run(t, tr, src)
	if frames != 5 || tr.Freqs()[1] != 48000.0/2048 || math.Abs(tr.ENBW()[3]/(48000.0/2048)-1.5) > 1e-9 {
		t.Fatalf("frames %d, bin 1 at %g Hz, ENBW %g Hz", frames, tr.Freqs()[1], tr.ENBW()[3])
	}
	for _, k := range []int{40, 42, 43, 100} {
		want := dftDB(src[512:512+2048], cfg.Window, k)
		if got := float64(dst[len(tr.Freqs())+k]); math.Abs(got-want) > 0.01 {
			t.Errorf("bin %d: %.3f dB, float64 DFT %.3f", k, got, want)
		}
	}
}

func TestParseModeAndErrors(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%v) = %v, %v", m, got, err)
		}
	}
	hann := window.Func{Kind: window.Hann}
	for _, cfg := range []Config{
		{Mode: MultiRes, Rate: 48000, Channels: 1, Hop: 256, MaxSamples: 1 << 16, Sizes: []int{4096, 8192}, Window: hann},
		{Mode: MultiRes, Rate: 48000, Channels: 1, Hop: 256, MaxSamples: 1 << 16, Sizes: []int{4096, 128}, Window: hann},
		{Mode: MultiRes, Rate: 48000, Channels: 1, Hop: 256, MaxSamples: 1000, Window: hann},
		{Mode: MultiRes, Rate: 48000, Channels: 1, Hop: 4096, MaxSamples: 1 << 16, Window: hann},
		{Mode: Reassigned, Rate: 48000, Channels: 1, Hop: 256, Size: 1000, MaxSamples: 4096, Window: hann},
		{Mode: Reassigned, Rate: 48000, Channels: 1, Hop: 256, Size: 1024, MaxSamples: 4096, ThresholdDB: -3, Window: hann},
		{Mode: STFT, Rate: 48000, Channels: 0, Hop: 256, Size: 1024, MaxSamples: 4096, Window: hann},
	} {
		if tr, err := New(testCPU, cfg); err == nil {
			tr.Close()
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}

// TestEnginesAgree runs every mode on the CPU and OpenCL engines over the
// same two channels (a chirp and steady sines): bins above −100 dBFS agree
// within 0.01 dB.
func TestEnginesAgree(t *testing.T) {
	es := engines(t)
	if len(es) < 2 {
		t.Skip("no OpenCL engine")
	}
	const rate = 48000.0
	hann := window.Func{Kind: window.Hann}
	l := 20000
	src := make([]float32, 2*l)
	for i := range l {
		tt := float64(i) / rate
		src[i] = float32(0.5 * math.Sin(2*math.Pi*(300*tt+20000*tt*tt)))
	}
	sine(src[l:], rate, 997, 0.3, 0)
	sine(src[l:], rate, 60.3, 0.1, 0.5)
	for _, cfg := range []Config{
		{Mode: STFT, Rate: rate, Channels: 2, Hop: 512, Size: 2048, MaxSamples: l, Window: hann},
		{Mode: MultiRes, Rate: rate, Channels: 2, Hop: 512, MaxSamples: l, Window: hann},
		{Mode: Reassigned, Rate: rate, Channels: 2, Hop: 512, Size: 2048, MaxSamples: l, Window: hann},
	} {
		_, a := run(t, mustNew(t, es[0], cfg), src)
		_, b := run(t, mustNew(t, es[1], cfg), src)
		worst := 0.0
		for i := range a {
			if max(a[i], b[i]) > -100 {
				worst = max(worst, math.Abs(float64(a[i]-b[i])))
			}
		}
		if worst > 0.01 {
			t.Errorf("%v: CPU and OpenCL differ by up to %.4f dB", cfg.Mode, worst)
		}
	}
}
