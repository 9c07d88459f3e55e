package gpufft

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/prismaudio/prism/window"
)

// BenchCase is one row of `prism bench`: a plan kind and size, with the
// number of samples transformed per call.
type BenchCase struct {
	Plan    string // "r2c", "c2c" or "spectrogram"
	Size    int
	Hop     int // spectrogram only
	Samples int // real samples (r2c, spectrogram) or complex points (c2c) per call
}

// BenchResult is a measured row.
type BenchResult struct {
	Engine      string  `json:"engine"`
	Device      string  `json:"device"`
	Plan        string  `json:"plan"`
	Size        int     `json:"n"`
	Hop         int     `json:"hop,omitempty"`
	Batch       int     `json:"batch"` // transforms (frames) per call
	Samples     int     `json:"samples"`
	Calls       int     `json:"calls"`
	MsPerCall   float64 `json:"ms_per_call"`
	GSamplesSec float64 `json:"gsamples_per_s"`
	GBs         float64 `json:"gb_per_s"`        // minimal traffic: input read once, output written once
	CopyGBs     float64 `json:"copy_gb_per_s"`   // plain buffer copy on the same device, bytes read + written
	PctCopy     float64 `json:"pct_of_copy"`     // GBs / CopyGBs
	Resident    bool    `json:"device_resident"` // data stays on the device (no host transfers timed)
	Note        string  `json:"note,omitempty"`
}

// DefaultBenchCases are the rows the engine issue's targets are stated on
// (R2C and C2C from 1024 to 2^20 points, the spectrogram at 4096/1024 and
// 1024/256), with samples per call scaled by the engine (2^26 on a GPU).
func DefaultBenchCases(samples int) []BenchCase {
	cs := []BenchCase{}
	for _, plan := range []string{"r2c", "c2c"} {
		for _, n := range []int{1024, 4096, 16384, 65536, 1 << 18, 1 << 20} {
			c := BenchCase{Plan: plan, Size: n, Samples: samples}
			if plan == "c2c" {
				c.Samples /= 2 // complex points: the same bytes per call as R2C's input
			}
			cs = append(cs, c)
		}
	}
	return append(cs, BenchCase{Plan: "spectrogram", Size: 4096, Hop: 1024, Samples: samples},
		BenchCase{Plan: "spectrogram", Size: 1024, Hop: 256, Samples: samples})
}

// Bench measures cases on e for at least minTime each. GPU rows run on
// device-resident data (the kernels alone, as the targets are stated);
// CPU rows run on host memory. Each row carries the same engine's plain
// copy bandwidth, measured once at the start.
func Bench(e Engine, cases []BenchCase, minTime time.Duration) ([]BenchResult, error) {
	copyGBs, err := copyBandwidth(e, minTime)
	if err != nil {
		return nil, err
	}
	var out []BenchResult
	for _, c := range cases {
		r, err := benchOne(e, c, minTime)
		if err != nil {
			return out, fmt.Errorf("gpufft: bench %s n=%d on %s: %w", c.Plan, c.Size, e.Name(), err)
		}
		r.CopyGBs = copyGBs
		if copyGBs > 0 {
			r.PctCopy = 100 * r.GBs / copyGBs
		}
		out = append(out, r)
	}
	return out, nil
}

// TimeLoop calls f until minTime has passed (at least 3 times, after one
// warm-up call) and returns the mean seconds per call and the call count.
func TimeLoop(minTime time.Duration, f func() error) (float64, int, error) {
	if err := f(); err != nil {
		return 0, 0, err
	}
	calls := 0
	start := time.Now()
	for calls < 3 || time.Since(start) < minTime {
		if err := f(); err != nil {
			return 0, 0, err
		}
		calls++
	}
	return time.Since(start).Seconds() / float64(calls), calls, nil
}

func benchOne(e Engine, c BenchCase, minTime time.Duration) (BenchResult, error) {
	r := BenchResult{Engine: e.Name(), Device: e.Device(), Plan: c.Plan, Size: c.Size, Hop: c.Hop}
	rng := rand.New(rand.NewPCG(1, 2))
	var call benchCall
	var err error
	switch c.Plan {
	case "r2c":
		call, err = benchReal(e, c, rng, &r)
	case "c2c":
		call, err = benchComplex(e, c, rng, &r)
	case "spectrogram":
		call, err = benchSpectrogram(e, c, rng, &r)
	default:
		return r, fmt.Errorf("%w: unknown bench plan %q", ErrInvalid, c.Plan)
	}
	if err != nil {
		return r, err
	}
	defer call.plan.Close()
	f := call.f
	if r.Resident {
		g := e.(*OpenCL)
		f = func() error {
			if err := call.f(); err != nil {
				return err
			}
			return g.lib.Finish(&g.args, g.queue)
		}
	}
	sec, calls, err := TimeLoop(minTime, f)
	if err != nil {
		return r, err
	}
	r.Calls = calls
	r.MsPerCall = sec * 1e3
	r.GSamplesSec = float64(r.Samples) / sec / 1e9
	r.GBs = float64(call.inBytes+call.outBytes) / sec / 1e9
	return r, nil
}

// benchCall is a row's call: f runs it on plan, moving inBytes and
// outBytes at the least.
type benchCall struct {
	plan              interface{ Close() error }
	f                 func() error
	inBytes, outBytes int
}

// residentOr is call with f replaced by resident (the data already on the
// device) when warm, one run of the call, succeeds; r says so.
func residentOr(call benchCall, r *BenchResult, warm func() error, resident func() error) (benchCall, error) {
	if err := warm(); err != nil {
		call.plan.Close()
		return call, err
	}
	r.Resident = true
	call.f = resident
	return call, nil
}

func benchReal(e Engine, c BenchCase, rng *rand.Rand, r *BenchResult) (benchCall, error) {
	batch := max(1, c.Samples/c.Size)
	r.Batch, r.Samples = batch, batch*c.Size
	p, err := e.NewReal(c.Size, batch)
	if err != nil {
		return benchCall{}, err
	}
	src := randReal(rng, batch*c.Size)
	dst := make([]complex64, batch*(c.Size/2+1))
	call := benchCall{p, func() error { return p.Forward(dst, src) }, 4 * len(src), 8 * len(dst)}
	if gp, ok := p.(*gpuReal); ok {
		return residentOr(call, r, call.f, func() error { return gp.resident(gp.fwd, batch) })
	}
	return call, nil
}

func benchComplex(e Engine, c BenchCase, rng *rand.Rand, r *BenchResult) (benchCall, error) {
	batch := max(1, c.Samples/c.Size)
	r.Batch, r.Samples = batch, batch*c.Size
	p, err := e.NewComplex(c.Size, batch)
	if err != nil {
		return benchCall{}, err
	}
	src := randComplexBench(rng, batch*c.Size)
	dst := make([]complex64, len(src))
	call := benchCall{p, func() error { return p.Forward(dst, src) }, 8 * len(src), 8 * len(dst)}
	if gp, ok := p.(*gpuComplex); ok {
		return residentOr(call, r, call.f, func() error { return gp.resident(gp.fwd, batch) })
	}
	return call, nil
}

func benchSpectrogram(e Engine, c BenchCase, rng *rand.Rand, r *BenchResult) (benchCall, error) {
	cfg := SpectrogramConfig{Size: c.Size, Hop: c.Hop, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: c.Samples, Output: DBFS}
	p, err := e.NewSpectrogram(cfg)
	if err != nil {
		return benchCall{}, err
	}
	src := randReal(rng, c.Samples)
	dst := make([]float32, cfg.DstLen(c.Samples))
	frames := cfg.Frames(c.Samples)
	r.Batch, r.Samples = frames, c.Samples
	call := benchCall{p, func() error { _, err := p.Execute(dst, src); return err }, 4 * len(src), 4 * len(dst)}
	if gp, ok := p.(*gpuSpectrogram); ok {
		return residentOr(call, r, call.f, func() error { return gp.resident(c.Samples, frames) })
	}
	return call, nil
}

func randComplexBench(rng *rand.Rand, n int) []complex64 {
	x := make([]complex64, n)
	for i := range x {
		x[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
	}
	return x
}

func randReal(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// copyBandwidth measures a plain copy on e's device in GB/s (bytes read +
// written): clEnqueueCopyBuffer of 256 MiB on OpenCL; copy() of 64 MiB per
// worker across the workers on the CPU.
func copyBandwidth(e Engine, minTime time.Duration) (float64, error) {
	switch g := e.(type) {
	case *OpenCL:
		const size = 256 << 20
		b := gpuBase{e: g}
		defer b.release()
		src, err := b.buffer(size)
		if err != nil {
			return 0, err
		}
		dst, err := b.buffer(size)
		if err != nil {
			return 0, err
		}
		if err := g.lib.Zero(g.queue, src, 0, size); err != nil {
			return 0, errGPU("fill", err)
		}
		sec, _, err := TimeLoop(minTime, func() error {
			if err := g.lib.Copy(g.queue, src, dst, 0, 0, size, nil); err != nil {
				return err
			}
			return g.lib.Finish(&g.args, g.queue)
		})
		if err != nil {
			return 0, errGPU("copy", err)
		}
		return 2 * size / sec / 1e9, nil
	case *CPU:
		const size = 64 << 20
		w := g.workers
		srcs, dsts := make([][]byte, w), make([][]byte, w)
		for i := range w {
			srcs[i], dsts[i] = make([]byte, size), make([]byte, size)
			for j := range srcs[i] { // touch every page
				srcs[i][j] = byte(j)
			}
			copy(dsts[i], srcs[i])
		}
		sec, _, err := TimeLoop(minTime, func() error {
			var wg sync.WaitGroup
			for i := range w {
				wg.Go(func() { copy(dsts[i], srcs[i]) })
			}
			wg.Wait()
			return nil
		})
		return 2 * float64(w*size) / sec / 1e9, err
	}
	return 0, nil
}
