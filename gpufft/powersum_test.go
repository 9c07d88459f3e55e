package gpufft

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// powerSum64 is each output channel's Σ over the frames of |X_k|²·gain_k
// by float64 FFTs of the frames times the float32 window table the
// engines use (the channels' mean for Mix).
func powerSum64(cfg SpectrogramConfig, src []float32) []float64 {
	n, length, bins := cfg.Size, len(src)/cfg.Channels, cfg.Bins()
	win, _ := windowTable(cfg.Window, n)
	out := make([]float64, cfg.OutChannels()*bins)
	for c := range cfg.OutChannels() {
		for f := range cfg.Frames(length) {
			frame := frame64(cfg, src, win, c, f)
			ref := fft64(frame)
			for k := range bins {
				p := real(ref[k])*real(ref[k]) + imag(ref[k])*imag(ref[k])
				if cfg.BinGain != nil {
					p *= float64(cfg.BinGain[k])
				}
				out[c*bins+k] += p
			}
		}
	}
	return out
}

// powerSumCases are the PowerSum configurations the tests run: planar
// channels, a mix with bin gains, and a size past one work-group (the
// four-step layout on GPUs).
func powerSumCases(rng *rand.Rand) []SpectrogramConfig {
	gain := make([]float32, 2048/2+1)
	for k := range gain {
		gain[k] = float32(rng.Float64() * 2)
	}
	hann := window.Func{Kind: window.Hann}
	return []SpectrogramConfig{
		{Size: 256, Hop: 128, Window: hann, Channels: 2, MaxSamples: 256 * 80, Output: PowerSum},
		{Size: 2048, Hop: 1024, Window: window.Func{Kind: window.BlackmanHarris}, Channels: 2, Mix: true, MaxSamples: 2048 * 40, Output: PowerSum, BinGain: gain},
		{Size: 32768, Hop: 16384, Window: hann, Channels: 1, MaxSamples: 32768 * 8, Output: PowerSum},
	}
}

// noise is a tone in white noise, channels × length samples.
func noise(rng *rand.Rand, channels, length int) []float32 {
	x := make([]float32, channels*length)
	for i := range x {
		x[i] = float32(0.1*rng.NormFloat64() + 0.5*math.Sin(0.3*float64(i%length)+float64(i/length)))
	}
	return x
}

// TestPowerSumMatchesFloat64: a PowerSum Execute equals the float64 sum
// of its frames' powers within 1e-4 relative (0.0004 dB) per bin on both
// engines (OpenCL: PoCL here, a GPU in CI), for a full buffer and a short
// one (fewer frames than the plan's slices), the engines agree with each
// other as closely, and a buffer shorter than a frame sums to zero.
func TestPowerSumMatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for _, cfg := range powerSumCases(rng) {
		full := noise(rng, cfg.Channels, cfg.MaxSamples)
		short := noise(rng, cfg.Channels, cfg.Size+3*cfg.Hop+7) // 4 frames
		for _, src := range [][]float32{full, short} {
			want := powerSum64(cfg, src)
			var got [][]float32
			for _, e := range engines(t) {
				p, err := e.NewSpectrogram(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if p.Config().Output != PowerSum {
					t.Fatalf("%s: Config().Output = %v", e.Name(), p.Config().Output)
				}
				dst := make([]float32, cfg.DstLen(cfg.MaxSamples)+1)
				dst[len(dst)-1] = 42
				frames, err := p.Execute(dst, src)
				if err != nil {
					t.Fatal(err)
				}
				if w := cfg.Frames(len(src) / cfg.Channels); frames != w {
					t.Errorf("%s N=%d: %d frames, want %d", e.Name(), cfg.Size, frames, w)
				}
				if dst[len(dst)-1] != 42 {
					t.Errorf("%s N=%d: wrote past OutChannels×Bins", e.Name(), cfg.Size)
				}
				checkSum(t, e.Name(), cfg, dst[:len(want)], want)
				got = append(got, dst[:len(want)])
				zero := src[:cfg.Channels*(cfg.Size-1)]
				if _, err := p.Execute(dst, zero); err != nil {
					t.Fatal(err)
				}
				for k, v := range dst[:len(want)] {
					if v != 0 {
						t.Fatalf("%s N=%d: no frame: dst[%d] = %v, want 0", e.Name(), cfg.Size, k, v)
					}
				}
				p.Close()
			}
			if len(got) == 2 {
				ref := make([]float64, len(got[0]))
				for k, v := range got[0] {
					ref[k] = float64(v)
				}
				checkSum(t, "opencl vs cpu", cfg, got[1], ref)
			}
		}
	}
}

// checkSum fails unless every bin of got is within 1e-4 relative of want
// (and within 1e-6 of the channel's mean bin, for bins a window's
// sidelobes or a gain of ~0 leave near zero).
func checkSum(t *testing.T, what string, cfg SpectrogramConfig, got []float32, want []float64) {
	t.Helper()
	bins := cfg.Bins()
	for c := range cfg.OutChannels() {
		mean := 0.0
		for _, v := range want[c*bins : (c+1)*bins] {
			mean += v / float64(bins)
		}
		for k := range bins {
			g, w := float64(got[c*bins+k]), want[c*bins+k]
			if d := math.Abs(g - w); !(d <= 1e-4*w+1e-6*mean) {
				t.Fatalf("%s N=%d channel %d bin %d: %g, want %g (%.2g relative)", what, cfg.Size, c, k, g, w, d/w)
			}
		}
	}
}

// TestPowerSumIsPowerFrames: the sum equals the engine's own Power rows
// added in float64, to float32 rounding of the sum (1e-5 relative), so
// PowerSum is the Power output, summed, on either engine.
func TestPowerSumIsPowerFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2))
	cfg := powerSumCases(rng)[0]
	src := noise(rng, cfg.Channels, cfg.MaxSamples)
	for _, e := range engines(t) {
		pcfg := cfg
		pcfg.Output = Power
		rows := spectrogram(t, e, pcfg, src)
		frames, bins := pcfg.Frames(cfg.MaxSamples), cfg.Bins()
		want := make([]float64, cfg.OutChannels()*bins)
		for c := range cfg.OutChannels() {
			for f := range frames {
				for k, v := range rows[(c*frames+f)*bins : (c*frames+f+1)*bins] {
					want[c*bins+k] += float64(v)
				}
			}
		}
		p, err := e.NewSpectrogram(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float32, cfg.DstLen(cfg.MaxSamples))
		if _, err := p.Execute(dst, src); err != nil {
			t.Fatal(err)
		}
		p.Close()
		for k, v := range dst {
			if d := math.Abs(float64(v) - want[k]); !(d <= 1e-5*want[k]) {
				t.Fatalf("%s bin %d: %g, want %g", e.Name(), k, v, want[k])
			}
		}
	}
}

// TestPowerSumNoAllocs: a PowerSum Execute allocates nothing on either
// engine.
func TestPowerSumNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	rng := rand.New(rand.NewPCG(30, 3))
	for _, e := range engines(t) {
		for _, cfg := range powerSumCases(rng)[:2] {
			p, err := e.NewSpectrogram(cfg)
			if err != nil {
				t.Fatal(err)
			}
			src := noise(rng, cfg.Channels, cfg.MaxSamples)
			dst := make([]float32, cfg.DstLen(cfg.MaxSamples))
			if _, err := p.Execute(dst, src); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(5, func() { _, _ = p.Execute(dst, src) }); a != 0 {
				t.Errorf("%s N=%d: %v allocs per Execute, want 0", e.Name(), cfg.Size, a)
			}
			p.Close()
		}
	}
}

// TestPowerSumNotPCM: the PCM plans refuse PowerSum (their queues hold
// rows), with ErrInvalid, on either engine.
func TestPowerSumNotPCM(t *testing.T) {
	cfg := SpectrogramConfig{Size: 256, Hop: 128, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 1024, Output: PowerSum}
	for _, e := range engines(t) {
		p, err := NewPCMSpectrogram(e, PCMFormat{Encoding: PCMInt16, Channels: 1, Select: 0}, cfg)
		if !errors.Is(err, ErrInvalid) {
			if p != nil {
				p.Close()
			}
			t.Errorf("%s: NewPCMSpectrogram(PowerSum) = %v, want ErrInvalid", e.Name(), err)
		}
	}
}

// TestExecuteInt16EqualsExecute: a PowerSum plan fed 16-bit samples
// (ExecuteInt16: converted in the CPU engine's first FFT stage, with the
// AVX2 kernels and without, or on the OpenCL device, from ordinary and
// from the plan's pinned memory) gives the bits
// Execute gives for the samples converted as package audio converts them
// (v/2^15), for sizes of an even and an odd power of four, and equals a
// float64 reference.
func TestExecuteInt16EqualsExecute(t *testing.T) {
	defer setAVX2(haveAVX2)
	rng := rand.New(rand.NewPCG(13, 14))
	type run struct {
		e   Engine
		avx bool
	}
	runs := []run{{testCPU, false}, {testCPU, haveAVX2}}
	for _, e := range engines(t) {
		if e != Engine(testCPU) {
			runs = append(runs, run{e, haveAVX2})
		}
	}
	for _, n := range []int{256, 2048, 8192} {
		for _, r := range runs {
			e, avx := r.e, r.avx
			setAVX2(avx)
			cfg := SpectrogramConfig{Size: n, Hop: n / 2, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 20 * n, Output: PowerSum}
			p, err := e.NewSpectrogram(cfg)
			if err != nil {
				t.Fatal(err)
			}
			x := make([]int16, 13*n+5)
			for i := range x {
				x[i] = int16(rng.Uint32()) >> (i % 9) // loud and quiet stretches
			}
			x[3] = math.MinInt16
			f := make([]float32, len(x))
			for i, v := range x {
				f[i] = float32(v) / (1 << 15)
			}
			want, got := make([]float32, cfg.Bins()), make([]float32, cfg.Bins())
			fw, err := p.Execute(want, f)
			if err != nil {
				t.Fatal(err)
			}
			fg, err := p.(Int16Executor).ExecuteInt16(got, x)
			if err != nil {
				t.Fatal(err)
			}
			if st, ok := p.(Int16Stager); ok { // and from its pinned memory, not at the start
				buf, err := st.Int16Buffer(len(x) + 3)
				if err != nil {
					t.Fatal(err)
				}
				copy(buf[3:], x)
				pinned := make([]float32, cfg.Bins())
				if _, err := p.(Int16Executor).ExecuteInt16(pinned, buf[3:]); err != nil {
					t.Fatal(err)
				}
				for k := range want {
					if math.Float32bits(pinned[k]) != math.Float32bits(want[k]) {
						t.Fatalf("%s n %d, pinned: bin %d = %g, Execute %g", e.Name(), n, k, pinned[k], want[k])
					}
				}
			}
			p.Close()
			if fg != fw || fw != cfg.Frames(len(x)) {
				t.Fatalf("%s n %d: %d frames, Execute %d, want %d", e.Name(), n, fg, fw, cfg.Frames(len(x)))
			}
			for k := range want {
				if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
					t.Fatalf("%s n %d AVX2 %v: bin %d = %g, Execute %g", e.Name(), n, avx, k, got[k], want[k])
				}
			}
			ref := powerSum64(cfg, f)
			for k, r := range ref {
				if d := math.Abs(float64(got[k])-r) / r; d > 1e-5 {
					t.Fatalf("%s n %d: bin %d = %g, float64 %g (relative %.1e)", e.Name(), n, k, got[k], r, d)
				}
			}
		}
	}
}

// TestPowerSumWorkersAlike: the CPU engine's power sums are the same bits
// whatever its number of workers (the float32 groups of frames do not
// follow the split), so shards on machines of any size write the bytes
// one process writes.
func TestPowerSumWorkersAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	cfg := SpectrogramConfig{Size: 512, Hop: 256, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 300 * 256, Output: PowerSum}
	x := randReal(rng, 257*256+100) // 256 frames: groups of 16 split 1, 2, 3, 7 and 16 ways
	var want []float32
	for _, workers := range []int{1, 2, 3, 7, 16} {
		e := NewCPU(workers)
		p, err := e.NewSpectrogram(cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, cfg.Bins())
		if _, err := p.Execute(got, x); err != nil {
			t.Fatal(err)
		}
		p.Close()
		e.Close()
		if want == nil {
			want = got
			continue
		}
		for k := range want {
			if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
				t.Fatalf("%d workers: bin %d = %g, one worker %g", workers, k, got[k], want[k])
			}
		}
	}
}
