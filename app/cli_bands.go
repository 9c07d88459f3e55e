package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// BandsOptions configure a fractional-octave analysis.
type BandsOptions struct {
	Fraction  int    // 1, 3, 6, 12, 24
	Weighting string // "A", "C", "Z"
	Channel   int    // −1: the mix
	FFT       int    // 0: chosen from the lowest band
	MinFreq   float64
	MaxFreq   float64
}

// BandLevel is one row of `prism bands`.
type BandLevel struct {
	Band
	LevelDB       float64
	UnderResolved bool
}

// AnalyzeBands measures the average power of a file in fractional-octave
// bands (Hann frames, 50 % overlap) on the engine, weighted A, C or Z.
func AnalyzeBands(ctx context.Context, in string, o BandsOptions, eng gpufft.Engine) ([]BandLevel, int, error) {
	dec, err := audio.Open(in)
	if err != nil {
		return nil, 0, &InputError{err}
	}
	defer dec.Close()
	f := dec.Format()
	if o.Channel >= f.Channels {
		return nil, 0, inputErrorf("%s: no channel %d (the file has %d)", in, o.Channel, f.Channels)
	}
	nyq := float64(f.SampleRate) / 2
	bands, err := Bands(o.Fraction, o.MinFreq, min(o.MaxFreq, nyq), nyq)
	if err != nil {
		return nil, 0, &InputError{err}
	}
	if len(bands) == 0 {
		return nil, 0, inputErrorf("%s: no 1/%d-octave band between %g Hz and %g Hz at %d Hz sampling", in, o.Fraction, o.MinFreq, o.MaxFreq, f.SampleRate)
	}
	n := o.FFT
	if n == 0 {
		n = bandFFTSize(bands[0], f.SampleRate)
		// and no longer than the file: the lowest bands are then marked
		// under-resolved instead of the file being rejected
		frames := f.Frames
		if frames < 0 {
			if frames, err = countFrames(in); err != nil {
				return nil, 0, &InputError{err}
			}
		}
		for n > 64 && int64(n) > frames {
			n /= 2
		}
	}
	win := gpufft.Window{Kind: gpufft.Hann}
	sumW2 := 0.0
	for _, v := range win.Values(n) {
		sumW2 += v * v
	}
	acc, err := newBandAccumulator(bands, n, f.SampleRate, sumW2, o.Weighting)
	if err != nil {
		return nil, 0, &InputError{err}
	}
	st := newStreamer(dec, n, n/2, o.Channel)
	cfg := gpufft.SpectrogramConfig{Size: n, Hop: n / 2, Window: win, Channels: 1, Mix: true, MaxSamples: st.maxLen, Output: gpufft.Power}
	plan, err := eng.NewSpectrogram(cfg)
	if err != nil {
		return nil, n, &engineError{err}
	}
	defer plan.Close()
	power := make([]float32, cfg.DstLen(st.maxLen))
	err = st.run(func(b batch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		frames, err := plan.Execute(power, b.buf)
		if err != nil {
			return &engineError{err}
		}
		acc.add(power[:frames*cfg.Bins()], cfg.Bins())
		return nil
	})
	if err != nil {
		var fe *audio.FormatError
		if errors.As(err, &fe) {
			return nil, n, &InputError{err}
		}
		return nil, n, err
	}
	if acc.frames == 0 {
		return nil, n, inputErrorf("%s: %d samples per channel, fewer than one frame of %d", in, st.frames, n)
	}
	binHz := float64(f.SampleRate) / float64(n)
	out := make([]BandLevel, len(bands))
	for i, lv := range acc.levels() {
		out[i] = BandLevel{Band: bands[i], LevelDB: lv, UnderResolved: underResolved(bands[i], binHz)}
	}
	return out, n, nil
}

func runBands(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bands", "  prism bands IN -o OUT.csv [--fraction 1|3|6|12|24] [--weighting A|C|Z] [flags]\n", stderr)
	out := fs.String("o", "", "output CSV: nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved")
	fraction := fs.Int("fraction", 3, "bands per octave: 1, 3, 6, 12 or 24")
	weighting := fs.String("weighting", "Z", "frequency weighting (IEC 61672-1): A, C or Z")
	channel := fs.String("channel", "mix", "channel: mix or a 0-based index")
	fft := fs.Int("fft", 0, "FFT size (default: fine enough for the lowest band, up to 65536)")
	minF := fs.Float64("min-freq", 20, "lowest mid-band frequency, Hz")
	maxF := fs.Float64("max-freq", 20000, "highest mid-band frequency, Hz")
	engine := fs.String("engine", "auto", "engine: auto, gpu, cpu")
	device := fs.String("device", "", "OpenCL device: index or name substring")
	pos, code, ok := parseCommand(fs, args)
	if !ok {
		return code
	}
	usage := usageError("bands", stderr)
	if len(pos) != 1 {
		return usage("want one input file (prism bands IN -o OUT.csv)")
	}
	if *out == "" || !strings.HasSuffix(strings.ToLower(*out), ".csv") {
		return usage("-o OUT.csv is required")
	}
	o := BandsOptions{Fraction: *fraction, Weighting: strings.ToUpper(*weighting), Channel: -1, FFT: *fft, MinFreq: *minF, MaxFreq: *maxF}
	if _, err := Bands(o.Fraction, 1, 1, 2); err != nil {
		return usage("--fraction: %v", err)
	}
	if _, err := Weighting(o.Weighting, 1000); err != nil {
		return usage("--weighting: %v", err)
	}
	if *channel != "mix" {
		c, err := strconv.Atoi(*channel)
		if err != nil || c < 0 {
			return usage("--channel %q: want mix or an index ≥ 0", *channel)
		}
		o.Channel = c
	}
	if o.FFT != 0 && (o.FFT < 64 || o.FFT > 65536 || o.FFT&(o.FFT-1) != 0) {
		return usage("--fft %d: want a power of two from 64 to 65536", o.FFT)
	}
	if !(*minF > 0 && *minF <= *maxF) {
		return usage("--min-freq/--max-freq: want 0 < min ≤ max")
	}
	af := analysisFlags{engine: *engine, device: *device}
	if af.engine != "auto" && af.engine != "gpu" && af.engine != "cpu" {
		return usage("--engine %q: want auto, gpu or cpu", af.engine)
	}
	sess, ok := openSession("bands", af, false, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.close()
	ctx, engines := sess.ctx, sess.engines
	levels, n, err := AnalyzeBands(ctx, pos[0], o, engines.Preferred)
	if err != nil && isEngineError(err) && engines.Preferred != engines.CPU {
		fmt.Fprintf(stderr, "prism: warning: GPU failed: %v — using the CPU\n", err)
		levels, n, err = AnalyzeBands(ctx, pos[0], o, engines.CPU)
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism: %v\n", err)
		if errors.As(err, new(*InputError)) {
			return ExitUsage
		}
		return ExitFailure
	}
	of, err := createOutput(*out)
	if err != nil {
		fmt.Fprintf(stderr, "prism: bands: %v\n", err)
		return ExitFailure
	}
	defer of.Discard()
	fmt.Fprintf(of.w, "nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved\n")
	under := 0
	for _, l := range levels {
		ur := 0
		if l.UnderResolved {
			ur, under = 1, under+1
		}
		fmt.Fprintf(of.w, "%g,%.4f,%.4f,%.4f,%.2f,%d\n", l.Nominal, l.Exact, l.Lower, l.Upper, l.LevelDB, ur)
	}
	if err := of.Commit(); err != nil {
		fmt.Fprintf(stderr, "prism: bands: %v\n", err)
		return ExitFailure
	}
	if under > 0 {
		fmt.Fprintf(stderr, "prism: bands: %d band(s) span fewer than 4 bins of the %d-point FFT (marked under_resolved); use --fft 65536 or a higher --min-freq\n", under, n)
	}
	return ExitOK
}
