//go:build clfft && cgo

package clfftcmp

import (
	"os"
	"testing"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// TestCompareClFFT measures Prism's R2C kernels (gpufft.Bench, device-
// resident) and clFFT's on the same OpenCL device in one run, and logs the
// ratio:
//
//	go test -tags clfft -run CompareClFFT -v ./gpufft/internal/clfftcmp
func TestCompareClFFT(t *testing.T) {
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{})
	if err != nil {
		if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
			t.Fatalf("OpenCL required: %v", err)
		}
		t.Skip(err)
	}
	defer g.Close()
	for _, n := range []int{256, 1024, 4096, 16384} {
		batch := (1 << 22) / n
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
