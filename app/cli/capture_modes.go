package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/app/tfrfile"
	"github.com/prismaudio/prism/audio"
)

// captureSource is capture's --device, --rate, --channels and --generator.
type captureSource struct {
	device      string
	rate        int
	channelsArg string
	gen         string
}

// runCaptureMode runs `prism capture --mode` when --mode names a mode
// other than stft (done true), with the analysis flags' --fft, --hop and
// --window as the live analysis's and the mode's. It takes no -o: what it
// measures is its statistics.
func runCaptureMode(fs *flag.FlagSet, mf *tfrfile.Flags, af *analysisFlags, src captureSource, seconds float64, stats, quiet bool, out string, stdout, stderr io.Writer) (int, bool) {
	usage := kit.UsageError("capture", stderr)
	opts, err := af.options()
	if err != nil {
		return usage("%v", err), true
	}
	cfg, on, err := mf.Config(fs, opts.FFT, opts.Hop, opts.Window)
	switch {
	case err != nil:
		return usage("%v", err), true
	case !on:
		return 0, false
	case out != "":
		return usage("-o: --mode %v measures the mode live (--stats) and writes no file", cfg.Mode), true
	case !(seconds > 0 && seconds <= 24*3600):
		return usage("--seconds %g: want 0…86400", seconds), true
	}
	channels := 0
	if src.channelsArg != "" {
		if channels, err = strconv.Atoi(src.channelsArg); err != nil || channels < 1 {
			return usage("--channels %q: want a channel count", src.channelsArg), true
		}
	}
	open, code, ok := openCaptureSource(src.device, src.rate, channels, src.gen, stderr)
	if !ok {
		return code, true
	}
	sess, ok := kit.OpenSession("capture", af.engine, af.device, quiet, stderr)
	if !ok {
		return ExitFailure, true
	}
	defer sess.Close()
	rec, err := audio.StartRecorder(open, 2)
	if err != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", err)
		return ExitFailure, true
	}
	defer rec.Stop()
	ls := live.DefaultSettings()
	ls.FFT, ls.Hop, ls.Window = opts.FFT, opts.Hop, opts.Window
	return captureMode(sess, rec, ls, cfg, seconds, stats, quiet, stdout, stderr), true
}

// captureMode is `prism capture --mode`: the mode run live on the
// recorder's stream for the seconds asked (package tfrlive), its
// statistics printed as JSON with --stats.
func captureMode(sess *kit.Session, rec *audio.Recorder, ls live.Settings, cfg tfr.Config, seconds float64, stats, quiet bool, stdout, stderr io.Writer) int {
	if !quiet {
		fmt.Fprintf(stderr, "prism: capture: %v live for %.1f s from %s at %d Hz, %d channels, on %s\n", cfg.Mode, seconds,
			rec.Stats().Source, rec.SampleRate(), rec.Channels(), sess.Engines.Preferred.Name())
	}
	st, backlog, err := tfrlive.Capture(sess.Ctx, rec, sess.Engines, ls, tfrlive.SettingsFrom(ls, cfg), seconds)
	if err != nil {
		return kit.Failure(stderr, fmt.Errorf("capture: %v: %w", cfg.Mode, err))
	}
	if stats {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return kit.Failure(stderr, fmt.Errorf("capture: %w", err))
		}
	}
	if !quiet {
		fmt.Fprintf(stderr, "prism: capture: %v: %d frames (%.0f in %g s at hop %d), %d input frames dropped, %d unread at the end, latency p50 %.1f ms, p99 %.1f ms\n",
			cfg.Mode, st.Frames, seconds*float64(rec.SampleRate())/float64(cfg.Hop), seconds, cfg.Hop, st.DroppedFrames, backlog, st.LatencyP50Ms, st.LatencyP99Ms)
	}
	return ExitOK
}
