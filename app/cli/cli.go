package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/prismaudio/prism/internal/message"

	archivecmd "github.com/prismaudio/prism/app/cli/archive"
	"github.com/prismaudio/prism/app/cli/bandwidthcmd"
	"github.com/prismaudio/prism/app/cli/devicescmd"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/cli/measure"
	"github.com/prismaudio/prism/app/cli/pitchcmd"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/proc"
)

// Exit codes of every command (kit's).
const (
	ExitOK      = kit.ExitOK
	ExitFailure = kit.ExitFailure // runtime failure
	ExitUsage   = kit.ExitUsage   // bad usage or bad input
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
		{"devices", "list OpenCL and audio devices", devicescmd.Run},
		{"spectrum", "power-averaged (Welch) spectrum of a file: dBFS, dBFS/Hz or dB SPL, as CSV, NPY or PNG", runSpectrum},
		{"levels", "sample peak, true peak, RMS and EBU R128 loudness of a file", runLevels},
		{"bandwidth", "the bandwidth verdict of files: where their content ends, and whether the cut-off looks like a lossy encoder's low-pass", bandwidthcmd.Run},
		{"distortion", "THD, THD+N, SNR and SINAD of a sine in a file", runDistortion},
		{"transfer", "dual-channel measurement: transfer function (magnitude, phase, coherence) and delay of channels against a reference, as CSV, NPY or PNG", runTransfer},
		{"sweep", "an exponential sine sweep (Farina) and its inverse filter, as WAV", measure.Sweep},
		{"ir", "impulse response of a sweep recording; harmonic distortion versus frequency; cumulative spectral decay", measure.IR},
		{"pitch", "fundamental frequency (f0) over time by YIN, as CSV: time_s,f0_hz,confidence", pitchcmd.Run},
		{"room", "room-acoustic parameters of an impulse response: EDT, T20, T30, C50, C80, D50 per band (ISO 3382), decay PNG, frequency response", measure.Room},
		{"ltsa", "long-term spectral average of an archive (absolute time, calibrated, sharded): NetCDF, NPY or PNG; ltsa merge joins shards", archivecmd.LTSA},
		{"hmd", "hybrid millidecade spectra of an archive, one NetCDF file per UTC day with percentiles", archivecmd.HMD},
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
	n := len(args)
	args = withoutVerbose(args)
	kit.SetVerbose(len(args) != n)
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
