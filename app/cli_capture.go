package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prismaudio/prism/audio"
)

// DefaultGenerator is the source used when there is no input device.
const DefaultGenerator = "sine:1000:-6"

// openSource returns the recorder's source: the generator when spec is set,
// else the capture device, else (no device at all, a normal state) the
// default generator with a notice saying so.
func openSource(device string, rate, channels int, spec string) (func() (audio.Source, error), string, error) {
	genOpen := func(spec string) (func() (audio.Source, error), error) {
		gs, err := audio.ParseGenerator(spec)
		if err != nil {
			return nil, err
		}
		r, c := rate, channels
		if r == 0 {
			r = 48000
		}
		if c == 0 {
			c = 2
		}
		if _, err := audio.NewGenerator(gs, r, c, true); err != nil {
			return nil, err
		}
		return func() (audio.Source, error) { return audio.NewGenerator(gs, r, c, true) }, nil
	}
	if spec != "" {
		open, err := genOpen(spec)
		return open, "", err
	}
	cfg := audio.CaptureConfig{Device: device, Rate: rate, Channels: channels}
	src, err := audio.OpenCapture(cfg)
	if err == nil {
		src.Close()
		return func() (audio.Source, error) { return audio.OpenCapture(cfg) }, "", nil
	}
	if device != "" || !errors.Is(err, audio.ErrNoInputDevice) {
		return nil, "", err
	}
	open, gerr := genOpen(DefaultGenerator)
	return open, fmt.Sprintf("%v: using the generator %s", err, DefaultGenerator), gerr
}

func runCapture(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("capture", "  prism capture -o OUT.png|.npy|.csv --seconds S [flags]\n", stderr)
	var af analysisFlags
	af.register(fs, "opencl-device")
	out := fs.String("o", "", "output file: .png, .npy or .csv")
	seconds := fs.Float64("seconds", 5, "seconds of audio to record")
	device := fs.String("device", "", "audio input: index or name substring from `prism devices` (default: the default input)")
	rate := fs.Int("rate", 0, "sample rate in Hz (default: the device's)")
	channels := fs.Int("channels", 0, "input channels (default: up to 2)")
	gen := fs.String("generator", "", "use the signal generator instead of a device: sine:F:DB, tones:F1,F2:DB, sweep:F0:F1:DB[:S], white:DB, pink:DB")
	stats := fs.Bool("stats", false, "print the analysis statistics as JSON on stdout at the end")
	quiet := fs.Bool("quiet", false, "no progress messages")
	pos, code, ok := parseCommand(fs, args)
	if !ok {
		return code
	}
	usage := usageError("capture", stderr)
	if len(pos) > 0 {
		return usage("unexpected argument %q", pos[0])
	}
	format, ok := FormatOf(*out)
	if *out == "" || !ok {
		return usage("-o OUT with .png, .npy or .csv is required")
	}
	if *seconds <= 0 || *seconds > 24*3600 {
		return usage("--seconds %g: want 0…86400", *seconds)
	}
	if *rate < 0 || *channels < 0 {
		return usage("--rate and --channels must be positive")
	}
	opts, err := af.options()
	if err != nil {
		return usage("%v", err)
	}
	open, notice, err := openSource(*device, *rate, *channels, *gen)
	if err != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", err)
		if errors.Is(err, audio.ErrNoInputDevice) {
			return ExitFailure
		}
		return ExitUsage
	}
	if notice != "" {
		fmt.Fprintf(stderr, "prism: %s\n", notice)
	}
	sess, ok := openSession("capture", af, *quiet, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.close()
	engines := sess.engines
	rec, err := audio.StartRecorder(open, 2)
	if err != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", err)
		return ExitFailure
	}
	defer rec.Stop()
	if opts.Channel >= rec.Channels() {
		return usage("--channel %d: the source has %d channels", opts.Channel, rec.Channels())
	}
	st, err := Capture(sess.ctx, rec, engines, opts, *seconds, *out, format, !*quiet, stderr)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "prism: capture: interrupted: no output written\n")
		return ExitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", err)
		return ExitFailure
	}
	if *stats {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(st)
	}
	return ExitOK
}

// Capture records `seconds` of the recorder's stream as a live spectrogram
// of opts.Channel (or the mix) into out, written to a temporary file and
// renamed on success. It returns the analysis statistics at the end.
func Capture(ctx context.Context, rec *audio.Recorder, engines Engines, opts AnalyzeOptions, seconds float64, out, format string, verbose bool, stderr io.Writer) (LiveStats, error) {
	rate := rec.SampleRate()
	total := int((int64(seconds*float64(rate))-int64(opts.FFT))/int64(opts.Hop) + 1)
	if total < 1 {
		return LiveStats{}, fmt.Errorf("%g s at %d Hz is shorter than one frame of %d", seconds, rate, opts.FFT)
	}
	s := DefaultLiveSettings()
	s.FFT, s.Hop, s.Window = opts.FFT, opts.Hop, opts.Window
	live, err := NewLive(rec, engines, s)
	if err != nil {
		return LiveStats{}, err
	}
	defer live.Close()

	of, err := createOutput(out)
	if err != nil {
		return LiveStats{}, err
	}
	defer of.Discard()
	w := of.w
	bins := opts.FFT/2 + 1
	var rw rowWriter
	switch format {
	case FormatNPY:
		rw, err = newNPYRows(w, bins)
	case FormatCSV:
		rw, err = newCSVRows(w, opts.FFT, opts.Hop, rate)
	default:
		o := opts.Image
		o.Title = fmt.Sprintf("capture: %s   N=%d  hop=%d  %v  %s", rec.Stats().Source, opts.FFT, opts.Hop, opts.Window, channelName(opts.Channel))
		layout, lerr := newPlotLayout(o, s.spectrogramConfig(), total, rate)
		if lerr != nil {
			return LiveStats{}, lerr
		}
		rw = newPNGRows(w, layout, bins)
	}
	if err != nil {
		return LiveStats{}, err
	}
	ch := rec.Channels() // the mix is output channel ch
	if opts.Channel >= 0 {
		ch = opts.Channel
	}
	written := 0
	var werr error
	live.onFrame = func(frame uint64, spectra []float32, bins int) {
		if written >= total || werr != nil {
			return
		}
		werr = rw.rows(written, spectra[ch*bins:(ch+1)*bins])
		written++
	}
	if verbose {
		fmt.Fprintf(stderr, "prism: capturing %.1f s from %s at %d Hz, %d channels, on %s\n", seconds, rec.Stats().Source, rate, rec.Channels(), engines.Preferred.Name())
	}
	for written < total && werr == nil {
		if err := ctx.Err(); err != nil {
			return live.Stats(), err
		}
		n, err := live.Step()
		if err != nil {
			return live.Stats(), err
		}
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	if werr != nil {
		return live.Stats(), werr
	}
	if err := rw.finish(of.tmp, written); err != nil {
		return live.Stats(), err
	}
	if err := of.Commit(); err != nil {
		return live.Stats(), err
	}
	st := live.Stats()
	if verbose {
		fmt.Fprintf(stderr, "prism: %s: %d frames; latency p50 %.2f ms, p99 %.2f ms; %d input frames dropped, %d overflows, %d stalls\n",
			out, written, st.LatencyP50Ms, st.LatencyP99Ms, st.DroppedFrames, st.Overflows, st.Stalls)
	}
	return st, nil
}
