package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/prismaudio/prism/app/analysis"
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
		{"spectrum", "power-averaged (Welch) spectrum of a file: dBFS, dBFS/Hz or dB SPL, as CSV, NPY or PNG", runSpectrum},
		{"levels", "sample peak, true peak, RMS and EBU R128 loudness of a file", runLevels},
		{"distortion", "THD, THD+N, SNR and SINAD of a sine in a file", runDistortion},
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
	engines analysis.Engines
	ctx     context.Context
	stop    context.CancelFunc
}

func openSession(name, engine, device string, quiet bool, stderr io.Writer) (*session, bool) {
	engines, notice, err := analysis.OpenEngines(engine, device)
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
	s.engines.Close()
}

// warn prints warnings as "prism: warning: …".
func warn(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "prism: warning: %s\n", w)
	}
}

// failure prints err and returns its exit code: bad input 2, else 1.
func failure(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "prism: %v\n", err)
	if errors.As(err, new(*analysis.InputError)) {
		return ExitUsage
	}
	return ExitFailure
}
