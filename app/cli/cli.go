package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/prismaudio/prism/internal/message"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/proc"
)

// Exit codes of every command.
const (
	ExitOK      = 0
	ExitFailure = 1 // runtime failure
	ExitUsage   = 2 // bad usage or bad input
)

// withoutVerbose drops the global --verbose (or -verbose) flag, which
// any command takes: it lets the audio libraries' own messages through
// (the audio package reads it from the command line at start-up).
func withoutVerbose(args []string) []string {
	out := args[:0:0]
	for _, a := range args {
		if a != "--verbose" && a != "-verbose" {
			out = append(out, a)
		}
	}
	return out
}

// probeArg is the hidden subcommand that checks OpenCL in a child process
// (gpufft.WriteProbe), so a crashing driver costs a fallback, not Prism.
const probeArg = "__probe-opencl"

// EnableProbe makes opening the engines check the OpenCL installation in
// a child process first (this executable, probeArg), once per
// installation. main calls it before anything opens an engine.
func EnableProbe() {
	exe, err := os.Executable()
	if err != nil {
		return // no probe: OpenCL is opened in-process, as before
	}
	engine.ProbeCommand = func(ctx context.Context, device string) *exec.Cmd {
		return exec.CommandContext(ctx, exe, probeArg, device)
	}
}

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
		{"transfer", "dual-channel measurement: transfer function (magnitude, phase, coherence) and delay of channels against a reference, as CSV, NPY or PNG", runTransfer},
		{"sweep", "an exponential sine sweep (Farina) and its inverse filter, as WAV", runSweep},
		{"ir", "impulse response of a sweep recording; harmonic distortion versus frequency; cumulative spectral decay", runIR},
		{"room", "room-acoustic parameters of an impulse response: EDT, T20, T30, C50, C80, D50 per band (ISO 3382), decay PNG, frequency response", runRoom},
		{"filter", "band-filter an audio file (linear-phase FIR by FFT convolution) into a WAV", runFilter},
		{"bench", "measure the GPU and CPU engines side by side", runBench},
		{"version", "the release, commit, build date, Go version and whether PortAudio capture is in", runVersion},
	}
}

// Usage writes the top-level help.
func Usage(w io.Writer) {
	fmt.Fprintf(w, "Prism: real-time audio spectrum analyzer with OpenCL FFTs.\n\nUsage:\n  prism COMMAND [flags]\n\nCommands:\n")
	for _, c := range Commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun 'prism COMMAND -h' for a command's flags; any command takes --verbose\n(the audio libraries' own messages on stderr).\n")
}

// Run dispatches args (without the program name) to a subcommand and
// returns the exit code. What it writes to stderr is one line per message
// or lines indented under it, names with control characters quoted and
// any other control characters escaped (see message.SafeWriter).
func Run(args []string, stdout, stderr io.Writer) int {
	stderr = message.NewSafeWriter(stderr, args)
	args = withoutVerbose(args)
	if len(args) > 0 && args[0] == probeArg {
		dev := ""
		if len(args) > 1 {
			dev = args[1]
		}
		if err := gpufft.WriteProbe(stdout, gpufft.OpenCLOptions{Device: dev}); err != nil {
			return ExitFailure
		}
		return ExitOK
	}
	if len(args) > 0 && args[0] == proc.HoldArg { // see proc.HoldDevices
		proc.Hold()
		return ExitOK
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		Usage(stdout)
		return ExitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(args[1:], stdout, stderr)
	}
	for _, c := range Commands() {
		if c.Name == args[0] {
			return c.Run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "prism: unknown command %q (see prism help)\n", args[0])
	return ExitUsage
}

// newFlags makes a command's flag set. -h prints usage (if not empty) and
// the flags on stderr; a bad flag prints one line (see parseError).
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("prism "+name, flag.ContinueOnError)
	noteUsage(fs, usage)
	// The flag package prints its messages and the usage to the output on
	// every error: it writes nowhere, and parseError speaks instead.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		if usage != "" {
			fmt.Fprintf(fs.Output(), "Usage:\n%s\n", usage)
		}
		fmt.Fprintf(fs.Output(), "Flags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// parseError reports a failed Parse and returns the exit code: the usage
// for -h (ExitOK), one line for a bad flag (ExitUsage).
func parseError(fs *flag.FlagSet, err error, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(message.RawWriter(stderr)) // lines laid out already
		fs.Usage()
		fs.SetOutput(io.Discard)
		return ExitOK
	}
	fmt.Fprintf(stderr, "prism: %s: %v ('%s -h' lists the flags)\n", strings.TrimPrefix(fs.Name(), "prism "), err, fs.Name())
	return ExitUsage
}

// parse parses flags; it returns an exit code and false when the command
// should stop (help shown or bad usage).
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (int, bool) {
	if described(fs) {
		return ExitOK, false
	}
	if err := fs.Parse(args); err != nil {
		return parseError(fs, err, stderr), false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "prism: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage, false
	}
	return 0, true
}

// parseCommand parses flags interleaved with positional arguments; ok is
// false when the command should return code (help shown or bad flags).
func parseCommand(fs *flag.FlagSet, args []string, stderr io.Writer) (pos []string, code int, ok bool) {
	if described(fs) {
		return nil, ExitOK, false
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, parseError(fs, err, stderr), false
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
// GPU is not used, unless quiet) and a context that SIGINT, SIGTERM or
// SIGHUP cancels, so work stops between batches and partial outputs are removed.
// Work that cannot see the context (an open(2) of a FIFO with no writer, a
// decoder's read) is not waited for: interruptGrace after the signal, or
// at a second signal, the process removes its temporary files and exits.
type session struct {
	engines engine.Pair   // the first of set
	set     []engine.Pair // one per GPU with --device all
	// opening, when set (openSessionStart, several GPUs), is the set
	// still opening: set and engines are empty until it is waited for
	opening *engine.Opening
	ctx     context.Context
	stop    func()
	written *proc.Outputs // outputs in place, for an interrupt's message
}

// interruptGrace is how long an interrupted command may take to stop by
// itself before the process exits.
const interruptGrace = 400 * time.Millisecond

func openSession(name, choice, device string, quiet bool, stderr io.Writer) (*session, bool) {
	return openSessionSet(name, choice, device, false, quiet, stderr)
}

// openSessionSet is openSession with every GPU of the host opened (see
// engine.OpenSet) for --device all, or by default when spread (a
// batch of files) and there are several.
func openSessionSet(name, choice, device string, spread, quiet bool, stderr io.Writer) (*session, bool) {
	written := &proc.Outputs{}
	ctx, stop := watchSignals(stderr, written)
	set, notice, err := engine.OpenSet(choice, device, spread)
	if !opened(name, notice, err, quiet, stop, stderr) {
		return nil, false
	}
	return &session{engines: set[0], set: set, ctx: ctx, stop: stop, written: written}, true
}

// opened reports an engine set's opening: the error (then it stops the
// signal watch and returns false), else the notice unless quiet.
func opened(name, notice string, err error, quiet bool, stop func(), stderr io.Writer) bool {
	if err != nil {
		stop()
		fmt.Fprintf(stderr, "prism: %s: %v\n", name, err)
		return false
	}
	if notice != "" && !quiet {
		fmt.Fprintf(stderr, "prism: %s\n", notice)
	}
	return true
}

// openSessionStart is openSessionSet for `prism analyze`: with several
// GPUs and several inputs (a batch) it returns while they open (the
// session's opening: engine.StartSet), so each GPU starts on the
// batch as soon as it is open.
func openSessionStart(name, choice, device string, batch, quiet bool, stderr io.Writer) (*session, bool) {
	if !batch {
		return openSessionSet(name, choice, device, false, quiet, stderr)
	}
	written := &proc.Outputs{}
	ctx, stop := watchSignals(stderr, written)
	o, notice, err := engine.StartSet(choice, device, false)
	if !opened(name, notice, err, quiet, stop, stderr) {
		return nil, false
	}
	s := &session{ctx: ctx, stop: stop, written: written}
	if o.Len() == 1 { // one engine: opened already
		s.set, _ = o.Wait()
		s.engines = s.set[0]
	} else {
		s.opening = o
	}
	return s, true
}

// settle waits for engines still opening and makes them the session's set
// (so that closing closes them).
func (s *session) settle() {
	if s.opening != nil {
		s.set, _ = s.opening.Wait()
		s.opening = nil
	}
}

// watchSignals is proc.WatchSignals for a command: its temporary files
// are removed and it exits with ExitFailure.
func watchSignals(stderr io.Writer, written *proc.Outputs) (context.Context, func()) {
	return proc.WatchSignals(stderr, written, interruptGrace, encode.RemoveTemps, ExitFailure)
}

// interrupted reports a command whose one output out was not written
// because a signal stopped it, and returns its exit code.
func interrupted(stderr io.Writer, name, out string) int {
	fmt.Fprintf(stderr, "prism: %s: interrupted: %s not written\n", name, message.Quote(out))
	return ExitFailure
}

// close releases the engines (leaving them to the exit saves nothing:
// docs/performance.md).
func (s *session) close() {
	s.settle()
	engine.CloseSet(s.set)
	s.stop()
}

// warn prints warnings as "prism: warning: …".
func warn(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "prism: warning: %s\n", w)
	}
}

// failure prints err and returns its exit code: bad input 2, else 1.
func failure(stderr io.Writer, err error) int {
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "prism: interrupted: no output written")
		return ExitFailure
	}
	fmt.Fprintf(stderr, "prism: %v\n", err)
	if errors.As(err, new(*analysis.InputError)) {
		return ExitUsage
	}
	return ExitFailure
}
