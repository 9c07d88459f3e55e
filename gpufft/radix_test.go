package gpufft

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// radixEngine opens a second OpenCL engine on the test device whose
// single-pass kernels use the given register radix (0: the per-length
// default, PRISM_OPENCL_RADIX's effect otherwise) and run single-pass up to
// maxSingle points on every device type, so each radix's butterflies and
// stage plans are checked wherever the tests run (PoCL in CI included), not
// only at the lengths and on the devices where the defaults pick them.
//
// local > 0 also sets the local memory the geometry plans for (as on NVIDIA,
// where OpenCL gives 48 KB), so the transforms that keep one component in
// local memory at a time there take that path here too.
func radixEngine(t *testing.T, radix, local int) *OpenCL {
	t.Helper()
	g := requireGPU(t)
	e, err := NewOpenCL(OpenCLOptions{Device: fmt.Sprint(g.info.Index)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	e.radix, e.singleMax = radix, maxSingle
	if local > 0 {
		e.local = local
	}
	return e
}

// nvidiaLocal is the local memory NVIDIA's OpenCL gives a work-group, less
// the engine's reserve.
const nvidiaLocal = 48<<10 - 256

// TestRadixPaths: complex, real and spectrogram plans at the single-pass
// lengths whose stage plans differ by radix (radix 32: one exchange at 64,
// 512 and 1024 points, two at 2048 and 4096 with last stages of 2 and 4;
// the default's 8192 = 32·32·8 with one component in local memory at a
// time, as on NVIDIA), each against the float64 reference, and the
// spectrogram against the CPU engine.
func TestRadixPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	type radixCase struct {
		radix, local int
		lens         []int // complex lengths (real transforms and spectrograms of twice as many points)
	}
	cases := []radixCase{{0, nvidiaLocal, []int{8192}}, {32, 0, []int{64, 2048, 4096}}}
	if testing.Short() {
		cases = []radixCase{{0, nvidiaLocal, []int{8192}}, {32, 0, []int{2048}}}
	}
	for _, c := range cases {
		e := radixEngine(t, c.radix, c.local)
		for _, m := range c.lens {
			g, ok := e.singleGeom(m)
			if !ok || (c.radix != 0 && g.radix != c.radix) || g.split != (c.local > 0) {
				t.Fatalf("radix %d, %d points: geometry %+v single-pass %v", c.radix, m, g, ok)
			}
			t.Run(fmt.Sprintf("radix=%d/len=%d", g.radix, m), func(t *testing.T) {
				checkComplexPlan(t, e, m, 3, rng)
				checkRealPlan(t, e, 2*m, 3, rng)
				spectrogramMatchesCPU(t, e, 2*m, rng)
			})
		}
	}
}

// TestHalvesPath: transforms of 16384 complex points in one work-group
// with half of one component in local memory at a time (HALVES), at radix
// 16 (1024 items) and 32 (512 items), with NVIDIA's local memory: complex
// and real (32768 points) plans against the float64 reference (forward,
// inverse and round trip), the spectrogram against the CPU engine.
func TestHalvesPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	for _, radix := range []int{16, 32} {
		e := radixEngine(t, radix, nvidiaLocal)
		e.halvesMax = 2 * maxSingle
		n := 2 * maxSingle
		g, ok := e.planGeom(n)
		if !ok || !g.halves || g.radix != radix || g.paired() {
			t.Skipf("radix %d, %d points: geometry %+v single-pass %v (device work-groups of %d items)", radix, n, g, ok, e.maxWG)
		}
		if _, ok := e.singleGeom(n); ok {
			t.Fatalf("%d points single-pass without HALVES", n)
		}
		t.Run(fmt.Sprintf("radix=%d/len=%d", radix, n), func(t *testing.T) {
			checkComplexPlan(t, e, n, 3, rng)
			checkRealPlan(t, e, 2*n, 3, rng)
			spectrogramMatchesCPU(t, e, 2*n, rng)
		})
	}
}

// TestRadixPersistent: the C2C, R2C and C2R kernels with PERSIST (each
// group loops over its sequences) on an engine that claims one compute
// unit, so that one or two groups do every sequence of the batch: the
// stage plans whose mirrors come from registers (PAIRED: 512 and 2048
// points, 8192 with one component in local memory as on NVIDIA), from
// local memory (64 and 1024 points, one exchange fewer at radix 32) and
// HALVES (16384), batches whose last group is partial, against the
// float64 reference; the spectrogram (which does not loop) still against
// the CPU engine.
func TestRadixPersistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	type persistCase struct{ len, groups int }
	cases := []persistCase{{64, 1}, {512, 2}, {1024, 2}, {2048, 1}, {8192, 2}, {16384, 1}}
	if testing.Short() {
		cases = []persistCase{{512, 2}, {1024, 1}, {8192, 2}}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("len=%d/groups=%d", c.len, c.groups), func(t *testing.T) {
			t.Setenv("PRISM_OPENCL_PERSIST", fmt.Sprint(c.groups))
			e := radixEngine(t, 0, nvidiaLocal)
			e.halvesMax = 2 * maxSingle
			e.info.ComputeUnits = 1
			g, ok := e.planGeom(c.len)
			if !ok {
				t.Skipf("%d points: geometry %+v not single-pass here", c.len, g)
			}
			batch := 2*c.groups*g.s + 1 // every group loops twice, the last iteration partial
			checkComplexPlan(t, e, c.len, batch, rng)
			checkRealPlan(t, e, 2*c.len, batch, rng)
			if c.len == 512 {
				spectrogramMatchesCPU(t, e, 2*c.len, rng)
			}
		})
	}
}

// TestRadixPersistRule pins which kernels loop over their sequences by
// default (PERSIST): the R2C kernel of 8192 complex points on GPUs only,
// and only where it keeps one component in local memory (not in halves).
func TestRadixPersistRule(t *testing.T) {
	gpu, cpu := &OpenCL{info: DeviceInfo{Type: "GPU"}}, &OpenCL{info: DeviceInfo{Type: "CPU"}}
	for _, c := range []struct {
		e    *OpenCL
		len  int
		name string
		want int
	}{
		{gpu, 8192, "fft_r2c", 1}, {gpu, 8192, "fft_c2c", 0}, {gpu, 8192, "fft_c2r", 0}, {gpu, 8192, "spectrogram", 0},
		{gpu, 4096, "fft_r2c", 0}, {gpu, 512, "fft_r2c", 0}, {gpu, 16384, "fft_r2c", 0}, {cpu, 8192, "fft_r2c", 0},
	} {
		if got := c.e.persistGroups(geom{len: c.len, radix: 32, s: 1}, c.name); got != c.want {
			t.Errorf("%s device, %s of %d points: %d groups per compute unit, want %d", c.e.info.Type, c.name, c.len, got, c.want)
		}
	}
	// in halves (r2cGeom's default on GPUs) the kernel does not loop
	if got := gpu.persistGroups(geom{len: 8192, radix: 32, s: 1, halves: true, halvesPaired: true}, "fft_r2c"); got != 0 {
		t.Errorf("GPU device, fft_r2c of 8192 points in halves: %d groups per compute unit, want 0", got)
	}
	three := 3
	gpu.tuning.Persist = &three // PRISM_OPENCL_PERSIST=3
	if got := gpu.persistGroups(geom{len: 512, radix: 32, s: 8}, "fft_c2c"); got != 3 {
		t.Errorf("PRISM_OPENCL_PERSIST=3: %d", got)
	}
	if got := gpu.persistGroups(geom{len: 512, radix: 32, s: 8}, "spectrogram"); got != 0 {
		t.Errorf("PRISM_OPENCL_PERSIST=3, spectrogram: %d", got)
	}
}

// TestRadixStagedStores: R2C kernels whose groups store one row through
// local memory (STAGE_ST in fft_batch.cl, a tuning variant, off by
// default) with it turned on wherever the tests run: 4096 real points in
// one round, 16384 in two (one component in local memory, NVIDIA's layout
// with PRISM_OPENCL_R2C_HALVES=0), and 16384 looping in one group per
// compute unit (PERSIST); batches of 5 rows, so rows start at every
// offset mod 32 bytes; against the float64 reference, forward and back.
// And 16384 in paired halves (r2cGeom's default on GPUs), where the
// kernel ignores STAGE_ST: its local memory holds less than half a row.
func TestRadixStagedStores(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	t.Setenv("PRISM_OPENCL_STAGE_ST", "1")
	t.Setenv("PRISM_OPENCL_R2C_HALVES", "0")
	t.Run("len=8192/halves", func(t *testing.T) {
		t.Setenv("PRISM_OPENCL_R2C_HALVES", "1")
		t.Setenv("PRISM_OPENCL_PERSIST", "0")
		e := radixEngine(t, 0, nvidiaLocal)
		g, _ := e.planGeom(8192)
		if fg := e.r2cGeom(g); !fg.halvesPaired {
			t.Fatalf("forward geometry %+v: not in paired halves", fg)
		}
		checkRealPlan(t, e, 2*8192, 5, rng)
	})
	for _, c := range []struct{ len, persist int }{{2048, 0}, {8192, 0}, {8192, 1}} {
		t.Run(fmt.Sprintf("len=%d/persist=%d", c.len, c.persist), func(t *testing.T) {
			t.Setenv("PRISM_OPENCL_PERSIST", fmt.Sprint(c.persist))
			e := radixEngine(t, 0, nvidiaLocal)
			e.info.ComputeUnits = 1
			g, ok := e.planGeom(c.len)
			if !ok || g.s != 1 || !g.paired() {
				t.Fatalf("%d points: geometry %+v single-pass %v: not one paired row per group", c.len, g, ok)
			}
			if d := e.storeDefines(g, "fft_r2c"); !slices.Contains(d, "STAGE_ST=1") {
				t.Fatalf("defines %v without STAGE_ST=1", d)
			}
			checkRealPlan(t, e, 2*c.len, 5, rng)
		})
	}
}

// TestRadixStoreRule pins how the single-pass kernels store: evict-first
// hints (STHINT) for R2C in halves, staged stores (STAGE_ST) nowhere by
// default, inline PTX allowed on NVIDIA's platform only; and the tuning
// variables' overrides.
func TestRadixStoreRule(t *testing.T) {
	nv := &OpenCL{info: DeviceInfo{Type: "GPU", Platform: "NVIDIA CUDA"}, local: nvidiaLocal, maxWG: 1024, groupThreads: 128, singleMax: maxSingle, halvesMax: 2 * maxSingle}
	other := &OpenCL{info: DeviceInfo{Type: "GPU", Platform: "AMD Accelerated Parallel Processing"}, local: 64<<10 - 256, maxWG: 1024, groupThreads: 128, singleMax: maxSingle, halvesMax: 2 * maxSingle}
	cpu := &OpenCL{info: DeviceInfo{Type: "CPU", Platform: "Portable Computing Language"}, local: 64<<10 - 256, maxWG: 4096, groupThreads: 128, singleMax: 4096}
	for _, c := range []struct {
		e    *OpenCL
		len  int
		name string
		want []string
	}{
		{nv, 512, "fft_r2c", []string{"NV_PTX=1", "STAGE_ST=0", "STHINT=0"}},
		{nv, 2048, "fft_r2c", []string{"NV_PTX=1", "STAGE_ST=0", "STHINT=0"}},
		{nv, 8192, "fft_r2c", []string{"NV_PTX=1", "STAGE_ST=0", "STHINT=0"}},
		{nv, 16384, "fft_r2c", []string{"NV_PTX=1", "STAGE_ST=0", "STHINT=1"}},
		{nv, 16384, "fft_c2c", []string{"NV_PTX=1", "STAGE_ST=0", "STHINT=0"}},
		{nv, 2048, "spectrogram", []string{"NV_PTX=1", "STAGE_ST=0", "STHINT=0"}},
		{other, 16384, "fft_r2c", []string{"STAGE_ST=0", "STHINT=1"}},
		{cpu, 2048, "fft_r2c", []string{"STAGE_ST=0", "STHINT=0"}},
	} {
		g, ok := c.e.planGeom(c.len)
		if !ok {
			t.Fatalf("%s: %d points not single-pass", c.e.info.Platform, c.len)
		}
		if got := c.e.storeDefines(g, c.name); !slices.Equal(got, c.want) {
			t.Errorf("%s, %s of %d points: %v, want %v", c.e.info.Platform, c.name, c.len, got, c.want)
		}
	}
	nv.tuning.StageStores, nv.tuning.StoreHint = SwitchOn, SwitchOff // PRISM_OPENCL_STAGE_ST=1, PRISM_OPENCL_STHINT=0
	g, _ := nv.planGeom(16384)
	if got, want := nv.storeDefines(g, "fft_r2c"), []string{"NV_PTX=1", "STAGE_ST=1", "STHINT=0"}; !slices.Equal(got, want) {
		t.Errorf("overridden: %v, want %v", got, want)
	}
}

// TestRadixHalvesPaired: the R2C kernel of 8192 complex points exchanging
// in halves with its last stage still paired (PRISM_OPENCL_R2C_HALVES=1,
// a tuning variant: HALVES_PAIRED in fft_common.cl), with NVIDIA's local
// memory, alone and looping in one and two groups per compute unit (the
// last iteration partial), and alone and looping in two with the register
// cap of the two-groups-per-SM measurement (NV_MAXNREG=128: on NVIDIA the
// spilling kernels that were timed; PoCL builds them as if absent), against
// the float64 reference forward and back (the inverse keeps the plan's
// own kernel).
func TestRadixHalvesPaired(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	t.Setenv("PRISM_OPENCL_R2C_HALVES", "1")
	for _, c := range []struct {
		persist int
		tune    string
	}{{0, ""}, {1, ""}, {2, ""}, {0, "NV_MAXNREG=128"}, {2, "NV_MAXNREG=128"}} {
		t.Run(fmt.Sprintf("persist=%d/tune=%s", c.persist, c.tune), func(t *testing.T) {
			t.Setenv("PRISM_OPENCL_PERSIST", fmt.Sprint(c.persist))
			e := radixEngine(t, 0, nvidiaLocal)
			e.info.ComputeUnits = 1
			if c.tune != "" {
				e.tune = append(e.tune, c.tune)
			}
			g, ok := e.planGeom(maxSingle)
			fg := e.r2cGeom(g)
			if !ok || !g.split || fg.split || !fg.halves || !fg.paired() {
				t.Fatalf("%d points: geometry %+v (forward %+v) single-pass %v: not in paired halves", maxSingle, g, fg, ok)
			}
			batch := 2*max(1, c.persist) + 1
			checkRealPlan(t, e, 2*maxSingle, batch, rng)
		})
	}
}

// TestRadixHalvesPairedRule pins where the R2C kernels exchange in halves
// with PAIRED and HALVES_PAIRED: those of 8192 complex points that keep one
// component in local memory (SPLIT, with NVIDIA's 48 KB) on GPUs by
// default, every such kernel with PRISM_OPENCL_R2C_HALVES=1 and none with
// 0; without the evict-first stores of R2C in halves (32768 real points),
// which it leaves as they are, as it does smaller transforms.
func TestRadixHalvesPairedRule(t *testing.T) {
	nv := &OpenCL{info: DeviceInfo{Type: "GPU", Platform: "NVIDIA CUDA"}, local: nvidiaLocal, maxWG: 1024, groupThreads: 128, singleMax: maxSingle, halvesMax: 2 * maxSingle}
	cpu := &OpenCL{info: DeviceInfo{Type: "CPU", Platform: "Portable Computing Language"}, local: nvidiaLocal, maxWG: 1024, groupThreads: 128, singleMax: maxSingle, halvesMax: 2 * maxSingle}
	for _, c := range []struct {
		e                       *OpenCL
		env                     string
		len                     int
		halves, paired, hpaired bool
		sthint                  string
	}{
		{nv, "", 8192, true, true, true, "STHINT=0"},
		{cpu, "", 8192, false, true, false, "STHINT=0"},
		{cpu, "1", 8192, true, true, true, "STHINT=0"},
		{nv, "1", 8192, true, true, true, "STHINT=0"},
		{nv, "1", 2048, false, true, false, "STHINT=0"},
		{nv, "1", 16384, true, false, false, "STHINT=1"},
		{nv, "0", 8192, false, true, false, "STHINT=0"},
	} {
		c.e.tuning.R2CHalves = map[string]Switch{"": SwitchAuto, "0": SwitchOff, "1": SwitchOn}[c.env] // PRISM_OPENCL_R2C_HALVES
		g, ok := c.e.planGeom(c.len)
		if !ok {
			t.Fatalf("%d points not single-pass", c.len)
		}
		fg := c.e.r2cGeom(g)
		d := strings.Join(append(fg.defines(), append(fg.pairedDefine(), c.e.storeDefines(fg, "fft_r2c")...)...), " ")
		want := fmt.Sprintf("HALVES=%s", b01(c.halves))
		if fg.halves != c.halves || fg.paired() != c.paired || fg.halvesPaired != c.hpaired ||
			!strings.Contains(d, want) || strings.Contains(d, "PAIRED=1") != c.paired ||
			strings.Contains(d, "HALVES_PAIRED=1") != c.hpaired || !strings.Contains(d, c.sthint) {
			t.Errorf("%s, R2C_HALVES=%q, %d points: %+v, defines %q; want halves %v paired %v halvesPaired %v %s",
				c.e.info.Type, c.env, c.len, fg, d, c.halves, c.paired, c.hpaired, c.sthint)
		}
	}
}

// TestExchangeTwoArrays: the single-pass kernels with their exchanges in
// two float arrays (XCH_F2=0 through PRISM_OPENCL_TUNE, the tuning aid
// that compares them with the default float2 exchanges) still compute the
// same transforms and spectrograms: complex and real plans against the
// float64 reference, the spectrogram against the CPU engine.
func TestExchangeTwoArrays(t *testing.T) {
	g := requireGPU(t)
	t.Setenv("PRISM_OPENCL_TUNE", "XCH_F2=0")
	e, err := NewOpenCL(OpenCLOptions{Device: fmt.Sprint(g.info.Index)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !slices.Contains(e.tune, "XCH_F2=0") {
		t.Fatalf("tune %v without XCH_F2=0", e.tune)
	}
	rng := rand.New(rand.NewPCG(35, 1))
	for _, n := range []int{256, 4096} {
		checkComplexPlan(t, e, n, 3, rng)
		checkRealPlan(t, e, n, 3, rng)
		spectrogramMatchesCPU(t, e, n, rng)
	}
}
