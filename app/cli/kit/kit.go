// Package kit is the commands' shared machinery: flag sets that speak in
// Prism's words (one-line errors, -h usage, interleaved positional
// arguments), the exit codes, the engine session every analysis command
// opens (signals, outputs in place, the engines' release), and the small
// flag rules several commands share. Package cli and its command groups
// (measure) build on it; it knows no command.
package kit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/bench"
	"github.com/prismaudio/prism/internal/message"
	"github.com/prismaudio/prism/internal/proc"
)

// Exit codes of every command.
const (
	ExitOK      = 0
	ExitFailure = 1 // runtime failure
	ExitUsage   = 2 // bad usage or bad input
)

// NewFlags makes a command's flag set. -h prints usage (if not empty) and
// the flags on stderr; a bad flag prints one line (see parseError).
func NewFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
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

// Parse parses flags; it returns an exit code and false when the command
// should stop (help shown or bad usage).
func Parse(fs *flag.FlagSet, args []string, stderr io.Writer) (int, bool) {
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

// ParseCommand parses flags interleaved with positional arguments; ok is
// false when the command should return code (help shown or bad flags).
func ParseCommand(fs *flag.FlagSet, args []string, stderr io.Writer) (pos []string, code int, ok bool) {
	if described(fs) {
		return nil, ExitOK, false
	}
	pos, err := ParseInterleaved(fs, args)
	if err != nil {
		return nil, parseError(fs, err, stderr), false
	}
	return pos, 0, true
}

// UsageError returns a function that prints "prism: NAME: message" and
// gives the bad-usage exit code.
func UsageError(name string, stderr io.Writer) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, "prism: "+name+": "+format+"\n", a...)
		return ExitUsage
	}
}

// ParseInterleaved parses flags that may come before, between or after the
// positional arguments (`prism analyze in.wav -o out.png --fft 8192`), which
// the flag package alone stops at.
func ParseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
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

// Session is what the analysis commands open: the engines (saying why the
// GPU is not used, unless quiet) and a context that SIGINT, SIGTERM or
// SIGHUP cancels, so work stops between batches and partial outputs are removed.
// Work that cannot see the context (an open(2) of a FIFO with no writer, a
// decoder's read) is not waited for: interruptGrace after the signal, or
// at a second signal, the process removes its temporary files and exits.
type Session struct {
	Engines engine.Pair   // the first of Set
	Set     []engine.Pair // one per GPU with --device all
	// opening, when set (OpenSessionStart, several GPUs), is the set
	// still opening: set and engines are empty until it is waited for
	Opening *engine.Opening
	Ctx     context.Context
	stop    func()
	Written *proc.Outputs // outputs in place, for an interrupt's message
}

// interruptGrace is how long an interrupted command may take to stop by
// itself before the process exits.
const interruptGrace = 400 * time.Millisecond

// OpenSession opens the engines choice and device name (saying why the
// GPU is not used, unless quiet) and starts watching the signals.
func OpenSession(name, choice, device string, quiet bool, stderr io.Writer) (*Session, bool) {
	return OpenSessionSet(name, choice, device, false, quiet, stderr)
}

// OpenSessionSet is OpenSession with every GPU of the host opened (see
// engine.OpenSet) for --device all, or by default when spread (a
// batch of files) and there are several.
func OpenSessionSet(name, choice, device string, spread, quiet bool, stderr io.Writer) (*Session, bool) {
	written := &proc.Outputs{}
	ctx, stop := WatchSignals(stderr, written)
	set, notice, err := engine.OpenSet(choice, device, spread)
	if !opened(name, notice, err, quiet, stop, stderr) {
		return nil, false
	}
	return &Session{Engines: set[0], Set: set, Ctx: ctx, stop: stop, Written: written}, true
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

// OpenSessionStart is OpenSessionSet for `prism analyze`: with several
// GPUs and several inputs (a batch) it returns while they open (the
// session's opening: engine.StartSet), so each GPU starts on the
// batch as soon as it is open.
func OpenSessionStart(name, choice, device string, batch, quiet bool, stderr io.Writer) (*Session, bool) {
	if !batch {
		return OpenSessionSet(name, choice, device, false, quiet, stderr)
	}
	written := &proc.Outputs{}
	ctx, stop := WatchSignals(stderr, written)
	o, notice, err := engine.StartSet(choice, device, false)
	if !opened(name, notice, err, quiet, stop, stderr) {
		return nil, false
	}
	s := &Session{Ctx: ctx, stop: stop, Written: written}
	if o.Len() == 1 { // one engine: opened already
		s.Set, _ = o.Wait()
		s.Engines = s.Set[0]
	} else {
		s.Opening = o
	}
	return s, true
}

// Settle waits for engines still opening and makes them the session's set
// (so that closing closes them).
func (s *Session) Settle() {
	if s.Opening != nil {
		s.Set, _ = s.Opening.Wait()
		s.Opening = nil
	}
}

// WatchSignals is proc.WatchSignals for a command: its temporary files
// are removed and it exits with ExitFailure.
func WatchSignals(stderr io.Writer, written *proc.Outputs) (context.Context, func()) {
	return proc.WatchSignals(stderr, written, interruptGrace, encode.RemoveTemps, ExitFailure)
}

// Interrupted reports a command whose one output out was not written
// because a signal stopped it, and returns its exit code.
func Interrupted(stderr io.Writer, name, out string) int {
	fmt.Fprintf(stderr, "prism: %s: interrupted: %s not written\n", name, message.Quote(out))
	return ExitFailure
}

// Close releases the engines (leaving them to the exit saves nothing:
// docs/performance.md).
func (s *Session) Close() {
	s.Settle()
	engine.CloseSet(s.Set)
	s.stop()
}

// Warn prints warnings as "prism: warning: …".
func Warn(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "prism: warning: %s\n", w)
	}
}

// Failure prints err and returns its exit code: bad input 2, else 1.
func Failure(stderr io.Writer, err error) int {
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

// RegisterForce adds --force: replace an output whose permissions protect
// it (encode.ErrNotWritable otherwise), as `cp -f` would.
func RegisterForce(fs *flag.FlagSet, force *bool) {
	fs.BoolVar(force, "force", false, "replace an existing output even when its permissions forbid writing it")
}

// CheckReplace refuses, before any work, outputs that exist and that their
// permissions protect, unless --force.
func CheckReplace(force bool, paths ...string) error {
	for _, p := range paths {
		if err := encode.CheckReplace(p, force); err != nil {
			return err
		}
	}
	return nil
}

// RegisterEngine adds --engine and the OpenCL device flag.
func RegisterEngine(fs *flag.FlagSet, choice, device *string, deviceFlag string) {
	fs.StringVar(choice, "engine", engine.Auto, "engine: auto (GPU if usable, else CPU), gpu, cpu")
	fs.StringVar(device, deviceFlag, "", "OpenCL device: index or name substring, or all (every GPU; the default for several files when there are several) (default $"+gpufft.EnvDevice+", else the first GPU)")
}

// CheckFFTFlags is engine.CheckFFT in the words of --fft and --hop.
func CheckFFTFlags(n, hop int) error {
	err := engine.CheckFFT(n, hop)
	if errors.As(err, new(*engine.HopError)) {
		return fmt.Errorf("--hop %d: want 1…%d", hop, n)
	}
	if err != nil {
		return fmt.Errorf("--fft %d: want a power of two from %d to %d", n, engine.MinFFT, engine.MaxFFT)
	}
	return nil
}

// ParseChannel reads --channel: "mix" is −1.
func ParseChannel(s string) (int, error) {
	if s == "mix" {
		return -1, nil
	}
	c, err := strconv.Atoi(s)
	if err != nil || c < 0 {
		return 0, fmt.Errorf("--channel %q: want mix or a channel index ≥ 0", s)
	}
	return c, nil
}

// engineStats is an engine that reports its start-up and release
// (gpufft.OpenCL does).
type engineStats interface{ Stats() gpufft.OpenCLStats }

// End is Leave for a command that writes one output and ends its session
// as it returns (deferred): by then that output is in place or
// discarded.
func (s *Session) End() { s.Leave(io.Discard, false) }

// Leave ends a session whose outputs are all written, flushed, closed
// and in place: with fast exit (proc.FastExit) the engines are left to the process's exit
// (engine.CloseSetForExit), else closed; with $PRISM_EXIT_HOLD=1 the GPU
// device files are also handed to a child that outlives the process
// briefly (proc.HoldDevices). With timings it prints the exit line on w.
//
// The hand-off is not the default: it moves the driver's teardown after
// the exit rather than removing it, so a caller that waits for the command
// sees it sooner, but commands run back to back are slower (below), and a
// process is left behind for a moment. It is for a single interactive run
// where the answer matters more than the next run's start.
//
// (Its measurements, on the H200 hosts: docs/performance.md.)
func (s *Session) Leave(w io.Writer, timings bool) {
	t := bench.ExitTimings{Fast: proc.FastExit(), Release: []float64{}, ReleaseContext: []float64{}}
	var stats []gpufft.OpenCLStats
	var took time.Duration
	s.Settle()
	if t.Fast {
		took, stats = engine.CloseSetForExit(s.Set)
		if proc.Env().HoldDevices {
			t0 := time.Now()
			t.Held = proc.HoldDevices()
			t.Hold = bench.Ms(time.Since(t0))
		}
	} else {
		t0 := time.Now()
		engine.CloseSet(s.Set)
		took = time.Since(t0)
		for _, e := range s.Set {
			if g, ok := e.Preferred.(engineStats); ok {
				stats = append(stats, g.Stats())
			}
		}
	}
	s.stop()
	if !timings {
		return
	}
	t.Close = bench.Ms(took)
	for _, st := range stats {
		t.Release = append(t.Release, bench.Ms(st.Release))
		t.ReleaseContext = append(t.ReleaseContext, bench.Ms(st.ReleaseContext))
		t.Start = append(t.Start, bench.EngineStart{Load: bench.Ms(st.Load), Query: bench.Ms(st.Query), Context: bench.Ms(st.Context),
			Programs: st.Programs, CacheHits: st.CacheHits, CacheWrites: st.CacheWrites,
			BuildSource: bench.Ms(st.BuildSource), BuildCached: bench.Ms(st.BuildCached)})
	}
	t.UnixNS = time.Now().UnixNano()
	bench.WriteLine(w, bench.ExitLine{Exit: t})
}

// NewSession is a session of set (or of an opening still opening) on ctx,
// watching no signals: for callers that drive commands' pipelines
// themselves (tests).
func NewSession(ctx context.Context, set []engine.Pair, opening *engine.Opening) *Session {
	s := &Session{Set: set, Opening: opening, Ctx: ctx, stop: func() {}, Written: &proc.Outputs{}}
	if len(set) > 0 {
		s.Engines = set[0]
	}
	return s
}
