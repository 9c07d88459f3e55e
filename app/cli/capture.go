package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/prismaudio/prism/internal/message"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/capture"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/tfrfile"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/internal/bench"
)

const captureUsage = `  prism capture -o OUT.png|.npy|.csv --seconds S [flags]
  prism capture --mode multires|vqt|reassigned --seconds S --stats [mode flags]
  prism capture --transfer --ref-channel R [--channels C,…] -o OUT.csv|.npy|.png
      [--average polar|complex] [--frames K | --average-time S] [--seconds S]
      [--stats] [flags]
  Records a live spectrogram of the input (a device, or --generator).
  With --transfer: a live dual-channel measurement of each measurement
  channel against the reference channel (0-based; the input opens as many
  channels as the largest index needs, at least 2), averaged over the
  last K frames (--frames, 1…256) or exponentially (--average-time S,
  the time constant in seconds) on the engine, the delay re-found after
  every batch and taken out; at the end the same outputs as prism transfer: CSV header
  freq_hz,magnitude_db,phase_deg,coherence (each name but freq_hz with
  _chC for several channels), NPY of those columns, or PNG plots; --stats
  adds delay_ms, delay_samples, polarity, mean_coherence (and delay_found,
  delay_given; arrays for several channels, as prism transfer --json) to
  the statistics. A stimulus: --generator pinkperiodic:N:DB with --fft N
  and --window rect plays one period per frame.
  With --mode: that analysis mode (flags as prism analyze --mode) runs
  live beside the live analysis for S seconds; no file is written, --stats
  prints the mode's statistics (dropped input frames, latency).
`

func runCapture(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("capture", captureUsage, stderr)
	var af analysisFlags
	af.register(fs, "opencl-device")
	out := fs.String("o", "", "output file: .png, .npy or .csv")
	seconds := fs.Float64("seconds", 5, "seconds of audio to record")
	device := fs.String("device", "", "audio input: index or name substring from `prism devices` (default: the default input)")
	rate := fs.Int("rate", 0, "sample rate in Hz (default: the device's)")
	channelsArg := fs.String("channels", "", "input channels (default: up to 2); with --transfer the measurement channels C,… (0-based; default every channel but the reference)")
	gen := fs.String("generator", "", "use the signal generator instead of a device: sine:F:DB, tones:F1,F2:DB, sweep:F0:F1:DB[:S], white:DB, pink:DB, pinkperiodic:N:DB, mls:K:DB")
	var tf captureTransferFlags
	tf.register(fs)
	stats := fs.Bool("stats", false, "print the analysis statistics as JSON on stdout at the end")
	levelsEvery := fs.Duration("levels-every", 0, "also write a level log (as prism levels --every DUR --csv) of the channel (0 for the mix) beside OUT: OUT's name with .levels.csv")
	quiet := fs.Bool("quiet", false, "no progress messages")
	var prof bench.Profiles
	prof.Register(fs)
	var mf tfrfile.Flags // --mode and its parameters (capture_modes.go)
	mf.Register(fs)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("capture", stderr)
	if len(pos) > 0 {
		return usage("unexpected argument %q", pos[0])
	}
	if code, done := runCaptureMode(fs, &mf, &af, captureSource{*device, *rate, *channelsArg, *gen}, *seconds, *stats, *quiet, *out, stdout, stderr); done {
		return code
	}
	format, ok := encode.FormatOf(*out)
	if *out == "" || !ok {
		return usage("-o OUT with .png, .npy or .csv is required")
	}
	channels, meas, opts, err := captureArgs(*seconds, *rate, *channelsArg, &af, &tf, format, *out)
	if err != nil {
		return usage("%v", err)
	}
	if *levelsEvery < 0 || (*levelsEvery > 0 && tf.on) {
		return usage("--levels-every: a duration > 0, without --transfer")
	}
	open, code, ok := openCaptureSource(*device, *rate, channels, *gen, stderr)
	if !ok {
		return code
	}
	stopProfiles, ok := startProfiles(&prof, "capture", stderr)
	if !ok {
		return ExitFailure
	}
	defer stopProfiles()
	sess, ok := kit.OpenSession("capture", af.engine, af.device, *quiet, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.Close()
	sess.Written.Expect(*out)
	engines := sess.Engines
	rec, err := audio.StartRecorder(open, 2)
	if err != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", err)
		return ExitFailure
	}
	defer rec.Stop()
	if tf.on {
		ts := tf.settings(opts, meas, rec.SampleRate())
		return captureTransfer(sess, rec, ts, *seconds, *out, format, opts.Force, *stats, *quiet, stdout, stderr)
	}
	if opts.Channel >= rec.Channels() {
		return usage("--channel %d: the source has %d channels", opts.Channel, rec.Channels())
	}
	co := capture.Options{FFT: opts.FFT, Hop: opts.Hop, Window: opts.Window, Channel: opts.Channel, Image: opts.Image,
		Seconds: *seconds, Out: *out, Format: format, Force: opts.Force, LevelsEvery: *levelsEvery}
	if !*quiet {
		co.Log = stderr
	}
	st, err := capture.Run(sess.Ctx, rec, engines, co)
	return captureDone(st, err, *stats, *out, stdout, stderr)
}

// captureArgs checks capture's arguments and returns the input channels
// to open, the measurement channels (--transfer) and the analysis options.
func captureArgs(seconds float64, rate int, channelsArg string, af *analysisFlags, tf *captureTransferFlags, format encode.Format, out string) (int, []int, analysis.AnalyzeOptions, error) {
	var opts analysis.AnalyzeOptions
	if !(seconds > 0 && seconds <= 24*3600) { // NaN too
		return 0, nil, opts, fmt.Errorf("--seconds %g: want 0…86400", seconds)
	}
	channels, meas, err := tf.channels(channelsArg)
	if err != nil {
		return 0, nil, opts, err
	}
	if rate < 0 || channels < 0 {
		return 0, nil, opts, errors.New("--rate and --channels must be positive")
	}
	if opts, err = af.options(); err == nil && tf.on {
		err = tf.check(format)
	}
	if err == nil {
		err = kit.CheckReplace(opts.Force, out)
	}
	return channels, meas, opts, err
}

// openCaptureSource opens the capture's source, a device or the
// generator, or says why not: exit 1 where the machine has no input at
// all, 2 for a --device that matches none or a bad --generator.
func openCaptureSource(device string, rate, channels int, gen string, stderr io.Writer) (func() (audio.Source, error), int, bool) {
	open, notice, err := live.OpenSource(device, rate, channels, gen)
	if err != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", err)
		if errors.Is(err, audio.ErrNoInputDevice) && device == "" {
			return nil, ExitFailure, false
		}
		return nil, ExitUsage, false
	}
	if notice != "" {
		fmt.Fprintf(stderr, "prism: %s\n", notice)
	}
	return open, ExitOK, true
}

// startProfiles starts --cpuprofile and --trace, saying why not.
func startProfiles(p *bench.Profiles, name string, stderr io.Writer) (func(), bool) {
	stop, err := p.Start()
	if err != nil {
		fmt.Fprintf(stderr, "prism: %s: %v\n", name, err)
		return nil, false
	}
	return stop, true
}

// captureDone reports a capture's end: the statistics (with --stats) and
// the exit code. An incomplete capture (the source stopped for good) has
// its output written and says so, with exit 1; outages the capture got
// over are said too, with exit 0.
func captureDone(st live.Stats, err error, stats bool, out string, stdout, stderr io.Writer) int {
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "prism: capture: interrupted: %s not written\n", message.Quote(out))
		return ExitFailure
	}
	incomplete := errors.Is(err, live.ErrIncomplete)
	if err != nil && !incomplete {
		fmt.Fprintf(stderr, "prism: capture: %v\n", err)
		return ExitFailure
	}
	if stats {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(st)
	}
	if incomplete {
		fmt.Fprintf(stderr, "prism: capture: %v; %s written with what was captured, the rest as gap rows\n", err, out)
		return ExitFailure
	}
	if st.Outages > 0 {
		fmt.Fprintf(stderr, "prism: capture: warning: %d outage(s), %.3f s without input in all, kept in %s as gap rows\n",
			st.Outages, float64(st.DroppedOutageFrames)/float64(st.SampleRate), out)
	}
	if n := st.BandLimitNotice(); n != "" {
		fmt.Fprintf(stderr, "prism: capture: warning: %s\n", n)
	}
	return ExitOK
}
