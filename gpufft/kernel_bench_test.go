package gpufft

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/gpufft/internal/cl"
)

// BenchmarkKernelEvents times the device-resident R2C and C2C launches
// that `prism bench` times, by the device's own timestamps (a profiling
// queue's events) instead of the host's clock around enqueue and wait:
// dev-ms is the median of the launches' summed event times, so the two
// side by side say what the host's round trip adds; with several launches
// (the four-step passes) kI-ms is launch I's own median. Sizes from
// $PRISM_KBENCH_SIZES (comma-separated real lengths), samples per call
// from $PRISM_KBENCH_SAMPLES (2^22 by default; `prism bench` uses 2^26).
//
//	go test -run - -bench KernelEvents -benchtime 50x ./gpufft
func BenchmarkKernelEvents(b *testing.B) {
	g := requireGPU(b)
	e, err := NewOpenCL(OpenCLOptions{Device: strconv.Itoa(g.info.Index), Profiling: true})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	samples := 1 << 22
	if v, err := strconv.Atoi(os.Getenv("PRISM_KBENCH_SAMPLES")); err == nil && v > 0 {
		samples = v
	}
	sizes := []int{1024, 4096, 16384}
	if v := os.Getenv("PRISM_KBENCH_SIZES"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("PRISM_KBENCH_SIZES: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, plan := range []string{"r2c", "c2c"} {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/size=%d", plan, n), func(b *testing.B) {
				batch := max(1, samples/n)
				if plan == "c2c" {
					batch = max(1, samples/2/n) // complex points: the bytes of R2C's input, as `prism bench`
				}
				ls := residentLaunches(b, e, plan, n, batch, rng)
				evs := make([]cl.Event, len(ls))
				for i := range ls {
					ls[i].ev = &evs[i]
				}
				ms := make([][]float64, len(ls)+1) // the sum, then each launch
				for b.Loop() {
					var ns int64
					for i := range ls {
						if err := ls[i].enqueue(e, batch); err != nil {
							b.Fatal(err)
						}
					}
					for i := range ls {
						t, err := e.lib.EventNanos(evs[i])
						if err != nil {
							b.Fatal(err)
						}
						ns += t
						ms[i+1] = append(ms[i+1], float64(t)/1e6)
					}
					ms[0] = append(ms[0], float64(ns)/1e6)
				}
				for i, m := range ms {
					slices.Sort(m)
					switch {
					case i == 0:
						b.ReportMetric(m[len(m)/2], "dev-ms")
					case len(ls) > 1:
						b.ReportMetric(m[len(m)/2], fmt.Sprintf("k%d-ms", i))
					}
				}
			})
		}
	}
}

// residentLaunches makes a forward plan of n points (plan "r2c" or "c2c")
// for batch transforms, runs it once on random data, and returns its
// launches, which then run on that data in place.
func residentLaunches(b *testing.B, e *OpenCL, plan string, n, batch int, rng *rand.Rand) []launch {
	b.Helper()
	if plan == "r2c" {
		p, err := e.NewReal(n, batch)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		if err := p.Forward(make([]complex64, batch*(n/2+1)), randReal(rng, batch*n)); err != nil {
			b.Fatal(err)
		}
		return p.(*gpuReal).fwd
	}
	p, err := e.NewComplex(n, batch)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	src := randComplex(rng, batch*n)
	if err := p.Forward(make([]complex64, len(src)), src); err != nil {
		b.Fatal(err)
	}
	return p.(*gpuComplex).fwd
}
