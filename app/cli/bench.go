package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/bench"
)

// parseBenchCase reads one --sizes entry: N (an r2c row), r2c:N, c2c:N or
// spectrogram:N:HOP (Hann window, dBFS out, as the default row).
func parseBenchCase(s string) (gpufft.BenchCase, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) == 1 {
		parts = []string{"r2c", parts[0]}
	}
	var c gpufft.BenchCase
	c.Plan = parts[0]
	want := 2
	if c.Plan == "spectrogram" {
		want = 3
	} else if c.Plan != "r2c" && c.Plan != "c2c" {
		return c, fmt.Errorf("%q: plan %q: want r2c, c2c or spectrogram", s, c.Plan)
	}
	if len(parts) != want {
		return c, fmt.Errorf("%q: want N, r2c:N, c2c:N or spectrogram:N:HOP", s)
	}
	var err error
	if c.Size, err = strconv.Atoi(parts[1]); err != nil || c.Size < 2 {
		return c, fmt.Errorf("%q: size %q is not a transform size", s, parts[1])
	}
	if want == 3 {
		if c.Hop, err = strconv.Atoi(parts[2]); err != nil || c.Hop < 1 || c.Hop > c.Size {
			return c, fmt.Errorf("%q: hop %q: want 1…%d", s, parts[2], c.Size)
		}
	}
	return c, nil
}

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", "", stderr)
	asJSON := fs.Bool("json", false, "print JSON rows")
	device := fs.String("device", "", "OpenCL device: index or name substring (default $"+gpufft.EnvDevice+", else the first GPU)")
	engines := fs.String("engine", "all", "engines to measure: all, gpu, cpu")
	gpuSamples := fs.Int("gpu-samples", 1<<26, "samples per call on the GPU")
	cpuSamples := fs.Int("cpu-samples", 1<<24, "samples per call on the CPU")
	minTime := fs.Duration("time", time.Second, "minimum time per row")
	gonum := fs.Bool("gonum", true, "also measure gonum dsp/fourier used the same way as the CPU engine")
	sizes := fs.String("sizes", "", "rows instead of the default ones, comma-separated: N (r2c), r2c:N, c2c:N or spectrogram:N:HOP")
	progress := fs.Bool("progress", false, "say on stderr which row is being measured")
	e2e := fs.Bool("e2e", false, "time whole `prism analyze` runs of a generated file instead, GPU against CPU (see --e2e-seconds, --e2e-batch, --e2e-repeat)")
	e2eSeconds := fs.Float64("e2e-seconds", 600, "--e2e: the file's length in seconds")
	e2eBatch := fs.Int("e2e-batch", 20, "--e2e: files in the batch case")
	e2eRepeat := fs.Int("e2e-repeat", 3, "--e2e: runs per case (the median is reported)")
	if code, ok := parse(fs, args, stderr); !ok {
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
		o := e2eOptions{seconds: *e2eSeconds, batch: *e2eBatch, repeat: *e2eRepeat, device: *device, json: *asJSON,
			engines: []string{"gpu", "cpu"}}
		if *engines != "all" {
			o.engines = []string{*engines}
		}
		return runE2E(o, stdout, stderr)
	}
	var custom []gpufft.BenchCase
	if *sizes != "" {
		for _, s := range strings.Split(*sizes, ",") {
			c, err := parseBenchCase(s)
			if err != nil {
				fmt.Fprintf(stderr, "prism: bench: --sizes: %v\n", err)
				return ExitUsage
			}
			custom = append(custom, c)
		}
	}
	b := benchRun{custom: custom, minTime: *minTime, stderr: stderr, progress: *progress}
	if *engines != "cpu" && !b.gpu(*device, *gpuSamples) && *engines == "gpu" {
		return ExitFailure
	}
	if *engines != "gpu" {
		b.cpu(*cpuSamples, *gonum)
	}
	rows, failed := b.rows, b.failed
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rows)
	} else {
		printBench(stdout, rows)
	}
	if failed {
		return ExitFailure
	}
	return ExitOK
}

// benchRun measures the engines on the same cases and collects the rows.
type benchRun struct {
	custom   []gpufft.BenchCase // nil: the default rows
	minTime  time.Duration
	stderr   io.Writer
	progress bool // a line on stderr before each row
	rows     []gpufft.BenchResult
	failed   bool
}

// bench measures cases one row at a time with f, saying which first when
// progress is on.
func (b *benchRun) bench(engine string, cases []gpufft.BenchCase, f func([]gpufft.BenchCase) ([]gpufft.BenchResult, error)) {
	for i, c := range cases {
		if b.progress {
			fmt.Fprintf(b.stderr, "prism: bench: %s %d/%d: %s N=%d…\n", engine, i+1, len(cases), c.Plan, c.Size)
		}
		b.add(f([]gpufft.BenchCase{c}))
	}
}

// cases are the rows for samples per call.
func (b *benchRun) cases(samples int) []gpufft.BenchCase {
	if b.custom == nil {
		return gpufft.DefaultBenchCases(samples)
	}
	cs := slices.Clone(b.custom)
	for i := range cs {
		cs[i].Samples = samples
		if cs[i].Plan == "c2c" {
			cs[i].Samples /= 2 // complex points, as the default row
		}
	}
	return cs
}

func (b *benchRun) add(r []gpufft.BenchResult, err error) {
	b.rows = append(b.rows, r...)
	if err != nil {
		fmt.Fprintf(b.stderr, "prism: bench: %v\n", err)
		b.failed = true
	}
}

// gpu measures the OpenCL engine on device; false if it does not open.
func (b *benchRun) gpu(device string, samples int) bool {
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: device})
	if err != nil {
		fmt.Fprintf(b.stderr, "prism: bench: %v\n", err)
		return false
	}
	defer g.Close()
	b.bench("GPU", b.cases(samples), func(cs []gpufft.BenchCase) ([]gpufft.BenchResult, error) {
		return gpufft.Bench(g, cs, b.minTime)
	})
	return true
}

// cpu measures the CPU engine and, with gonum, gonum used the same way.
func (b *benchRun) cpu(samples int, gonum bool) {
	c := gpufft.NewCPU(0)
	defer c.Close()
	b.bench("CPU", b.cases(samples), func(cs []gpufft.BenchCase) ([]gpufft.BenchResult, error) {
		return gpufft.Bench(c, cs, b.minTime)
	})
	if gonum {
		b.bench("gonum", b.cases(samples), func(cs []gpufft.BenchCase) ([]gpufft.BenchResult, error) {
			return bench.Gonum(c.Workers(), cs, b.minTime)
		})
	}
}

func printBench(w io.Writer, rows []gpufft.BenchResult) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tplan\tN\thop\tbatch\tms/call\tGsamples/s\tGB/s\tcopy GB/s\t% copy\tdevice\t")
	for _, r := range rows {
		hop := "-"
		if r.Hop > 0 {
			hop = fmt.Sprint(r.Hop)
		}
		pct := "-"
		if r.PctCopy > 0 {
			pct = fmt.Sprintf("%.0f%%", r.PctCopy)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%.3f\t%.3f\t%.1f\t%.1f\t%s\t%s\t\n", r.Engine, r.Plan, r.Size, hop, r.Batch,
			r.MsPerCall, r.GSamplesSec, r.GBs, r.CopyGBs, pct, r.Device)
	}
	tw.Flush()
	// Speed-ups measured in this run: GPU over CPU, CPU over gonum.
	byKey := map[string]gpufft.BenchResult{}
	for _, r := range rows {
		byKey[fmt.Sprintf("%s/%s/%d", r.Engine, r.Plan, r.Size)] = r
	}
	for _, r := range rows {
		if r.Engine != "cpu" {
			continue
		}
		k := fmt.Sprintf("/%s/%d", r.Plan, r.Size)
		if g, ok := byKey["opencl"+k]; ok {
			fmt.Fprintf(w, "speed-up %s N=%d: GPU (device-resident) %.1f× CPU in samples/s\n", r.Plan, r.Size, g.GSamplesSec/r.GSamplesSec)
		}
		if g, ok := byKey["gonum"+k]; ok {
			fmt.Fprintf(w, "speed-up %s N=%d: CPU engine %.2f× gonum in samples/s\n", r.Plan, r.Size, r.GSamplesSec/g.GSamplesSec)
		}
	}
}
