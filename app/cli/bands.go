package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/internal/proc"
)

func runBands(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("bands", "  prism bands IN -o OUT.csv [--fraction 1|2|3|6|12|24|48] [--weighting A|C|Z] [--cal FILE] [--cal-dbspl LEVEL | --calibrator REC.wav] [flags]\n", stderr)
	out := fs.String("o", "", "output CSV: nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved")
	fraction := fs.Int("fraction", 3, "bands per octave: 1, 2, 3, 6, 12, 24 or 48")
	weighting := fs.String("weighting", dsp.DefaultWeighting.String(), "frequency weighting (IEC 61672-1): A, C or Z")
	channel := fs.String("channel", "mix", "channel: mix or a 0-based index")
	fft := fs.Int("fft", 0, fmt.Sprintf("FFT size (default: fine enough for the lowest band, up to %d)", engine.MaxFFT))
	minF := fs.Float64("min-freq", 20, "lowest mid-band frequency, Hz")
	maxF := fs.Float64("max-freq", 20000, "highest mid-band frequency, Hz")
	var cal calFlags
	cal.register(fs, "channel as --channel or 0")
	var choice, device string
	kit.RegisterEngine(fs, &choice, &device, "device")
	var force bool
	kit.RegisterForce(fs, &force)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("bands", stderr)
	if len(pos) != 1 {
		return usage("want one input file (prism bands IN -o OUT.csv)")
	}
	if *out == "" || !strings.HasSuffix(strings.ToLower(*out), ".csv") {
		return usage("-o OUT.csv is required")
	}
	o := analysis.BandsOptions{Fraction: *fraction, FFT: *fft, MinFreq: *minF, MaxFreq: *maxF}
	if err := checkBandsFlags(&o, *weighting, *channel, &cal); err != nil {
		return usage("%v", err)
	}
	var err error
	if o.Cal, err = cal.level(o.Channel); err != nil {
		return kit.Failure(stderr, err)
	}
	if o.Mic, err = cal.mic(); err != nil {
		return kit.Failure(stderr, err)
	}
	if err := engine.CheckChoice(choice); err != nil {
		return usage("--engine: %v", err)
	}
	if err := kit.CheckReplace(force, *out); err != nil {
		return usage("%v", err)
	}
	sess, ok := kit.OpenSession("bands", kit.ChooseEngine("bands", choice, pos[:1], kit.Verbose(), stderr), device, false, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.End() // the output is in place (or discarded) by then
	sess.Written.Expect(*out)
	src, remove, err := proc.Spool(sess.Ctx, pos[0]) // the bands read the file twice
	if err != nil {
		return kit.Failure(stderr, err)
	}
	defer remove()
	res, err := analysis.AnalyzeBands(sess.Ctx, src, o, sess.Engines)
	err = proc.Renamed(err, src, pos[0])
	kit.Warn(stderr, proc.RenameAll(res.Warnings, src, pos[0]))
	if errors.Is(err, context.Canceled) {
		return kit.Interrupted(stderr, "bands", *out)
	}
	if err != nil {
		return kit.Failure(stderr, err)
	}
	under, err := writeBands(*out, pos[0], res.Levels, force)
	if errors.Is(err, encode.ErrOutputIsInput) {
		return usage("%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism: bands: %v\n", err)
		return ExitFailure
	}
	bandsNotes(stderr, &cal, o, res, under)
	return ExitOK
}

// bandsNotes says on stderr what level_db is in, with a calibration, and
// how many bands are under-resolved.
func bandsNotes(stderr io.Writer, cal *calFlags, o analysis.BandsOptions, res analysis.BandsResult, under int) {
	if cal.hasLevel() || o.Mic != nil {
		unit := "dB SPL"
		if !cal.hasLevel() {
			unit = "dBFS"
		}
		fmt.Fprintf(stderr, "prism: bands: level_db in %s: %s\n", unit, cal.describe(o.Cal, o.Mic))
	}
	if under > 0 {
		fmt.Fprintf(stderr, "prism: bands: %d band(s) span fewer than 4 bins of the %s (marked under_resolved); %s\n", under, bandsTransform(res), bandsAdvice(o))
	}
}

// checkBandsFlags validates the flags that need no file into o.
func checkBandsFlags(o *analysis.BandsOptions, weighting, channel string, cal *calFlags) error {
	var err error
	if err := dsp.CheckFraction(o.Fraction); err != nil {
		return fmt.Errorf("--fraction: %v", err)
	}
	if o.Weighting, err = dsp.ParseWeighting(weighting); err != nil {
		return fmt.Errorf("--weighting: %v", err)
	}
	if o.Channel, err = kit.ParseChannel(channel); err != nil {
		return err
	}
	if o.FFT != 0 {
		if err := kit.CheckFFTFlags(o.FFT, 1); err != nil {
			return err
		}
	}
	if !(o.MinFreq > 0 && o.MinFreq <= o.MaxFreq) {
		return fmt.Errorf("--min-freq/--max-freq: want 0 < min ≤ max")
	}
	_, err = cal.checkLevel()
	return err
}

// bandsTransform names the transform of the lowest bands.
func bandsTransform(res analysis.BandsResult) string {
	if res.Decimation > 1 {
		return fmt.Sprintf("%d-point FFT of the signal decimated by %d", res.DecimatedFFT, res.Decimation)
	}
	return fmt.Sprintf("%d-point FFT", res.FFT)
}

// bandsAdvice says what would resolve more bands: the transform is as
// fine as the file allows unless --fft chose it.
func bandsAdvice(o analysis.BandsOptions) string {
	if o.FFT != 0 {
		return "use a larger --fft or a higher --min-freq"
	}
	return "the transform is already as long as the file allows: use a longer recording or a higher --min-freq"
}

// writeBands writes the bands CSV of input in and returns how many bands
// are under-resolved.
func writeBands(path, in string, levels []dsp.BandLevel, force bool) (int, error) {
	o, err := encode.CreateWith(path, encode.CreateOptions{Inputs: []string{in}, Force: force})
	if err != nil {
		return 0, err
	}
	defer o.Discard()
	fmt.Fprintf(o.W, "nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved\n")
	under := 0
	for _, l := range levels {
		ur := 0
		if l.UnderResolved {
			ur, under = 1, under+1
		}
		fmt.Fprintf(o.W, "%g,%.4f,%.4f,%.4f,%.2f,%d\n", l.Nominal, l.Exact, l.Lower, l.Upper, l.LevelDB, ur)
	}
	return under, o.Commit()
}
