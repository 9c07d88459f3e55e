package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/bench"
)

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("bench", "", stderr)
	asJSON := fs.Bool("json", false, "print JSON rows")
	device := fs.String("device", "", "OpenCL device: index or name substring (default $"+gpufft.EnvDevice+", else the first GPU)")
	engines := fs.String("engine", "all", "engines to measure: all, gpu, cpu")
	gpuSamples := fs.Int("gpu-samples", 1<<26, "samples per call on the GPU")
	cpuSamples := fs.Int("cpu-samples", 1<<24, "samples per call on the CPU")
	minTime := fs.Duration("time", time.Second, "minimum time per row")
	gonum := fs.Bool("gonum", true, "also measure gonum dsp/fourier used the same way as the CPU engine")
	sizes := fs.String("sizes", "", "rows instead of the default ones, comma-separated: N (r2c), r2c:N, c2c:N, spectrogram:N:HOP or transfer:N:HOP:CHANNELS (the live transfer path: 1 reference + CHANNELS, FIFO of 64, delay tracked every batch)")
	progress := fs.Bool("progress", false, "say on stderr which row is being measured")
	e2e := fs.Bool("e2e", false, "time whole `prism analyze` runs of a generated file instead, GPU against CPU (see --e2e-seconds, --e2e-batch, --e2e-repeat)")
	e2eSeconds := fs.Float64("e2e-seconds", 600, "--e2e: the file's length in seconds")
	e2eBatch := fs.Int("e2e-batch", 20, "--e2e: files in the batch case")
	e2eRepeat := fs.Int("e2e-repeat", 3, "--e2e: runs per case (the median is reported)")
	if code, ok := kit.Parse(fs, args, stderr); !ok {
		return code
	}
	if *engines != "all" && *engines != "gpu" && *engines != "cpu" {
		fmt.Fprintf(stderr, "prism: --engine %q: want all, gpu or cpu\n", *engines)
		return ExitUsage
	}
	if *e2e {
		if !(*e2eSeconds >= 1 && *e2eSeconds <= 7200) || *e2eBatch < 1 || *e2eBatch > 1000 || *e2eRepeat < 1 {
			fmt.Fprintf(stderr, "prism: bench: --e2e-seconds 1…7200, --e2e-batch 1…1000, --e2e-repeat ≥ 1\n")
			return ExitUsage
		}
		o := bench.E2EOptions{Seconds: *e2eSeconds, Batch: *e2eBatch, Repeat: *e2eRepeat, Device: *device, JSON: *asJSON,
			Engines: []string{"gpu", "cpu", "auto"}}
		if *engines != "all" {
			o.Engines = []string{*engines}
		}
		return e2eDone(bench.RunE2E(o, stdout, stderr), stderr)
	}
	var custom []gpufft.BenchCase
	var transfer []bench.TransferCase
	if *sizes != "" {
		custom = []gpufft.BenchCase{}
		for _, s := range strings.Split(*sizes, ",") {
			if bench.IsTransferCase(s) {
				c, err := bench.ParseTransferCase(s)
				if err != nil {
					fmt.Fprintf(stderr, "prism: bench: --sizes: %v\n", err)
					return ExitUsage
				}
				transfer = append(transfer, c)
				continue
			}
			c, err := bench.ParseCase(s)
			if err != nil {
				fmt.Fprintf(stderr, "prism: bench: --sizes: %v\n", err)
				return ExitUsage
			}
			custom = append(custom, c)
		}
	}
	b := bench.Engines{Custom: custom, Transfer: transfer, MinTime: *minTime, Stderr: stderr, Progress: *progress}
	if *engines != "cpu" && !b.GPU(*device, *gpuSamples) && *engines == "gpu" {
		return ExitFailure
	}
	if *engines != "gpu" {
		b.CPU(*cpuSamples, *gonum)
	}
	rows, failed := b.Rows, b.Failed
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rows)
	} else {
		bench.PrintRows(stdout, rows)
	}
	if failed {
		return ExitFailure
	}
	return ExitOK
}

// e2eDone is the exit code of bench --e2e's end (runs that failed were
// reported already).
func e2eDone(err error, stderr io.Writer) int {
	switch {
	case errors.Is(err, bench.ErrRunsFailed):
		return ExitFailure
	case err != nil:
		fmt.Fprintf(stderr, "prism: bench: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}
