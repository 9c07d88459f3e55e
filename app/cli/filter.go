package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/prismaudio/prism/internal/message"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
)

func runFilter(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("filter", "  prism filter IN -o OUT.wav --band SPEC [flags]\n\nSPEC: lowpass:F, highpass:F, bandpass:F1-F2, bandstop:F1-F2, octave:FC, third:FC, speech\n", stderr)
	out := fs.String("o", "", "output WAV")
	band := fs.String("band", "", "the band filter (see SPEC)")
	format := fs.String("format", "float", "output samples: float (32-bit float) or input (the input's WAV format)")
	trans := fs.Float64("transition", dsp.DefaultTransitionOct, "transition width in octaves beyond each edge (the stop band holds 60 dB from there), > 0")
	var choice, device string
	kit.RegisterEngine(fs, &choice, &device, "device")
	quiet := fs.Bool("quiet", false, "no summary")
	var force bool
	kit.RegisterForce(fs, &force)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("filter", stderr)
	switch {
	case len(pos) != 1:
		return usage("want one input file (prism filter IN -o OUT.wav --band SPEC)")
	case *out == "" || !strings.HasSuffix(strings.ToLower(*out), ".wav"):
		return usage("-o OUT.wav is required")
	case *band == "":
		return usage("--band SPEC is required")
	case *format != "float" && *format != "input":
		return usage("--format %q: want float or input", *format)
	case !(*trans > 0) || math.IsInf(*trans, 1):
		return usage("--transition %g: want a width > 0 octaves", *trans)
	case engine.CheckChoice(choice) != nil:
		return usage("--engine %q: want auto, gpu or cpu", choice)
	}
	if err := kit.CheckReplace(force, *out); err != nil {
		return usage("%v", err)
	}
	spec, err := dsp.ParseBand(*band) // Nyquist is checked per file
	if err != nil {
		return usage("%v", err)
	}
	sess, ok := kit.OpenSession("filter", kit.ChooseEngine("filter", choice, pos[:1], kit.Verbose(), stderr), device, *quiet, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.End() // the output is in place (or discarded) by then
	sess.Written.Expect(*out)
	o := analysis.FilterOptions{Band: spec, TransitionOct: *trans, KeepFormat: *format == "input", Force: force}
	res, err := analysis.FilterFile(sess.Ctx, pos[0], *out, o, sess.Engines)
	kit.Warn(stderr, res.Warnings)
	if errors.Is(err, context.Canceled) {
		return kit.Interrupted(stderr, "filter", *out)
	}
	if err != nil {
		return kit.Failure(stderr, err)
	}
	if !*quiet {
		fmt.Fprintf(stderr, "prism: %s → %s: %d frames filtered (%s)\n", message.Quote(pos[0]), message.Quote(*out), res.Frames, spec)
	}
	return ExitOK
}
