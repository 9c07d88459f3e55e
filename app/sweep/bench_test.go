//go:build unix

package sweep

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
)

// BenchmarkAnalyze: a recording of a sweep (a loopback: the sweep itself)
// deconvolved to all its results — the impulse responses, the summary,
// the distortion and the decay — on the CPU engine and, with
// PRISM_BENCH_GPU=1 on a machine with OpenCL, the GPU one.
// Target (issue 28): ≤ 1 s for 10 s at 48 kHz and 30 s at 192 kHz.
func BenchmarkAnalyze(b *testing.B) {
	for _, c := range []struct {
		rate    int
		seconds float64
	}{{48000, 10}, {192000, 30}} {
		s := NewSpec(20, 20000, c.seconds, c.rate)
		rec := s.Signal()
		for _, name := range benchEngines() {
			b.Run(fmt.Sprintf("%s/rate=%d/seconds=%g", name, c.rate, c.seconds), func(b *testing.B) {
				e, _, err := engine.Open(name, "")
				if err != nil {
					b.Skip(err)
				}
				defer e.Preferred.Close()
				if e.HasGPU() {
					defer e.CPU.Close()
				}
				b.SetBytes(int64(4 * len(rec)))
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					if _, _, err := Analyze(context.Background(), e, s, rec, nil, Options{Distortion: true, CSD: true}); err != nil {
						b.Fatal(err)
					}
				}
				// the process's CPU time per call: on a shared machine the
				// wall-clock time says more about the neighbours
				b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// benchEngines is the CPU engine, and the GPU one under PRISM_BENCH_GPU=1.
func benchEngines() []string {
	if os.Getenv("PRISM_BENCH_GPU") == "1" {
		return []string{engine.CPU, engine.GPU}
	}
	return []string{engine.CPU}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
