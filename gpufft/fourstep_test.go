package gpufft

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// fourStepEngine opens a second OpenCL engine on the test device that sends
// every transform above 16 complex points through the four-step passes, so
// small, fast cases cover the paths large sizes take. local > 0 also caps
// its local memory (so that pass groups hold one sequence and the real
// split cannot be folded into pass 2: the fallback path).
func fourStepEngine(t *testing.T, local int) *OpenCL {
	t.Helper()
	g := requireGPU(t)
	e, err := NewOpenCL(OpenCLOptions{Device: fmt.Sprint(g.info.Index)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	e.singleMax, e.halvesMax = 16, 0
	if local > 0 {
		e.local = local
	}
	return e
}

// unpairedLocal is the local memory that leaves one 32-point sequence per
// pass group: the four-step path of 1024 complex points (R2C 2048) without
// the folded split.
const unpairedLocal = 2 * (32 + 32/8) * 4

func TestFourStepTransforms(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	paired := []int{64, 128, 256, 2048, 16384}
	if testing.Short() {
		paired = []int{64, 2048}
	}
	// passRadix: passes below 1024 points at radix 16 (128 = 16·8, one
	// exchange) or 32 (PRISM_OPENCL_PASS_RADIX); 0 the default
	for _, c := range []struct {
		local, passRadix int
		sizes            []int
	}{{0, 0, paired}, {unpairedLocal, 0, []int{2048}}, {0, 16, []int{256, 16384}}, {0, 32, []int{2048}}} {
		e := fourStepEngine(t, c.local)
		if c.passRadix != 0 {
			e.passSmall = c.passRadix
		}
		for _, n := range c.sizes {
			m := n / 2
			if _, ok := e.singleGeom(m); ok {
				t.Fatalf("n=%d: the test engine runs it single-pass", n)
			}
			if paired := e.fourStepPaired(m); paired != (c.local == 0) {
				t.Fatalf("n=%d local=%d: paired split %v", n, c.local, paired)
			}
			for _, batch := range []int{1, 3} {
				t.Run(fmt.Sprintf("local=%d/passradix=%d/size=%d/batch=%d", c.local, c.passRadix, n, batch), func(t *testing.T) {
					checkRealPlan(t, e, n, batch, rng)
					p, err := e.NewReal(n, batch)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					bins := n/2 + 1
					// the inverse alone: bins with odd symmetry parts and
					// nonzero imaginary parts at 0 and n/2 (taken as zero)
					spec := randComplex(rng, bins)
					full := make([]complex128, n)
					for k := range bins {
						v := complex128(spec[k])
						if k == 0 || k == n/2 {
							v = complex(real(v), 0)
						}
						full[k] = v
						if k > 0 && k < n/2 {
							full[n-k] = complex(real(v), -imag(v))
						}
					}
					want := ref64(conj128(full)) // conj(F(conj X)) = n·IDFT(X); real here
					zz := make([]float32, n)
					if err := p.Inverse(zz, spec); err != nil {
						t.Fatal(err)
					}
					got := make([]complex64, n)
					wantR := make([]complex128, n)
					for i := range n {
						got[i] = complex(zz[i], 0)
						wantR[i] = complex(real(want[i])/float64(n), 0)
					}
					checkBatch(t, n, []float64{relErr(got, wantR)})

					if c.local > 0 {
						return // the complex transform of n points does not fit the capped local memory
					}
					checkComplexPlan(t, e, n, batch, rng)
				})
			}
		}
	}
}

// TestFourStepSpectrogram: the two-pass spectrogram (frames read and
// windowed in pass 1, split and output in pass 2) agrees with the CPU
// engine for every output, mixed and per channel, odd hops (frames starting
// on odd samples) and a bin gain.
func TestFourStepSpectrogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	paired := []int{64, 2048, 8192}
	if testing.Short() {
		paired = []int{2048}
	}
	for _, c := range []struct {
		local int
		sizes []int
	}{{0, paired}, {unpairedLocal, []int{2048}}} {
		e := fourStepEngine(t, c.local)
		for _, n := range c.sizes {
			noise := make([]float32, 2*(3*n+78))
			for i := range noise {
				noise[i] = float32(0.3 * rng.NormFloat64())
			}
			gain := make([]float32, n/2+1)
			for k := range gain {
				gain[k] = float32(k%7) / 3
			}
			type variant struct {
				mix  bool
				out  Output
				gain []float32
			}
			variants := []variant{{true, DBFS, nil}, {true, Complex, nil}, {false, Power, gain}, {false, DBFS, nil}}
			if !testing.Short() {
				variants = append(variants, variant{true, DBFS, gain}, variant{false, Complex, nil})
			}
			for vi, v := range variants {
				// odd and even channel lengths: the second channel's frames
				// start on odd or even samples (pairs read as 32 or 64 bits)
				length := 3*n + 77 + vi%2
				src := noise[:2*length]
				cfg := SpectrogramConfig{Size: n, Hop: n/3 + 1, Window: window.Func{Kind: window.Hann}, Channels: 2, Mix: v.mix,
					MaxSamples: length, Output: v.out, BinGain: v.gain}
				a, b := spectrogram(t, testCPU, cfg, src), spectrogram(t, e, cfg, src)
				for i := range a {
					bad := false
					switch v.out {
					case DBFS:
						bad = (a[i] > -120 || b[i] > -120) && math.Abs(float64(a[i]-b[i])) > 0.01
					default: // power or complex: relative to the frame's scale
						bad = math.Abs(float64(a[i]-b[i])) > 1e-4*(math.Abs(float64(a[i]))+float64(n)*0.01)
					}
					if bad {
						t.Fatalf("local=%d n=%d mix=%v %v gain=%v: value %d: CPU %g, GPU %g", c.local, n, v.mix, v.out, v.gain != nil, i, a[i], b[i])
					}
				}
			}
		}
	}
}

// TestPassRadix pins which four-step passes below 1024 points go at radix
// 16: on a GPU the 256-point ones that do no real split (one exchange
// instead of two), nowhere on a CPU device, every one when
// PRISM_OPENCL_PASS_RADIX sets it; and that the choice keeps the pass
// within its work-group and local memory.
func TestPassRadix(t *testing.T) {
	for _, c := range []struct {
		typ       string
		passSmall int
		n         int
		split     bool
		want      int
	}{
		{"GPU", 0, 256, false, 16}, {"GPU", 0, 256, true, 8}, {"GPU", 0, 128, false, 8},
		{"GPU", 0, 512, false, 8}, {"GPU", 0, 1024, false, 16}, {"CPU", 0, 256, false, 8},
		{"CPU", 16, 512, true, 16}, {"GPU", 32, 64, false, 32},
	} {
		e := &OpenCL{info: DeviceInfo{Type: c.typ}, maxWG: 1024, local: 48<<10 - 256, passSmall: c.passSmall}
		g := e.passGeom(c.n, c.split)
		if g.radix != c.want {
			t.Errorf("%s passSmall=%d n=%d split=%v: radix %d, want %d", c.typ, c.passSmall, c.n, c.split, g.radix, c.want)
		}
		if g.s != min(16, 4096/c.n) || g.wg() > e.maxWG || g.passLocal() > e.local {
			t.Errorf("%s n=%d split=%v: %d sequences of %d items, %d bytes of local memory", c.typ, c.n, c.split, g.s, g.t(), g.passLocal())
		}
	}
}

// TestFourStepStaged: pass 1 staged through local memory as before it went
// slot-fast (PRISM_OPENCL_SLOTFAST=0, the tuning aid that compares them)
// still computes the same transforms.
func TestFourStepStaged(t *testing.T) {
	t.Setenv("PRISM_OPENCL_SLOTFAST", "0")
	rng := rand.New(rand.NewPCG(24, 1))
	e := fourStepEngine(t, 0)
	for _, n := range []int{256, 16384} {
		for _, batch := range []int{1, 3} {
			checkRealPlan(t, e, n, batch, rng)
			checkComplexPlan(t, e, n, batch, rng)
		}
	}
}

// TestFourStepSplitTwiddles: the split pass with its twiddles made from two
// table entries and a constant per element (SPLIT_TW through
// PRISM_OPENCL_TUNE, the tuning aid that compares it with the default)
// still computes the same real transforms, forward and inverse.
func TestFourStepSplitTwiddles(t *testing.T) {
	t.Setenv("PRISM_OPENCL_TUNE", "SPLIT_TW=1")
	rng := rand.New(rand.NewPCG(25, 1))
	e := fourStepEngine(t, 0)
	for _, n := range []int{256, 2048, 16384} {
		if !e.fourStepPaired(n / 2) {
			t.Fatalf("n=%d: no paired split pass", n)
		}
		for _, batch := range []int{1, 3} {
			checkRealPlan(t, e, n, batch, rng)
		}
	}
}

// TestFourStepPassRule: the C2C and R2C plans' passes with pass 2 in
// reverse group order (P2_REV) and pass 1 storing evict-first (P1_ST, a
// plain store off NVIDIA), forced on wherever the tests run (by default
// GPUs reverse and NVIDIA hints): 256- and 512-point first passes (C2C
// and R2C 65536 and 262144) and small ones, batches of 1 and 3 items (the reversal runs
// across items), against the float64 reference, forward and inverse.
func TestFourStepPassRule(t *testing.T) {
	t.Setenv("PRISM_OPENCL_P2REV", "1")
	t.Setenv("PRISM_OPENCL_P1ST", "1")
	rng := rand.New(rand.NewPCG(26, 1))
	e := fourStepEngine(t, 0)
	sizes := []int{2048, 65536, 262144} // first passes of 32 or 64, 256, 512 points
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, n := range sizes {
		for _, batch := range []int{1, 3} {
			t.Run(fmt.Sprintf("size=%d/batch=%d", n, batch), func(t *testing.T) {
				checkComplexPlan(t, e, n, batch, rng)
				checkRealPlan(t, e, n, batch, rng)
			})
		}
	}
}

// TestPassDefines pins the passes' order and store rule (passDefines):
// pass 2 reversed on GPUs for C2C and R2C, pass 1 of 256 and 512 points
// evict-first on NVIDIA's platform only, neither for the other plans
// (C2R, the spectrogram) nor on CPU devices; and the tuning variables'
// overrides.
func TestPassDefines(t *testing.T) {
	nv := &OpenCL{info: DeviceInfo{Type: "GPU", Platform: "NVIDIA CUDA"}}
	amd := &OpenCL{info: DeviceInfo{Type: "GPU", Platform: "AMD Accelerated Parallel Processing"}}
	cpu := &OpenCL{info: DeviceInfo{Type: "CPU", Platform: "Portable Computing Language"}}
	for _, c := range []struct {
		e     *OpenCL
		pass1 bool
		n     int
		plain bool
		want  string
	}{
		{nv, true, 256, true, "P1_ST=1"}, {nv, true, 512, true, "P1_ST=1"}, {nv, true, 128, true, "P1_ST=0"}, {nv, true, 1024, true, "P1_ST=0"},
		{nv, true, 256, false, "P1_ST=0"}, {amd, true, 256, true, "P1_ST=0"}, {cpu, true, 256, true, "P1_ST=0"},
		{nv, false, 128, true, "P2_REV=1"}, {amd, false, 256, true, "P2_REV=1"}, {nv, false, 128, false, "P2_REV=0"},
		{cpu, false, 256, true, "P2_REV=0"},
	} {
		if got := c.e.passDefines(c.pass1, c.n, c.plain); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s, pass 1 %v, %d points, plain %v: %v, want %s", c.e.info.Platform, c.pass1, c.n, c.plain, got, c.want)
		}
	}
	nv.tuning.Pass2Reverse = SwitchOff // PRISM_OPENCL_P2REV=0
	cpu.tuning.Pass1Hint = SwitchOn    // PRISM_OPENCL_P1ST=1
	if got := nv.passDefines(false, 256, true); got[0] != "P2_REV=0" {
		t.Errorf("PRISM_OPENCL_P2REV=0: %v", got)
	}
	if got := cpu.passDefines(true, 128, false); got[0] != "P1_ST=1" {
		t.Errorf("PRISM_OPENCL_P1ST=1: %v", got)
	}
}
