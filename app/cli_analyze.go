package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/prismaudio/prism/gpufft"
)

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (`prism analyze in.wav -o out.png --fft 8192`), which
// the flag package alone stops at.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// analysisFlags are the flags `prism analyze` and `prism capture` share.
type analysisFlags struct {
	fft, hop           int
	window, channel    string
	engine, device     string
	width, height      int
	freqScale, dbRange string
	colormap           string
}

// register adds the flags; openclFlag names the OpenCL device flag
// ("device" for analyze; capture's --device is the audio device).
func (a *analysisFlags) register(fs *flag.FlagSet, openclFlag string) {
	fs.IntVar(&a.fft, "fft", 4096, "FFT size: a power of two, 64…65536")
	fs.IntVar(&a.hop, "hop", 0, "hop between frames in samples, 1…N (default N/4)")
	fs.StringVar(&a.window, "window", "hann", "window: "+strings.Join(gpufft.WindowNames(), ", ")+" or kaiser:BETA")
	fs.StringVar(&a.channel, "channel", "mix", "channel: mix (mean of channels) or a 0-based index")
	fs.StringVar(&a.engine, "engine", "auto", "engine: auto (GPU if usable, else CPU), gpu, cpu")
	fs.StringVar(&a.device, openclFlag, "", "OpenCL device: index or name substring (default $"+gpufft.EnvDevice+", else the first GPU)")
	fs.IntVar(&a.width, "width", 1920, "PNG plot area width in pixels")
	fs.IntVar(&a.height, "height", 1080, "PNG plot area height in pixels")
	fs.StringVar(&a.freqScale, "freq-scale", "log", "PNG frequency axis: lin, log, mel")
	fs.StringVar(&a.dbRange, "db-range", "-120:0", "PNG colour range in dBFS, MIN:MAX")
	fs.StringVar(&a.colormap, "colormap", "viridis", "PNG colormap: "+strings.Join(ColormapNames(), ", "))
}

// options validates the flags into AnalyzeOptions.
func (a *analysisFlags) options() (AnalyzeOptions, error) {
	var o AnalyzeOptions
	if a.fft < 64 || a.fft > 65536 || bits.OnesCount(uint(a.fft)) != 1 {
		return o, fmt.Errorf("--fft %d: want a power of two from 64 to 65536", a.fft)
	}
	o.FFT, o.Hop = a.fft, a.hop
	if o.Hop == 0 {
		o.Hop = a.fft / 4
	}
	if o.Hop < 1 || o.Hop > o.FFT {
		return o, fmt.Errorf("--hop %d: want 1…%d", a.hop, a.fft)
	}
	w, err := gpufft.ParseWindow(a.window)
	if err != nil {
		return o, fmt.Errorf("--window: %v", strings.TrimPrefix(err.Error(), "gpufft: "))
	}
	o.Window = w
	o.Channel = -1
	if a.channel != "mix" {
		c, err := strconv.Atoi(a.channel)
		if err != nil || c < 0 {
			return o, fmt.Errorf("--channel %q: want mix or a channel index ≥ 0", a.channel)
		}
		o.Channel = c
	}
	switch a.engine {
	case "auto", "gpu", "cpu":
	default:
		return o, fmt.Errorf("--engine %q: want auto, gpu or cpu", a.engine)
	}
	if a.width < 16 || a.width > 16384 || a.height < 16 || a.height > 16384 {
		return o, fmt.Errorf("--width/--height %d×%d: want 16…16384 each", a.width, a.height)
	}
	if _, err := NewFreqAxis(a.freqScale, 48000, 4096); err != nil {
		return o, fmt.Errorf("--freq-scale: %v", err)
	}
	lo, hi, ok := strings.Cut(a.dbRange, ":")
	dbMin, err1 := strconv.ParseFloat(lo, 64)
	dbMax, err2 := strconv.ParseFloat(hi, 64)
	if !ok || err1 != nil || err2 != nil || !(dbMin < dbMax) || dbMin < -400 || dbMax > 400 {
		return o, fmt.Errorf("--db-range %q: want MIN:MAX in dB with MIN < MAX, e.g. -120:0", a.dbRange)
	}
	if _, err := Colormap(a.colormap); err != nil {
		return o, fmt.Errorf("--colormap: %v", err)
	}
	o.Image = ImageOptions{Width: a.width, Height: a.height, FreqScale: a.freqScale, DBMin: dbMin, DBMax: dbMax, Colormap: a.colormap}
	return o, nil
}

// openEngines returns the engines --engine asks for. With gpu and no usable
// OpenCL it fails; with auto it says why it uses the CPU (notice) and goes on.
func (a *analysisFlags) openEngines() (Engines, string, error) {
	cpu := gpufft.NewCPU(0)
	if a.engine == "cpu" {
		return Engines{Preferred: cpu, CPU: cpu}, "", nil
	}
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: a.device})
	if err != nil {
		if a.engine == "gpu" {
			cpu.Close()
			return Engines{}, "", fmt.Errorf("--engine gpu: %w", err)
		}
		return Engines{Preferred: cpu, CPU: cpu}, fmt.Sprintf("%v: using the CPU engine", err), nil
	}
	return Engines{Preferred: g, CPU: cpu}, "", nil
}

func (e Engines) close() {
	if e.Preferred != nil && e.Preferred != e.CPU {
		e.Preferred.Close()
	}
	if e.CPU != nil {
		e.CPU.Close()
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func runAnalyze(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("analyze", "  prism analyze IN -o OUT.png|.npy|.csv [flags]\n  prism analyze IN... -o DIR/ [--format png|npy|csv] [flags]\n", stderr)
	var af analysisFlags
	af.register(fs, "device")
	out := fs.String("o", "", "output file (format from its extension), or a directory for several inputs")
	format := fs.String("format", "", "output format when -o is a directory: png (default), npy, csv")
	quiet := fs.Bool("quiet", false, "no progress bar or summary")
	cpuProfile := fs.String("cpuprofile", "", "write a Go CPU profile of the run to this file")
	inputs, code, ok := parseCommand(fs, args)
	if !ok {
		return code
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "prism: "+format+"\n", a...)
		return ExitUsage
	}
	if len(inputs) == 0 {
		return usage("analyze: no input file (prism analyze IN -o OUT)")
	}
	if *out == "" {
		return usage("analyze: -o OUT is required")
	}
	opts, err := af.options()
	if err != nil {
		return usage("analyze: %v", err)
	}
	// Output: one file, or a directory of IN-base-name.FORMAT.
	st, statErr := os.Stat(*out)
	toDir := strings.HasSuffix(*out, "/") || (statErr == nil && st.IsDir()) || len(inputs) > 1
	outFormat := ""
	if toDir {
		outFormat = *format
		if outFormat == "" {
			outFormat = FormatPNG
		}
		if outFormat != FormatPNG && outFormat != FormatNPY && outFormat != FormatCSV {
			return usage("analyze: --format %q: want png, npy or csv", outFormat)
		}
		if statErr != nil {
			if err := os.MkdirAll(*out, 0o755); err != nil {
				fmt.Fprintf(stderr, "prism: analyze: %v\n", err)
				return ExitFailure
			}
		} else if !st.IsDir() {
			return usage("analyze: -o %s: several inputs need a directory", *out)
		}
	} else {
		f, ok := FormatOf(*out)
		if !ok {
			return usage("analyze: -o %s: unknown output format (want .png, .npy or .csv)", *out)
		}
		if *format != "" && *format != f {
			return usage("analyze: --format %s disagrees with -o %s", *format, *out)
		}
		outFormat = f
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "prism: analyze: %v\n", err)
			return ExitFailure
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "prism: analyze: %v\n", err)
			return ExitFailure
		}
		defer pprof.StopCPUProfile()
	}
	sess, ok := openSession("analyze", af, *quiet, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.close()
	ctx, engines := sess.ctx, sess.engines
	badInput, failed := false, false
	for _, in := range inputs {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "prism: analyze: interrupted\n")
			return ExitFailure
		}
		dst := *out
		if toDir {
			base := strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
			dst = filepath.Join(*out, base+"."+outFormat)
		}
		o := opts
		o.Image.Title = fmt.Sprintf("%s   N=%d  hop=%d  %v  %s", filepath.Base(in), opts.FFT, opts.Hop, opts.Window, channelName(opts.Channel))
		var bar *progressbar.ProgressBar
		var progress Progress
		if !*quiet && isTerminal(stderr) {
			progress = func(done, total int) {
				if bar == nil {
					bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
						progressbar.OptionSetDescription(filepath.Base(in)), progressbar.OptionShowCount(),
						progressbar.OptionSetItsString("frames"), progressbar.OptionShowIts(),
						progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
				}
				bar.Set(done)
			}
		}
		res, err := AnalyzeFile(ctx, in, dst, outFormat, o, engines, progress)
		if bar != nil {
			bar.Finish()
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "prism: warning: %s\n", w)
		}
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "prism: %s: interrupted: no output written\n", in)
			return ExitFailure
		}
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				fmt.Fprintf(stderr, "prism: %v\n", err)
				badInput = true
			} else {
				fmt.Fprintf(stderr, "prism: %s: %v\n", in, err)
				failed = true
			}
			continue
		}
		if !*quiet {
			audioSec := float64(res.Samples) / float64(res.Rate)
			fmt.Fprintf(stderr, "prism: %s → %s: %d frames of %.1f s audio in %.2f s (%.0f× real time, %.1f Msamples/s) on %s\n",
				in, dst, res.Frames, audioSec, res.Elapsed.Seconds(), audioSec/res.Elapsed.Seconds(),
				float64(res.Samples)/res.Elapsed.Seconds()/1e6, res.Engine)
		}
	}
	// Some file failed: a runtime failure says 1, else bad input says 2.
	switch {
	case failed:
		return ExitFailure
	case badInput:
		return ExitUsage
	}
	return ExitOK
}

func channelName(c int) string {
	if c < 0 {
		return "mix"
	}
	return fmt.Sprintf("channel %d", c)
}
