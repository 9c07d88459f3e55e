//go:build clfft && cgo

package clfftcmp

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// TestCompareClFFT measures Prism's R2C kernels (gpufft.Bench, device-
// resident) and clFFT's on the same OpenCL device in one run, and logs the
// ratio:
//
//	go test -tags clfft -run CompareClFFT -v ./gpufft/internal/clfftcmp
//
// PRISM_CLFFT_SIZES (a comma-separated list) and PRISM_CLFFT_SAMPLES (real
// samples per call) replace the sizes and the 2^22 samples, e.g. 2^26 on a
// large GPU as the issue tables use.
func TestCompareClFFT(t *testing.T) {
	sizes, samples := compareSizes(t)
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{})
	if err != nil {
		if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
			t.Fatalf("OpenCL required: %v", err)
		}
		t.Skip(err)
	}
	defer g.Close()
	for _, n := range sizes {
		batch := samples / n
		ref, err := clfftR2C(g.Info().Name, n, batch, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := gpufft.Bench(g, []gpufft.BenchCase{{Plan: "r2c", Size: n, Samples: n * batch}}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ours := time.Duration(rows[0].MsPerCall * float64(time.Millisecond))
		t.Logf("%s r2c n=%d batch=%d: prism %v, clFFT %v per call: prism %.2f× clFFT's speed", g.Info().Name, n, batch, ours, ref, float64(ref)/float64(ours))
	}
}

// compareSizes reads PRISM_CLFFT_SIZES and PRISM_CLFFT_SAMPLES.
func compareSizes(t *testing.T) (sizes []int, samples int) {
	sizes, samples = []int{256, 1024, 4096, 16384}, 1<<22
	if s := os.Getenv("PRISM_CLFFT_SIZES"); s != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 || n&(n-1) != 0 {
				t.Fatalf("PRISM_CLFFT_SIZES: %q is not a power of two", f)
			}
			sizes = append(sizes, n)
		}
	}
	if s := os.Getenv("PRISM_CLFFT_SAMPLES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("PRISM_CLFFT_SAMPLES: %q is not a positive count", s)
		}
		samples = n
	}
	for _, n := range sizes {
		if samples < n {
			t.Fatalf("PRISM_CLFFT_SAMPLES %d is less than one transform of %d", samples, n)
		}
	}
	return sizes, samples
}
