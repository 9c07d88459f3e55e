package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// Exit codes of every command.
const (
	ExitOK      = 0
	ExitFailure = 1 // runtime failure
	ExitUsage   = 2 // bad usage or bad input
)

// Command is one `prism NAME` subcommand.
type Command struct {
	Name    string
	Summary string
	Run     func(args []string, stdout, stderr io.Writer) int
}

// Commands lists the subcommands in the order usage shows them.
func Commands() []Command {
	return []Command{
		{"analyze", "render audio files as spectrogram PNG, NPY or CSV", runAnalyze},
		{"bands", "fractional-octave band levels (IEC 61260-1), A/C/Z weighted, as CSV", runBands},
		{"capture", "record the live spectrogram of an input or the generator", runCapture},
		{"devices", "list OpenCL and audio devices", runDevices},
		{"filter", "band-filter an audio file (linear-phase FIR by FFT convolution) into a WAV", runFilter},
		{"bench", "measure the GPU and CPU engines side by side", runBench},
	}
}

// Usage writes the top-level help.
func Usage(w io.Writer) {
	fmt.Fprintf(w, "Prism: real-time audio spectrum analyzer with OpenCL FFTs.\n\nUsage:\n  prism COMMAND [flags]\n\nCommands:\n")
	for _, c := range Commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun 'prism COMMAND -h' for a command's flags.\n")
}

// Run dispatches args (without the program name) to a subcommand and
// returns the exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		Usage(stdout)
		return ExitOK
	}
	for _, c := range Commands() {
		if c.Name == args[0] {
			return c.Run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "prism: unknown command %q\n", args[0])
	Usage(stderr)
	return ExitUsage
}

// newFlags makes a command's flag set; usage (if not empty) is printed
// above the flag list on -h and on bad flags.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("prism "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() {
			fmt.Fprintf(stderr, "Usage:\n%s\nFlags:\n", usage)
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses flags; it returns an exit code and false when the command
// should stop (help shown or bad usage).
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "prism: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage, false
	}
	return 0, true
}

func runDevices(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("devices", "", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	devs, err := gpufft.Devices()
	adevs, aerr := audio.Devices()
	if *asJSON {
		out := struct {
			OpenCL      []gpufft.DeviceInfo `json:"opencl"`
			OpenCLError string              `json:"opencl_error,omitempty"`
			Audio       []audio.DeviceInfo  `json:"audio"`
			AudioError  string              `json:"audio_error,omitempty"`
		}{OpenCL: devs, Audio: adevs}
		if err != nil {
			out.OpenCLError = err.Error()
		}
		if aerr != nil {
			out.AudioError = aerr.Error()
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return ExitOK
	}
	fmt.Fprintln(stdout, "OpenCL devices:")
	switch {
	case err != nil:
		fmt.Fprintf(stdout, "  none: %v (the CPU engine is used)\n", err)
	case len(devs) == 0:
		fmt.Fprintln(stdout, "  none: the OpenCL library reports no platform (the CPU engine is used)")
	default:
		def, _ := gpufft.SelectDevice(devs, os.Getenv(gpufft.EnvDevice))
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\ttype\tname\tplatform\tversion\tunits\tlocal mem\tmax group\tglobal mem\t")
		for _, d := range devs {
			mark := " "
			if d.Index == def.Index {
				mark = "*"
			}
			fmt.Fprintf(tw, "%s %d\t%s\t%s\t%s\t%s\t%d\t%d KiB\t%d\t%.1f GiB\t\n", mark, d.Index, d.Type, d.Name, d.Platform,
				d.Version, d.ComputeUnits, d.LocalMemBytes>>10, d.MaxWorkGroupSize, float64(d.GlobalMemBytes)/(1<<30))
		}
		tw.Flush()
		fmt.Fprintf(stdout, "  * default (choose with --device or %s: index or name)\n", gpufft.EnvDevice)
	}
	printAudioDevices(stdout, adevs, aerr)
	return ExitOK
}

func printAudioDevices(w io.Writer, devs []audio.DeviceInfo, err error) {
	fmt.Fprintln(w, "\nAudio devices:")
	inputs := 0
	for _, d := range devs {
		if d.MaxInputChannels > 0 {
			inputs++
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(w, "  none: %v (the signal generator is used)\n", err)
		return
	case inputs == 0:
		fmt.Fprintf(w, "  no input device (%d devices, no sound server or no inputs): the signal generator is used\n", len(devs))
	}
	if len(devs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  #	name	host API	in	out	rate	latency low/high	")
	for _, d := range devs {
		mark := " "
		if d.DefaultInput {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %d	%s	%s	%d	%d	%.0f Hz	%v / %v	\n", mark, d.Index, d.Name, d.HostAPI, d.MaxInputChannels,
			d.MaxOutputChannels, d.DefaultRate, d.LowLatency.Round(100*time.Microsecond), d.HighLatency.Round(100*time.Microsecond))
	}
	tw.Flush()
	fmt.Fprintln(w, "  * default input (choose with prism capture --device: index or name)")
}

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
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *engines != "all" && *engines != "gpu" && *engines != "cpu" {
		fmt.Fprintf(stderr, "prism: --engine %q: want all, gpu or cpu\n", *engines)
		return ExitUsage
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
	cases := func(samples int) []gpufft.BenchCase {
		if custom == nil {
			return gpufft.DefaultBenchCases(samples)
		}
		cs := slices.Clone(custom)
		for i := range cs {
			cs[i].Samples = samples
			if cs[i].Plan == "c2c" {
				cs[i].Samples /= 2 // complex points, as the default row
			}
		}
		return cs
	}
	var rows []gpufft.BenchResult
	failed := false
	if *engines != "cpu" {
		g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: *device})
		if err != nil {
			fmt.Fprintf(stderr, "prism: bench: %v\n", err)
			if *engines == "gpu" {
				return ExitFailure
			}
		} else {
			r, err := gpufft.Bench(g, cases(*gpuSamples), *minTime)
			rows = append(rows, r...)
			if err != nil {
				fmt.Fprintf(stderr, "prism: bench: %v\n", err)
				failed = true
			}
			g.Close()
		}
	}
	if *engines != "gpu" {
		c := gpufft.NewCPU(0)
		r, err := gpufft.Bench(c, cases(*cpuSamples), *minTime)
		rows = append(rows, r...)
		if err != nil {
			fmt.Fprintf(stderr, "prism: bench: %v\n", err)
			failed = true
		}
		if *gonum {
			r, err := gpufft.BenchGonum(c.Workers(), cases(*cpuSamples), *minTime)
			rows = append(rows, r...)
			if err != nil {
				fmt.Fprintf(stderr, "prism: bench: %v\n", err)
				failed = true
			}
		}
		c.Close()
	}
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

// parseCommand parses flags interleaved with positional arguments; ok is
// false when the command should return code (help shown or bad flags).
func parseCommand(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, ExitOK, false
		}
		return nil, ExitUsage, false
	}
	return pos, 0, true
}

// usageError returns a function that prints "prism: NAME: message" and
// gives the bad-usage exit code.
func usageError(name string, stderr io.Writer) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, "prism: "+name+": "+format+"\n", a...)
		return ExitUsage
	}
}

// session is what the analysis commands open: the engines (saying why the
// GPU is not used, unless quiet) and a context that Ctrl-C or SIGTERM
// cancels, so work stops between batches and partial outputs are removed.
type session struct {
	engines Engines
	ctx     context.Context
	stop    context.CancelFunc
}

func openSession(name string, af analysisFlags, quiet bool, stderr io.Writer) (*session, bool) {
	engines, notice, err := af.openEngines()
	if err != nil {
		fmt.Fprintf(stderr, "prism: %s: %v\n", name, err)
		return nil, false
	}
	if notice != "" && !quiet {
		fmt.Fprintf(stderr, "prism: %s\n", notice)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return &session{engines: engines, ctx: ctx, stop: stop}, true
}

func (s *session) close() {
	s.stop()
	s.engines.close()
}
