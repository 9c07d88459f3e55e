package tfr

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// vqtEngines is the CPU engine and, where OpenCL works, the OpenCL one.
func vqtEngines(t *testing.T) []gpufft.Engine {
	return apptest.Engines(t, func(preferred, _ gpufft.Engine) gpufft.Engine { return preferred })
}

// directVQT is the definition itself in float64: bin k of the frame
// centred on sample m of x is (2/Σw)·Σ_{|t|<N_k/2} w(t)·x[m+t]·e^{−2πi·f_k·t/rate}
// with w(t) = ½ + ½·cos(2πt/N_k) and N_k = rate/(α·f_k + γ), α = 2^(1/B)−1,
// in dBFS. It shares no code with the transform.
func directVQT(x []float64, m int, rate, fk, gamma float64, bpo int) float64 {
	alpha := math.Pow(2, 1/float64(bpo)) - 1
	nk := rate / (alpha*fk + gamma)
	var sum complex128
	var wsum float64
	for t := -int(nk/2) - 1; t <= int(nk/2)+1; t++ {
		if math.Abs(float64(t)) >= nk/2 {
			continue
		}
		w := 0.5 + 0.5*math.Cos(2*math.Pi*float64(t)/nk)
		wsum += w
		sum += complex(w*x[m+t], 0) * cmplx.Exp(complex(0, -2*math.Pi*fk*float64(t)/rate))
	}
	return 20 * math.Log10(2*cmplx.Abs(sum)/wsum)
}

// testSignal is three sines (−20, −40 and −60 dBFS, the first at a bin
// centre fBin) and white noise at −74 dBFS RMS (most bins read −85 to
// −100 dBFS), seeded. The loudest sine sits 80 dB above the −100 dBFS
// line: the float32 FFT's rounding of a frame, about 2^−24·√log2(N) of
// its RMS, reaches a bin through its kernel's norm √(6/(N·N_k)); for the
// shortest kernels here that is near −160 dB below a full-scale sine, so
// at −6 dBFS it moved −100 dBFS bins by 0.015 dB (measured on PoCL), as it
// moves an STFT's.
func testSignal(n int, rate, fBin float64) []float64 {
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, n)
	for i := range x {
		t := float64(i) / rate
		x[i] = 0.1*math.Cos(2*math.Pi*fBin*t+0.3) + 0.01*math.Sin(2*math.Pi*0.3137*rate*t) +
			0.001*math.Sin(2*math.Pi*0.0713*rate*t+1) + 2e-4*rng.NormFloat64()
	}
	return x
}

// TestVQTMatchesDirect: every bin above −100 dBFS of every frame equals
// the direct float64 definition within 0.01 dB, for constant Q and two
// γ (8 and 30 Hz), 12, 24, 48 and 96 bins per octave, on each engine,
// across two Execute calls of one stream (the held groups read the value
// of the frame that last evaluated them); and the engines agree within
// 0.01 dB.
func TestVQTMatchesDirect(t *testing.T) {
	const rate = 8000.0
	cases := []struct {
		bpo               int
		fmin, fmax, gamma float64
		hop               int
	}{
		{12, 60, 0, 0, 64},
		{48, 250, 1000, 0, 16},
		{96, 700, 1000, 30, 48},
		{24, 60, 0, 3 * 24.7 * 0.108, 32}, // γ of librosa's ERB-like choice, scaled
	}
	engines := vqtEngines(t)
	for _, tc := range cases {
		name := fmt.Sprintf("bpo=%d/fmin=%g/fmax=%g/gamma=%.3g/hop=%d", tc.bpo, tc.fmin, tc.fmax, tc.gamma, tc.hop)
		t.Run(name, func(t *testing.T) {
			var levels [][]float32
			for _, e := range engines {
				levels = append(levels, checkVQTDirect(t, e, Config{Mode: VQT, Rate: rate, Channels: 2, Hop: tc.hop,
					BinsPerOctave: tc.bpo, FMin: tc.fmin, FMax: tc.fmax, Gamma: tc.gamma}))
			}
			for i := 1; i < len(levels); i++ {
				for k, v := range levels[i] {
					if ref := levels[0][k]; ref > -100 && math.Abs(float64(v-ref)) > 0.01 {
						t.Fatalf("%s vs %s: value %d: %.4f vs %.4f dB", engines[i].Name(), engines[0].Name(), k, v, ref)
					}
				}
			}
		})
	}
}

// checkVQTDirect runs one case on e and returns its levels.
func checkVQTDirect(t *testing.T, e gpufft.Engine, cfg Config) []float32 {
	t.Helper()
	rate, hop, gamma, bpo := cfg.Rate, cfg.Hop, cfg.Gamma, cfg.BinsPerOctave
	probe, err := vqtBins(cfg)
	if err != nil {
		t.Fatal(err)
	}
	span := max(gpufft.MinSize, probe[0].fftSize())
	frames := 5
	cfg.MaxSamples = span + (frames-1)*hop
	tr, err := New(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	v := tr.(*vqt)
	fBin := v.Freqs()[len(v.Freqs())/2]
	total := cfg.MaxSamples + frames*hop
	x := [2][]float64{testSignal(total, rate, fBin), testSignal(total, rate, fBin*1.01)}
	bins := len(v.Freqs())
	var all []float32
	memo := map[[3]int]float64{} // held frames share their evaluation's reference
	// one stream: the second block starts frames hops later
	for call := range 2 {
		off := call * frames * hop
		src := make([]float32, 2*cfg.MaxSamples)
		for c := range 2 {
			for i := range cfg.MaxSamples {
				src[c*cfg.MaxSamples+i] = float32(x[c][off+i])
			}
		}
		dst := make([]float32, 2*frames*bins)
		n, err := tr.Execute(dst, src)
		if err != nil || n != frames {
			t.Fatalf("Execute: %d frames, %v (want %d)", n, err, frames)
		}
		all = append(all, dst...)
		worst, tested := 0.0, 0
		for _, g := range v.groups {
			for c := range 2 {
				for i := range frames {
					stream := call*frames + i
					at := (stream - stream%g.ratio) * hop // the frame that evaluated the group
					for k := g.bin0; k < g.bin0+g.rows; k++ {
						ref, ok := memo[[3]int{c, at, k}]
						if !ok {
							ref = directVQT(x[c], at+span/2, rate, v.Freqs()[k], gamma, bpo)
							memo[[3]int{c, at, k}] = ref
						}
						got := float64(dst[(c*frames+i)*bins+k])
						if ref > -100 {
							tested++
							worst = max(worst, math.Abs(got-ref))
							if math.Abs(got-ref) > 0.01 {
								t.Fatalf("%s: channel %d frame %d bin %d (%.2f Hz, group %d): %.4f dB, direct %.4f dB",
									e.Name(), c, stream, k, v.Freqs()[k], g.size, got, ref)
							}
						}
					}
				}
			}
		}
		t.Logf("%s: call %d: %d bins, span %d, worst %.2g dB (%d values above -100 dBFS of %d)", e.Name(), call, bins, span, worst, tested, 2*frames*bins)
	}
	return all
}

// TestVQTLevelRule: a sine at a bin's centre frequency reads 20·log10(A)
// there, for constant Q and with γ; ENBW is Rate·Σw²/(Σw)² of the bin's
// Hann window, about 1.5 times its bandwidth α·f + γ.
func TestVQTLevelRule(t *testing.T) {
	const rate, amp = 16000.0, 0.25
	for _, gamma := range []float64{0, 20} {
		cfg := Config{Mode: VQT, Rate: rate, Channels: 1, Hop: 256, BinsPerOctave: 24, FMin: 200, Gamma: gamma}
		probe, err := vqtBins(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxSamples = max(gpufft.MinSize, probe[0].fftSize())
		tr, err := New(gpufft.NewCPU(1), cfg)
		if err != nil {
			t.Fatal(err)
		}
		alpha := math.Exp2(1.0/24) - 1
		for _, k := range []int{0, len(tr.Freqs()) / 2, len(tr.Freqs()) - 1} {
			f := tr.Freqs()[k]
			src := make([]float32, cfg.MaxSamples)
			for i := range src {
				src[i] = float32(amp * math.Cos(2*math.Pi*f*float64(i)/rate+0.7))
			}
			dst := make([]float32, len(tr.Freqs()))
			if _, err := tr.Execute(dst, src); err != nil {
				t.Fatal(err)
			}
			if want := 20 * math.Log10(amp); math.Abs(float64(dst[k])-want) > 0.01 {
				t.Errorf("gamma %g: bin %d (%.1f Hz): %.4f dB, want %.4f", gamma, k, f, dst[k], want)
			}
			if r := tr.ENBW()[k] / (alpha*f + gamma); math.Abs(r-1.5) > 0.01 {
				t.Errorf("gamma %g: bin %d: ENBW %.3f Hz is %.4f bandwidths, want 1.5", gamma, k, tr.ENBW()[k], r)
			}
		}
		tr.Close()
	}
}

// TestVQTLayout: 20 Hz at 192 kHz and 48 bins per octave fits the
// engines' largest FFT; the bins are spaced 2^(1/48) apart from 20 Hz up
// to the highest 4 bandwidths below Nyquist; groups halve in
// size upwards with hops Hop·2^m ≤ N_g/32; bad parameters are refused.
func TestVQTLayout(t *testing.T) {
	cfg := Config{Mode: VQT, Rate: 192000, Channels: 1, Hop: 128, BinsPerOctave: 48, FMin: 20, MaxSamples: 1 << 21}
	v, _, err := layoutVQT(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := v.Freqs()
	if v.Span() != 1<<20 || f[0] != 20 || math.Abs(f[1]/f[0]-math.Exp2(1.0/48)) > 1e-12 {
		t.Fatalf("span %d, freqs %v…", v.Span(), f[:2])
	}
	top := f[len(f)-1] * (1 + 4*(math.Exp2(1.0/48)-1))
	if top > 96000 || top*math.Exp2(1.0/48) <= 96000 {
		t.Errorf("top bin %.1f Hz: f + 4 bandwidths is %.1f Hz, want the last below 96 kHz", f[len(f)-1], top)
	}
	for i, g := range v.groups {
		h := cfg.Hop * g.ratio
		if h > max(cfg.Hop, g.size/vqtHopDivisor) || 2*h <= g.size/vqtHopDivisor || (i > 0 && g.size != v.groups[i-1].size/2) {
			t.Errorf("group %d: size %d, hop %d", i, g.size, h)
		}
	}
	for _, bad := range []Config{
		{BinsPerOctave: 11, FMin: 20}, {BinsPerOctave: 97, FMin: 20}, {BinsPerOctave: 48, FMin: 5},
		{BinsPerOctave: 48, FMin: 0}, {BinsPerOctave: 48, FMin: 20, Gamma: 1e5},
	} {
		bad.Mode, bad.Rate, bad.Channels, bad.Hop, bad.MaxSamples = VQT, 192000, 1, 128, 1<<21
		if tr, err := New(gpufft.NewCPU(1), bad); err == nil {
			tr.Close()
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestVQTAllocs: Execute allocates nothing, on each engine.
func TestVQTAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	for _, e := range vqtEngines(t) {
		cfg := Config{Mode: VQT, Rate: 8000, Channels: 2, Hop: 32, BinsPerOctave: 24, FMin: 100}
		probe, _ := vqtBins(cfg)
		cfg.MaxSamples = probe[0].fftSize() + 40*32
		tr, err := New(e, cfg)
		if err != nil {
			t.Fatal(err)
		}
		src := make([]float32, 2*cfg.MaxSamples)
		for i := range src {
			src[i] = float32(math.Sin(float64(i)))
		}
		dst := make([]float32, 2*41*len(tr.Freqs()))
		if n := testing.AllocsPerRun(10, func() { _, _ = tr.Execute(dst, src) }); n != 0 {
			t.Errorf("%s: Execute: %v allocs per call, want 0", e.Name(), n)
		}
		tr.Close()
	}
}

// TestVQTShape: the span and bins from the layout alone are the built
// transform's.
func TestVQTShape(t *testing.T) {
	for _, cfg := range []Config{
		{Mode: VQT, Rate: 48000, Channels: 1, Hop: 1024, MaxSamples: 1 << 18, BinsPerOctave: 48, FMin: 20},
		{Mode: VQT, Rate: 8000, Channels: 2, Hop: 64, MaxSamples: 1 << 15, BinsPerOctave: 12, FMin: 100, FMax: 2000, Gamma: 8},
	} {
		span, bins, err := VQTShape(cfg)
		tr := mustNew(t, testCPU, cfg)
		if err != nil || span != tr.Span() || bins != len(tr.Freqs()) {
			t.Errorf("%+v: VQTShape %d, %d, %v; the transform's %d, %d", cfg, span, bins, err, tr.Span(), len(tr.Freqs()))
		}
	}
	if _, _, err := VQTShape(Config{Mode: VQT, Rate: 48000, Channels: 1, Hop: 256, BinsPerOctave: 200, FMin: 20}); err == nil {
		t.Error("200 bins per octave: no error")
	}
}
