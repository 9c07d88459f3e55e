package gpufft

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prismaudio/prism/window"
)

var allWindows = []window.Func{{Kind: window.Rect}, {Kind: window.Hann}, {Kind: window.Hamming}, {Kind: window.Blackman},
	{Kind: window.BlackmanHarris}, {Kind: window.FlatTop}, {Kind: window.Kaiser, Beta: 8.6}, {Kind: window.Kaiser, Beta: 3}}

// sine returns amp·sin(2π·cycles·i/n) for i < length, computed in float64.
func sine(length, n int, cycles, amp, phase float64) []float32 {
	x := make([]float32, length)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*cycles*float64(i)/float64(n)+phase))
	}
	return x
}

func spectrogram(t *testing.T, e Engine, cfg SpectrogramConfig, src []float32) []float32 {
	t.Helper()
	p, err := e.NewSpectrogram(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dst := make([]float32, cfg.DstLen(len(src)/cfg.Channels))
	frames, err := p.Execute(dst, src)
	if err != nil {
		t.Fatal(err)
	}
	if want := cfg.Frames(len(src) / cfg.Channels); frames != want {
		t.Fatalf("Execute returned %d frames, want %d", frames, want)
	}
	return dst
}

// TestFullScaleSine: a full-scale sine at a bin centre reads 0.00 ± 0.02
// dBFS with every window (the contract's level scale).
func TestFullScaleSine(t *testing.T) {
	for _, e := range engines(t) {
		for _, n := range []int{64, 4096, 32768} {
			for _, w := range allWindows {
				k0 := n / 4 // far from DC and Nyquist, so the negative-frequency image does not leak in
				cfg := SpectrogramConfig{Size: n, Hop: n / 2, Window: w, Channels: 1, Mix: true, MaxSamples: 2 * n}
				out := spectrogram(t, e, cfg, sine(2*n, n, float64(k0), 1, 0.3))
				bins := cfg.Bins()
				for f := range cfg.Frames(2 * n) {
					if got := out[f*bins+k0]; math.Abs(float64(got)) > 0.02 {
						t.Errorf("%s n=%d %v frame %d: bin %d reads %.4f dBFS, want 0.00±0.02", e.Name(), n, w, f, k0, got)
					}
				}
			}
		}
	}
}

// TestFlatTopBetweenBins: the flat-top window reads the tone's level within
// ±0.05 dB wherever it falls between bins.
func TestFlatTopBetweenBins(t *testing.T) {
	const n = 2048
	for _, e := range engines(t) {
		for frac := 0.0; frac <= 0.5; frac += 0.0625 {
			cfg := SpectrogramConfig{Size: n, Hop: n, Window: window.Func{Kind: window.FlatTop}, Channels: 1, Mix: true, MaxSamples: n}
			levelDB := -6.0
			out := spectrogram(t, e, cfg, sine(n, n, 300+frac, math.Pow(10, levelDB/20), 1))
			peak := float32(-300)
			for k := 295; k <= 306; k++ {
				peak = max(peak, out[k])
			}
			if math.Abs(float64(peak)-levelDB) > 0.05 {
				t.Errorf("%s: tone at bin 300+%.4f reads %.4f dBFS, want %.1f±0.05", e.Name(), frac, peak, levelDB)
			}
		}
	}
}

// TestBlackmanHarrisDynamicRange: away from its main lobe (4 bins each
// side for the 4-term window), a bin-centred tone leaves nothing but
// rounding noise, ≥ 135 dB below the peak.
func TestBlackmanHarrisDynamicRange(t *testing.T) {
	for _, e := range engines(t) {
		for _, n := range []int{1024, 4096, 16384} {
			k0 := n / 8
			cfg := SpectrogramConfig{Size: n, Hop: n, Window: window.Func{Kind: window.BlackmanHarris}, Channels: 1, Mix: true, MaxSamples: n}
			out := spectrogram(t, e, cfg, sine(n, n, float64(k0), 1, 0.7))
			peak := out[k0]
			worst := float32(-400)
			for k, v := range out {
				if k < k0-4 || k > k0+4 {
					worst = max(worst, v)
				}
			}
			if peak-worst < 135 {
				t.Errorf("%s n=%d: off-peak bins reach %.1f dB, only %.1f dB below the peak (want ≥ 135)", e.Name(), n, worst, peak-worst)
			}
		}
	}
}

// TestFrameAlignment: frame i covers samples [i·H, i·H+N), no padding. An
// impulse at sample p shows (flat spectrum, rect window) exactly in the
// frames that contain p; every other frame is silent (the −200 dB floor).
func TestFrameAlignment(t *testing.T) {
	for _, e := range engines(t) {
		for _, c := range []struct{ n, hop, length, pos int }{
			{64, 64, 64, 0}, {64, 17, 300, 100}, {64, 1, 200, 63}, {128, 32, 1000, 999}, {256, 100, 1000, 555},
			{16384, 3000, 40000, 20000},
		} {
			cfg := SpectrogramConfig{Size: c.n, Hop: c.hop, Window: window.Func{Kind: window.Rect}, Channels: 1, Mix: true, MaxSamples: c.length}
			x := make([]float32, c.length)
			x[c.pos] = 1
			out := spectrogram(t, e, cfg, x)
			frames, bins := cfg.Frames(c.length), cfg.Bins()
			if want := (c.length-c.n)/c.hop + 1; frames != want {
				t.Fatalf("Frames = %d, want %d", frames, want)
			}
			for f := range frames {
				in := f*c.hop <= c.pos && c.pos < f*c.hop+c.n
				// |X_k| = 1 for an impulse: dB = 20·log10(c_k/N)
				want := 20 * math.Log10(2/float64(c.n))
				for _, k := range []int{0, 1, bins / 2, bins - 1} {
					w := want
					if k == 0 || k == bins-1 {
						w = 20 * math.Log10(1/float64(c.n))
					}
					if !in {
						w = FloorDB
					}
					if got := float64(out[f*bins+k]); math.Abs(got-w) > 0.01 {
						t.Fatalf("%s %+v: frame %d bin %d = %.3f dB, want %.3f", e.Name(), c, f, k, got, w)
					}
				}
			}
		}
	}
}

// TestChannels: per-channel output is each channel's spectrum; the mix is
// the spectrum of the mean.
func TestChannels(t *testing.T) {
	const n, length = 1024, 4096
	for _, e := range engines(t) {
		// channel c: a sine at bin 100·(c+1) with amplitude 0.5/(c+1)
		src := make([]float32, 0, 3*length)
		for c := range 3 {
			src = append(src, sine(length, n, float64(100*(c+1)), 0.5/float64(c+1), 0)...)
		}
		base := SpectrogramConfig{Size: n, Hop: 512, Window: window.Func{Kind: window.Hann}, Channels: 3, MaxSamples: length}
		each := base
		out := spectrogram(t, e, each, src)
		frames, bins := each.Frames(length), each.Bins()
		for c := range 3 {
			for f := range frames {
				row := out[(c*frames+f)*bins:]
				want := 20 * math.Log10(0.5/float64(c+1))
				if got := row[100*(c+1)]; math.Abs(float64(got)-want) > 0.02 {
					t.Errorf("%s channel %d frame %d: %.3f dBFS, want %.3f", e.Name(), c, f, got, want)
				}
				other := 100 * ((c+1)%3 + 1)
				if row[other] > -100 {
					t.Errorf("%s channel %d shows channel %d's tone: %.1f dB", e.Name(), c, other/100-1, row[other])
				}
			}
		}
		mix := base
		mix.Mix = true
		out = spectrogram(t, e, mix, src)
		for c := range 3 {
			want := 20 * math.Log10(0.5/float64(c+1)/3)
			if got := out[bins+100*(c+1)]; math.Abs(float64(got)-want) > 0.02 {
				t.Errorf("%s mix: tone %d reads %.3f dBFS, want %.3f", e.Name(), c, got, want)
			}
		}
	}
}

// TestOutputs: power and complex outputs agree with dBFS and with the real
// transform.
func TestOutputs(t *testing.T) {
	const n, length = 512, 2048
	rng := rand.New(rand.NewPCG(5, 1))
	x := randReal(rng, length)
	for _, e := range engines(t) {
		cfg := SpectrogramConfig{Size: n, Hop: 384, Window: window.Func{Kind: window.Hamming}, Channels: 1, Mix: true, MaxSamples: length}
		db := spectrogram(t, e, cfg, x)
		cfg.Output = Power
		pow := spectrogram(t, e, cfg, x)
		cfg.Output = Complex
		cpx := spectrogram(t, e, cfg, x)
		win, scale := windowTable(cfg.Window, n)
		bins := cfg.Bins()
		for f := range cfg.Frames(length) {
			frameMax := float32(FloorDB)
			for _, v := range db[f*bins : (f+1)*bins] {
				frameMax = max(frameMax, v)
			}
			// reference: float64 DFT of the windowed frame
			frame := make([]complex128, n)
			for i := range n {
				frame[i] = complex(float64(x[f*cfg.Hop+i])*float64(win[i]), 0)
			}
			ref := ref64(frame)
			for k := range bins {
				p := float64(pow[f*bins+k])
				re, im := float64(cpx[2*(f*bins+k)]), float64(cpx[2*(f*bins+k)+1])
				want := real(ref[k])*real(ref[k]) + imag(ref[k])*imag(ref[k])
				if math.Abs(p-want) > 1e-4*want+1e-3 || math.Abs(re*re+im*im-p) > 1e-5*p+1e-6 {
					t.Fatalf("%s frame %d bin %d: power %g, complex %g+%gi, reference power %g", e.Name(), f, k, p, re, im, want)
				}
				g := 2 * float64(scale)
				if k == 0 || k == bins-1 {
					g = float64(scale)
				}
				wantDB := math.Max(10*math.Log10(want*g*g), FloorDB)
				// float32 rounding is ~1e-7 of the frame's largest bins:
				// 0.01 dB holds within ~80 dB of the frame's peak.
				if wantDB > float64(frameMax)-80 && math.Abs(float64(db[f*bins+k])-wantDB) > 0.01 {
					t.Fatalf("%s frame %d bin %d: %.4f dBFS, reference %.4f", e.Name(), f, k, db[f*bins+k], wantDB)
				}
			}
		}
	}
}

// TestSpectrogramGPUMatchesCPU: the engines agree within 0.01 dB wherever
// the level is above −120 dBFS, for every size, hop and window, on
// broadband noise; on tones with deep leakage skirts, within 0.01 dB of
// each other and each within 0.01 dB of a float64 DFT wherever a bin is
// within 80 dB of its frame's peak. (A float32 FFT errs by ~1e-7 of the
// frame's energy, so a bin 100 dB below a full-scale peak cannot be exact
// to 0.01 dB; broadband signals keep every bin inside that range. Two
// engines' errors 70-80 dB down can add up: with the spectrogram's
// butterflies as FMAs (DFT_FMA, fft_common.cl), n = 2048, Blackman-Harris,
// a bin 79.5 dB below its peak was float64 −85.6516 dB, CPU −85.6449, GPU
// −85.6552: each within 0.007 dB, 0.0103 dB apart, so DFT_FMA stays off.)
func TestSpectrogramGPUMatchesCPU(t *testing.T) {
	g := requireGPU(t)
	rng := rand.New(rand.NewPCG(6, 1))
	for _, n := range sizes() {
		spectrogramMatchesCPU(t, g, n, rng)
	}
}

// spectrogramMatchesCPU checks g's spectrogram of n points against the CPU
// engine's on noise and on a tone (see TestSpectrogramGPUMatchesCPU), for
// three windows, mixed and per channel.
func spectrogramMatchesCPU(t *testing.T, g Engine, n int, rng *rand.Rand) {
	t.Helper()
	for _, w := range []window.Func{{Kind: window.Hann}, {Kind: window.BlackmanHarris}, {Kind: window.Kaiser, Beta: 5}} {
		length := 3*n + 77
		noise := make([]float32, 2*length)
		tones := make([]float32, 2*length)
		for i := range noise {
			noise[i] = float32(0.3 * rng.NormFloat64())
			tones[i] = float32(0.5*math.Sin(float64(i)*0.3) + 0.001*rng.NormFloat64())
		}
		for _, mix := range []bool{true, false} {
			cfg := SpectrogramConfig{Size: n, Hop: n/3 + 1, Window: w, Channels: 2, Mix: mix, MaxSamples: length}
			a, b := spectrogram(t, testCPU, cfg, noise), spectrogram(t, g, cfg, noise)
			for i := range a {
				if (a[i] > -120 || b[i] > -120) && math.Abs(float64(a[i]-b[i])) > 0.01 {
					t.Fatalf("noise n=%d %v mix=%v: value %d: CPU %.4f dB, GPU %.4f dB", n, w, mix, i, a[i], b[i])
				}
			}
			ref := levels64(cfg, tones)
			bins := cfg.Bins()
			var got [2][]float32
			for i, e := range []Engine{testCPU, g} {
				got[i] = spectrogram(t, e, cfg, tones)
				for r := range len(ref) / bins {
					row := ref[r*bins : (r+1)*bins]
					peak := slices.Max(row)
					for k, v := range row {
						if v > peak-80 && math.Abs(float64(got[i][r*bins+k])-v) > 0.01 {
							t.Fatalf("tones n=%d %v mix=%v: %s row %d bin %d: %.4f dB, float64 %.4f dB (peak %.1f)",
								n, w, mix, []string{"CPU", "GPU"}[i], r, k, got[i][r*bins+k], v, peak)
						}
					}
				}
			}
			for r := range len(ref) / bins {
				row := ref[r*bins : (r+1)*bins]
				peak := slices.Max(row)
				for k, v := range row {
					a, b := got[0][r*bins+k], got[1][r*bins+k]
					if v > peak-80 && math.Abs(float64(a-b)) > 0.01 {
						t.Fatalf("tones n=%d %v mix=%v: row %d bin %d: CPU %.4f dB, GPU %.4f dB (float64 %.4f, peak %.1f)",
							n, w, mix, r, k, a, b, v, peak)
					}
				}
			}
		}
	}
}

// frame64 is frame f of output channel c of planar src in float64, times
// the window table win: the channels' mean for Mix, else channel c.
func frame64(cfg SpectrogramConfig, src []float32, win []float32, c, f int) []complex128 {
	n, length := cfg.Size, len(src)/cfg.Channels
	frame := make([]complex128, n)
	for i := range frame {
		var x float64
		if cfg.Mix {
			for ch := range cfg.Channels {
				x += float64(src[ch*length+f*cfg.Hop+i])
			}
			x /= float64(cfg.Channels)
		} else {
			x = float64(src[c*length+f*cfg.Hop+i])
		}
		frame[i] = complex(x*float64(win[i]), 0)
	}
	return frame
}

// levels64 is the dBFS spectrogram of planar src (cfg.Channels channels of
// equal length) by float64 DFTs of the frames times the float32 window
// table the engines use: the channels' mean for Mix, else each channel.
func levels64(cfg SpectrogramConfig, src []float32) []float64 {
	n, length := cfg.Size, len(src)/cfg.Channels
	win, scale := windowTable(cfg.Window, n)
	var out []float64
	for c := range cfg.OutChannels() {
		for f := range cfg.Frames(length) {
			frame := frame64(cfg, src, win, c, f)
			ref := ref64(frame)
			for k := range cfg.Bins() {
				g := 2 * float64(scale)
				if k == 0 || k == n/2 {
					g = float64(scale)
				}
				p := real(ref[k])*real(ref[k]) + imag(ref[k])*imag(ref[k])
				out = append(out, math.Max(10*math.Log10(p*g*g), FloorDB))
			}
		}
	}
	return out
}

// TestSpectrogramShortInput: fewer samples than one frame is zero frames,
// not an error.
func TestSpectrogramShortInput(t *testing.T) {
	for _, e := range engines(t) {
		p, err := e.NewSpectrogram(SpectrogramConfig{Size: 256, Hop: 64, Channels: 2, MaxSamples: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if f, err := p.Execute(nil, make([]float32, 2*255)); f != 0 || err != nil {
			t.Errorf("%s: %d frames, %v", e.Name(), f, err)
		}
		p.Close()
	}
}

func ExampleCPU_NewSpectrogram() {
	e := NewCPU(0)
	defer e.Close()
	cfg := SpectrogramConfig{Size: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 48000}
	p, err := e.NewSpectrogram(cfg)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	// a 1.5 kHz sine at −6 dBFS, sampled at 48 kHz: bin 128 of 4096
	src := make([]float32, 48000)
	for i := range src {
		src[i] = float32(0.5 * math.Sin(2*math.Pi*1500*float64(i)/48000))
	}
	dst := make([]float32, cfg.DstLen(len(src)))
	frames, _ := p.Execute(dst, src)
	peak := 0
	for k := range cfg.Bins() {
		if dst[k] > dst[peak] {
			peak = k
		}
	}
	fmt.Printf("%d frames; peak at bin %d (%.0f Hz), %.1f dBFS\n", frames, peak, float64(peak)*48000/4096, dst[peak])
	// Output: 43 frames; peak at bin 128 (1500 Hz), -6.0 dBFS
}

// TestBinGain: a band mask applied after the FFT floors the bins outside
// the band and leaves those inside as they were, on both engines, for dBFS
// and power outputs.
func TestBinGain(t *testing.T) {
	const n, length = 2048, 8192
	rng := rand.New(rand.NewPCG(12, 1))
	x := randReal(rng, length)
	mask := make([]float32, n/2+1)
	for k := 100; k < 300; k++ {
		mask[k] = 1
	}
	for _, e := range engines(t) {
		for _, out := range []Output{DBFS, Power} {
			cfg := SpectrogramConfig{Size: n, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: length, Output: out}
			plain := spectrogram(t, e, cfg, x)
			cfg.BinGain = mask
			masked := spectrogram(t, e, cfg, x)
			bins := cfg.Bins()
			for i := range plain {
				k := i % bins
				want := plain[i]
				if mask[k] == 0 {
					want = 0
					if out == DBFS {
						want = FloorDB
					}
				}
				if math.Abs(float64(masked[i]-want)) > 1e-4*math.Abs(float64(want))+1e-6 {
					t.Fatalf("%s %v: bin %d = %v, want %v", e.Name(), out, k, masked[i], want)
				}
			}
		}
		bad := SpectrogramConfig{Size: n, Hop: 1024, Channels: 1, MaxSamples: length, BinGain: mask[:10]}
		if _, err := e.NewSpectrogram(bad); err == nil {
			t.Errorf("%s: short BinGain accepted", e.Name())
		}
	}
}

// TestSpectrogramWindows: the GPU spectrogram's complex output for every
// window, against a float64 DFT of the frame times the float64 window
// (Window.Values, not the float32 table), at every radix and stage plan,
// on both of load_frame's paths (even and odd hop), over several frames
// per group.
func TestSpectrogramWindows(t *testing.T) {
	spectrogramMatchesFloat64(t, requireGPU(t))
}

// TestSpectrogramPadBase: the spectrogram kernel with PAD_BASE on (its
// default on GPUs; CPU devices turn it off, padBaseDefine) on whatever
// device is there, PoCL included: against float64 for every window and
// against the CPU engine at every size.
func TestSpectrogramPadBase(t *testing.T) {
	g := requireGPU(t)
	if cpu := g.info.Type == "CPU"; len(g.tune) == 0 && (g.padBaseDefine() != nil) != cpu {
		t.Errorf("%s (%s): PAD_BASE define %v", g.Name(), g.info.Type, g.padBaseDefine())
	}
	t.Setenv("PRISM_OPENCL_TUNE", "PAD_BASE=1")
	e, err := NewOpenCL(OpenCLOptions{Device: fmt.Sprint(g.info.Index)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if d := e.padBaseDefine(); d != nil {
		t.Fatalf("PRISM_OPENCL_TUNE=PAD_BASE=1, yet the plan adds %v", d)
	}
	spectrogramMatchesFloat64(t, e)
	rng := rand.New(rand.NewPCG(16, 9))
	for _, n := range []int{1024, 4096} {
		spectrogramMatchesCPU(t, e, n, rng)
	}
}

// spectrogramMatchesFloat64 is TestSpectrogramWindows on engine g.
func spectrogramMatchesFloat64(t *testing.T, g Engine) {
	t.Helper()
	rng := rand.New(rand.NewPCG(16, 8))
	for _, n := range []int{MinSize, 64, 256, 1024, 2048, 4096, 8192, 16384} {
		for _, hop := range []int{n / 4, n/4 + 1} {
			length := n + 5*hop
			x := randReal(rng, length)
			for _, w := range allWindows {
				cfg := SpectrogramConfig{Size: n, Hop: hop, Window: w, Channels: 1, Mix: true, MaxSamples: length, Output: Complex}
				if worst := worstFrameError(cfg, spectrogram(t, g, cfg, x), x); worst > 1e-6 {
					// float32 rounding of the frame, the window and the
					// FFT: about 1.8e-7 on PoCL (n = 8192); PAD_BASE's read
					// positions without their constant pad read 2.3
					t.Errorf("%s n=%d hop=%d %v: relative L2 error %.3g against float64, want ≤ 1e-6", g.Name(), n, hop, w, worst)
				}
			}
		}
	}
}

// worstFrameError is the largest relative L2 error of a complex
// spectrogram's frames against float64 DFTs of the windowed frames.
func worstFrameError(cfg SpectrogramConfig, out, x []float32) float64 {
	n, hop := cfg.Size, cfg.Hop
	win, bins := cfg.Window.Values(n), cfg.Bins()
	worst := 0.0
	for f := range cfg.Frames(len(x)) {
		frame := make([]complex128, n)
		for i := range frame {
			frame[i] = complex(float64(x[f*hop+i])*win[i], 0)
		}
		ref := ref64(frame)
		var num, den float64
		for k := range bins {
			d := complex(float64(out[2*(f*bins+k)]), float64(out[2*(f*bins+k)+1])) - ref[k]
			num += real(d)*real(d) + imag(d)*imag(d)
			den += real(ref[k])*real(ref[k]) + imag(ref[k])*imag(ref[k])
		}
		worst = max(worst, math.Sqrt(num/den))
	}
	return worst
}

// TestSpectrogramFramesPerGroup: the single-pass spectrogram with each
// group looping over several overlapping frames (FPG through
// PRISM_OPENCL_FPG, the tuning aid; the host sets 1) still agrees with
// the CPU engine, frame counts that are not a multiple of it included.
func TestSpectrogramFramesPerGroup(t *testing.T) {
	g := requireGPU(t)
	t.Setenv("PRISM_OPENCL_FPG", "4")
	e, err := NewOpenCL(OpenCLOptions{Device: fmt.Sprint(g.info.Index)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.framesPerGroup() != 4 {
		t.Fatal("PRISM_OPENCL_FPG=4 not taken")
	}
	rng := rand.New(rand.NewPCG(36, 1))
	spectrogramMatchesCPU(t, e, 4096, rng)
}
