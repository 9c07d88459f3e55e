package bench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// ParseCase reads one --sizes entry: N (an r2c row), r2c:N, c2c:N or
// spectrogram:N:HOP (Hann window, dBFS out, as the default row).
func ParseCase(s string) (gpufft.BenchCase, error) {
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
	if c.Size, err = strconv.Atoi(parts[1]); err != nil || gpufft.CheckSize(c.Size) != nil {
		return c, fmt.Errorf("%q: size %q: want a power of two in %d…%d", s, parts[1], gpufft.MinSize, gpufft.MaxSize)
	}
	if want == 3 {
		if c.Hop, err = strconv.Atoi(parts[2]); err != nil || c.Hop < 1 || c.Hop > c.Size {
			return c, fmt.Errorf("%q: hop %q: want 1…%d", s, parts[2], c.Size)
		}
	}
	return c, nil
}

// Engines measures the engines (`prism bench` without --e2e) on the same
// cases, one row at a time, and collects the rows. A row that fails is
// said on Stderr and marks Failed.
type Engines struct {
	Custom   []gpufft.BenchCase // nil: the default rows
	Transfer []TransferCase     // live transfer rows (transfer.go), after the others
	MinTime  time.Duration      // per row
	Stderr   io.Writer
	Progress bool // a line on Stderr before each row
	Rows     []gpufft.BenchResult
	Failed   bool
}

// bench measures cases one row at a time with f, saying which first when
// progress is on.
func (b *Engines) bench(engine string, cases []gpufft.BenchCase, f func([]gpufft.BenchCase) ([]gpufft.BenchResult, error)) {
	for i, c := range cases {
		if b.Progress {
			fmt.Fprintf(b.Stderr, "prism: bench: %s %d/%d: %s N=%d…\n", engine, i+1, len(cases), c.Plan, c.Size)
		}
		b.add(f([]gpufft.BenchCase{c}))
	}
}

// cases are the rows for samples per call.
func (b *Engines) cases(samples int) []gpufft.BenchCase {
	if b.Custom == nil {
		return gpufft.DefaultBenchCases(samples)
	}
	cs := slices.Clone(b.Custom)
	for i := range cs {
		cs[i].Samples = samples
		if cs[i].Plan == "c2c" {
			cs[i].Samples /= 2 // complex points, as the default row
		}
	}
	return cs
}

func (b *Engines) add(r []gpufft.BenchResult, err error) {
	b.Rows = append(b.Rows, r...)
	if err != nil {
		fmt.Fprintf(b.Stderr, "prism: bench: %v\n", err)
		b.Failed = true
	}
}

// GPU measures the OpenCL engine on device; false if it does not open.
func (b *Engines) GPU(device string, samples int) bool {
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: device})
	if err != nil {
		fmt.Fprintf(b.Stderr, "prism: bench: %v\n", err)
		return false
	}
	defer g.Close()
	b.bench("GPU", b.cases(samples), func(cs []gpufft.BenchCase) ([]gpufft.BenchResult, error) {
		return gpufft.Bench(g, cs, b.MinTime)
	})
	b.transfer("GPU", g)
	return true
}

// transfer measures the live transfer rows on e.
func (b *Engines) transfer(name string, e gpufft.Engine) {
	for i, c := range b.Transfer {
		if b.Progress {
			fmt.Fprintf(b.Stderr, "prism: bench: %s transfer %d/%d: N=%d hop %d, %d+1 channels…\n", name, i+1, len(b.Transfer), c.Size, c.Hop, c.Channels)
		}
		r, err := BenchTransfer(e, c, b.MinTime)
		if err != nil {
			b.add(nil, fmt.Errorf("%s transfer:%d:%d:%d: %w", e.Name(), c.Size, c.Hop, c.Channels, err))
			continue
		}
		b.add([]gpufft.BenchResult{r}, nil)
	}
}

// CPU measures the CPU engine and, with gonum, gonum used the same way.
func (b *Engines) CPU(samples int, gonum bool) {
	c := gpufft.NewCPU(0)
	defer c.Close()
	b.bench("CPU", b.cases(samples), func(cs []gpufft.BenchCase) ([]gpufft.BenchResult, error) {
		return gpufft.Bench(c, cs, b.MinTime)
	})
	b.transfer("CPU", c)
	if gonum {
		b.bench("gonum", b.cases(samples), func(cs []gpufft.BenchCase) ([]gpufft.BenchResult, error) {
			return Gonum(c.Workers(), cs, b.MinTime)
		})
	}
}

// PrintRows writes rows as a table and the speed-ups measured in them.
func PrintRows(w io.Writer, rows []gpufft.BenchResult) {
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
	for _, r := range rows {
		if r.Plan == "transfer" {
			fmt.Fprintf(w, "%s transfer N=%d hop %d: %s, %d frames per call\n", r.Engine, r.Size, r.Hop, r.Note, r.Batch)
		}
	}
	// Speed-ups measured in this run: GPU over CPU, CPU over gonum.
	byKey := map[string]gpufft.BenchResult{}
	for _, r := range rows {
		byKey[r.Engine+speedupKey(r)] = r
	}
	for _, r := range rows {
		if r.Engine != "cpu" {
			continue
		}
		k := speedupKey(r)
		if g, ok := byKey["opencl"+k]; ok {
			fmt.Fprintf(w, "speed-up %s N=%d%s: GPU (device-resident) %.1f× CPU in samples/s\n", r.Plan, r.Size, hopLabel(r), g.GSamplesSec/r.GSamplesSec)
		}
		if g, ok := byKey["gonum"+k]; ok {
			fmt.Fprintf(w, "speed-up %s N=%d: CPU engine %.2f× gonum in samples/s\n", r.Plan, r.Size, r.GSamplesSec/g.GSamplesSec)
		}
	}
}

// speedupKey names the row an engine's row is compared with: the same
// plan, size and hop (and for transfer rows the same frames per call, as
// the channels differ between rows of one N and hop).
func speedupKey(r gpufft.BenchResult) string {
	k := fmt.Sprintf("/%s/%d/%d", r.Plan, r.Size, r.Hop)
	if r.Plan == "transfer" {
		k += fmt.Sprintf("/%d/%s", r.Batch, strings.SplitN(r.Note, ":", 2)[0])
	}
	return k
}

// hopLabel is " hop H" for rows with a hop.
func hopLabel(r gpufft.BenchResult) string {
	if r.Hop == 0 {
		return ""
	}
	return fmt.Sprintf(" hop %d", r.Hop)
}
