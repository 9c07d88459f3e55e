package app

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

func runFilter(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("filter", "  prism filter IN -o OUT.wav --band SPEC [flags]\n\nSPEC: lowpass:F, highpass:F, bandpass:F1-F2, bandstop:F1-F2, octave:FC, third:FC, speech\n", stderr)
	out := fs.String("o", "", "output WAV")
	band := fs.String("band", "", "the band filter (see SPEC)")
	format := fs.String("format", "float", "output samples: float (32-bit float) or input (the input's WAV format)")
	trans := fs.Float64("transition", DefaultTransitionOct, "transition width in octaves beyond each edge (the stop band holds 60 dB from there)")
	engine := fs.String("engine", "auto", "engine: auto, gpu, cpu")
	device := fs.String("device", "", "OpenCL device: index or name substring")
	quiet := fs.Bool("quiet", false, "no summary")
	pos, code, ok := parseCommand(fs, args)
	if !ok {
		return code
	}
	usage := usageError("filter", stderr)
	switch {
	case len(pos) != 1:
		return usage("want one input file (prism filter IN -o OUT.wav --band SPEC)")
	case *out == "" || !strings.HasSuffix(strings.ToLower(*out), ".wav"):
		return usage("-o OUT.wav is required")
	case *band == "":
		return usage("--band SPEC is required")
	case *format != "float" && *format != "input":
		return usage("--format %q: want float or input", *format)
	case *engine != "auto" && *engine != "gpu" && *engine != "cpu":
		return usage("--engine %q: want auto, gpu or cpu", *engine)
	}
	if _, err := ParseBand(*band, 1<<30); err != nil { // syntax; Nyquist is checked per file
		return usage("%v", err)
	}
	sess, ok := openSession("filter", analysisFlags{engine: *engine, device: *device}, *quiet, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.close()
	ctx, engines := sess.ctx, sess.engines
	o := FilterOptions{Band: *band, TransitionOct: *trans, KeepFormat: *format == "input"}
	n, err := FilterFile(ctx, pos[0], *out, o, engines.Preferred)
	if err != nil && isEngineError(err) && engines.Preferred != engines.CPU {
		fmt.Fprintf(stderr, "prism: warning: GPU failed: %v — using the CPU\n", err)
		n, err = FilterFile(ctx, pos[0], *out, o, engines.CPU)
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism: %v\n", err)
		if errors.As(err, new(*InputError)) {
			return ExitUsage
		}
		return ExitFailure
	}
	if !*quiet {
		fmt.Fprintf(stderr, "prism: %s → %s: %d frames filtered (%s)\n", pos[0], *out, n, *band)
	}
	return ExitOK
}
