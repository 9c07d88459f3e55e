package gpufft

import (
	"fmt"
	"math"
	"os"
	"testing"
)

// Engines shared by the tests: building kernels dominates their run time,
// and each engine caches its programs.
var (
	testCPU    *CPU
	testGPU    *OpenCL
	testGPUErr error
)

func TestMain(m *testing.M) {
	if os.Getenv(probeChildEnv) == "1" { // the child of TestProbe
		if err := WriteProbe(os.Stdout, OpenCLOptions{}); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	if os.Getenv(buildChildEnv) == "1" { // the child of TestBuildQuiet
		if err := buildOnce(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(exitChildEnv) == "1" { // the child of TestCloseForExit
		if err := exitChild(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(startupReportEnv) == "floor" {
		if err := floorReport(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(startupReportEnv) == "transfer" {
		if err := transferReport(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(startupReportEnv) == "1" {
		if err := startupReport(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	testCPU = NewCPU(0)
	testGPU, testGPUErr = NewOpenCL(OpenCLOptions{})
	code := m.Run()
	testCPU.Close()
	if testGPU != nil {
		testGPU.Close()
	}
	os.Exit(code)
}

// requireGPU returns the OpenCL engine, or skips the test when OpenCL is
// absent, except under PRISM_REQUIRE_OPENCL=1 (CI), where it fails.
func requireGPU(t testing.TB) *OpenCL {
	t.Helper()
	if testGPU == nil {
		if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
			t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", testGPUErr)
		}
		t.Skipf("no OpenCL: %v", testGPUErr)
	}
	return testGPU
}

// engines returns the CPU engine and, when available, the OpenCL one (see
// requireGPU for when its absence fails the test).
func engines(t *testing.T) []Engine {
	t.Helper()
	es := []Engine{testCPU}
	if testGPU == nil && os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
		t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", testGPUErr)
	}
	if testGPU != nil {
		es = append(es, testGPU)
	} else {
		t.Logf("no OpenCL (%v): CPU engine only", testGPUErr)
	}
	return es
}

// sizes is every power of two from 32 to 65536 (to 8192 with -short).
func sizes() []int {
	top := 1 << 16
	if testing.Short() {
		top = 1 << 13
	}
	var s []int
	for n := MinSize; n <= top; n *= 2 {
		s = append(s, n)
	}
	return s
}

// errBound is the accuracy target for the mean relative L2 error of
// a float32 FFT: 2·2⁻²⁴·√log2(N) (unit roundoff times the √log N growth of
// an FFT's error with accurate twiddles).
func errBound(n int) float64 {
	return 2 * math.Pow(2, -24) * math.Sqrt(math.Log2(float64(n)))
}

// worstBound is the bound on any single transform's relative error.
const worstBound = 1e-6

func name(e Engine, n, batch int) string {
	return fmt.Sprintf("%s/size=%d/batch=%d", e.Name(), n, batch)
}
