// Package desktop opens Prism's window with Fyne's GLFW driver. It is the
// only package that links the driver (a slow cgo build), so the widgets in
// package ui test quickly without it.
package desktop

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/prismaudio/prism/app/cli"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui"
	_ "github.com/prismaudio/prism/ui/desktop/locale" // before Fyne reads the locale
)

// AppID is the application ID (also in FyneApp.toml).
const AppID = "io.github.prismaudio.prism"

// EnvTrace names a file (or "-" for stderr) that receives the window's
// JSON event lines (see ui.Options.Trace).
const EnvTrace = "PRISM_UI_TRACE"

// EnvSources names a file (a FIFO; the desktop tests) whose lines switch
// the live source while the window runs, as the Source control does:
// "generator SPEC" or "file PATH" (SourceSpec.String's forms). Unset, the
// window reads nothing.
const EnvSources = "PRISM_UI_SOURCES"

// HasDisplay says whether a window can open: on Linux and the BSDs a
// DISPLAY or WAYLAND_DISPLAY must be set.
func HasDisplay() bool {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// Flags are the window's command-line options: `prism [flags] [FILE]`.
type Flags struct {
	File      string // open this audio file in the File tab
	Generator string // start on the signal generator with this spec
	Device    string // start on this input device (index or name)
	FFT, Hop  int    // start with this FFT size and hop (0: as saved)
	Engine    string // auto, gpu, cpu
	Verbose   bool   // the error chains beside the window's messages too
}

// Parse reads the window's arguments. ok is false when args are not the
// window's (a subcommand, -h): the CLI handles those.
func Parse(args []string, stderr io.Writer) (f Flags, ok bool, err error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if fi, serr := os.Stat(args[0]); serr != nil || !fi.Mode().IsRegular() || len(args) > 1 {
			return f, false, nil // a subcommand (or a typo the CLI explains)
		}
	}
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return f, false, nil
		}
	}
	fs := flagSet(&f)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return f, true, err
	}
	return f, true, f.check(fs.Args())
}

// flagSet defines the window's flags into f.
func flagSet(f *Flags) *flag.FlagSet {
	fs := flag.NewFlagSet("prism", flag.ContinueOnError)
	fs.StringVar(&f.Generator, "generator", "", "start on the signal generator: sine:F:DB, tones:F1,F2:DB, sweep:F0:F1:DB[:S], white:DB, pink:DB")
	fs.StringVar(&f.Device, "device", "", "start on this audio input (index or name substring, see `prism devices`)")
	fs.IntVar(&f.FFT, "fft", 0, fmt.Sprintf("FFT size, a power of two %d…%d (default: as last used)", engine.MinFFT, engine.MaxFFT))
	fs.IntVar(&f.Hop, "hop", 0, "hop in samples, 1…FFT (default: as last used)")
	fs.StringVar(&f.Engine, "engine", "auto", "engine: auto, gpu, cpu")
	fs.BoolVar(&f.Verbose, "verbose", false, "let the audio libraries' own messages through (read at start-up by package audio), and show the error chain beside the window's messages")
	return fs
}

// Describe is the window's own help, for the man page: its flags.
func Describe() cli.CommandHelp {
	var f Flags
	return cli.HelpOf(flagSet(&f), "  prism [FILE] [flags]\n  Opens the desktop window on the default input, the generator or FILE.\n", "the desktop window")
}

// check validates the parsed flags and takes the file argument, if any.
func (f *Flags) check(rest []string) error {
	switch len(rest) {
	case 0:
	case 1:
		f.File = rest[0]
	default:
		return fmt.Errorf("one file at most, not %q", rest)
	}
	if f.FFT != 0 && engine.CheckFFT(f.FFT, 1) != nil {
		return fmt.Errorf("--fft %d: want a power of two %d…%d", f.FFT, engine.MinFFT, engine.MaxFFT)
	}
	if f.Hop < 0 || (f.Hop > 0 && f.FFT > 0 && f.Hop > f.FFT) {
		return fmt.Errorf("--hop %d: want 1…FFT", f.Hop)
	}
	if f.Generator != "" {
		if _, err := session.ParseGeneratorSpec(f.Generator); err != nil {
			return err
		}
	}
	switch f.Engine {
	case "auto", "gpu", "cpu":
	default:
		return errors.New("--engine: want auto, gpu or cpu")
	}
	return nil
}

// Main runs the window for args if they are the window's (see Parse) and
// returns the exit code; handled is false otherwise.
func Main(args []string, icon []byte, stderr io.Writer) (code int, handled bool) {
	f, ok, err := Parse(args, stderr)
	if !ok {
		return 0, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism: %v\n", err)
		return cli.ExitUsage, true
	}
	return Run(f, icon, stderr), true
}

// Run opens the window and returns the exit code when it closes. icon is
// the app icon (PNG bytes). Without a display it says so and lists the
// command-line tools instead.
func Run(f Flags, icon []byte, stderr io.Writer) int {
	if !HasDisplay() {
		fmt.Fprintln(stderr, "prism: no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop window cannot open.")
		fmt.Fprintln(stderr, "The command-line tools work without one:")
		fmt.Fprintln(stderr)
		cli.Usage(stderr)
		return cli.ExitFailure
	}
	engines, notice, err := engine.Open(f.Engine, "")
	if err != nil {
		fmt.Fprintf(stderr, "prism: %v\n", err)
		return cli.ExitFailure
	}
	defer engines.Close()
	if notice != "" {
		fmt.Fprintf(stderr, "prism: %s\n", notice)
	}

	a := fyneapp.NewWithID(AppID)
	if len(icon) > 0 {
		a.SetIcon(fyne.NewStaticResource("icon.png", icon))
	}
	set := startSettings(f, a.Preferences())
	ls, err := set.Live()
	if err != nil {
		ls = live.DefaultSettings()
	}
	m, srcNotice, err := session.New(set.Source, ls, engines)
	if err != nil && set.Source.Kind != session.SourceDevice {
		// the saved source is gone (a file moved, …): start on the default input
		fmt.Fprintf(stderr, "prism: %s: %v: using the default input\n", set.Source, err)
		m, srcNotice, err = session.New(session.SourceSpec{Kind: session.SourceDevice}, ls, engines)
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism: %v\n", err)
		return cli.ExitFailure
	}
	defer m.Close()
	if srcNotice != "" {
		fmt.Fprintf(stderr, "prism: %s\n", srcNotice)
		notice = joinNotices(notice, srcNotice)
	}

	opts := ui.Options{File: f.File, Notice: notice, ReferenceDir: ReferenceDir(), Verbose: f.Verbose}
	switch path := os.Getenv(EnvTrace); path {
	case "":
	case "-":
		opts.Trace = stderr
	default:
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(stderr, "prism: %s: %v\n", EnvTrace, err)
			return cli.ExitFailure
		}
		defer f.Close()
		opts.Trace = f
	}
	if path := os.Getenv(EnvSources); path != "" {
		go followSources(path, m, stderr)
	}
	win := a.NewWindow("Prism")
	win.Resize(ui.WindowSize(a.Preferences())) // as it was when it last closed
	ui.New(a, win, m, opts)
	win.ShowAndRun()
	return cli.ExitOK
}

// startSettings are the settings saved in p with the flags' changes,
// which are saved in turn (the window starts with them).
func startSettings(f Flags, p fyne.Preferences) ui.Settings {
	set := ui.LoadSettings(p)
	switch {
	case f.Generator != "":
		set.Source = session.SourceSpec{Kind: session.SourceGenerator, Generator: f.Generator}
	case f.Device != "":
		set.Source = session.SourceSpec{Kind: session.SourceDevice, Device: f.Device}
	}
	if f.FFT > 0 {
		set.FFT = f.FFT
	}
	if f.Hop > 0 {
		set.Overlap = 1 - float64(f.Hop)/float64(set.FFT)
	}
	if f.Engine == "cpu" || f.Engine == "gpu" {
		set.Engine = f.Engine
	}
	set.Save(p)
	return set
}

// followSources switches m's source to each line of the file at path
// (see EnvSources) until the file ends.
func followSources(path string, m *session.Session, stderr io.Writer) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "prism: %s: %v\n", EnvSources, err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kind, arg, _ := strings.Cut(sc.Text(), " ")
		spec := session.SourceSpec{Kind: kind}
		switch kind {
		case session.SourceGenerator:
			spec.Generator = arg
		case session.SourceFile:
			spec.File = arg
		default:
			fmt.Fprintf(stderr, "prism: %s: %q: want \"generator SPEC\" or \"file PATH\"\n", EnvSources, sc.Text())
			continue
		}
		if _, err := m.SetSource(spec); err != nil {
			fmt.Fprintf(stderr, "prism: %s: %v\n", EnvSources, err)
		}
	}
}

// ReferenceDir is where the window keeps its references between
// sessions: prism/references in the user's configuration directory
// (os.UserConfigDir), made when the first is kept; "" where there is no
// such directory (the references then last one session).
func ReferenceDir() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "prism", "references")
}

func joinNotices(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
