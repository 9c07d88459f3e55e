package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/internal/message"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// captureTransferFlags are `prism capture --transfer`'s flags.
type captureTransferFlags struct {
	on              bool
	refChannel      int
	average         string
	frames          int
	averageTime     float64
	averageSelected dual.TransferAverage
	fs              *flag.FlagSet // to tell --frames given from its default
}

func (f *captureTransferFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "transfer", false, "measure the transfer function of --channels against --ref-channel (live, averaged; the outputs of prism transfer)")
	fs.IntVar(&f.refChannel, "ref-channel", 0, "with --transfer: the reference channel (0-based)")
	fs.StringVar(&f.average, "average", "complex", "with --transfer: complex (vector, H1) or polar averaging")
	fs.IntVar(&f.frames, "frames", 32, fmt.Sprintf("with --transfer: frames averaged (FIFO), 1…%d", gpufft.MaxTransferFrames))
	fs.Float64Var(&f.averageTime, "average-time", 0, "with --transfer: an exponential average of this time constant in seconds instead of the FIFO of --frames (each frame weighs 1 − e^(−hop/(rate·SECONDS)))")
	f.fs = fs
}

// channels reads --channels: a count of input channels, or with
// --transfer the measurement channels, and then the count is what the
// largest index needs (at least 2).
func (f *captureTransferFlags) channels(arg string) (count int, meas []int, err error) {
	if !f.on {
		if arg == "" {
			return 0, nil, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil {
			return 0, nil, fmt.Errorf("--channels %q: want a number of input channels", arg)
		}
		return n, nil, nil
	}
	if f.refChannel < 0 {
		return 0, nil, fmt.Errorf("--ref-channel %d: want a channel index ≥ 0", f.refChannel)
	}
	count = max(2, f.refChannel+1)
	if arg != "" {
		for _, s := range strings.Split(arg, ",") {
			c, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || c < 0 || c == f.refChannel {
				return 0, nil, fmt.Errorf("--channels %q: want channel indices ≥ 0 other than the reference %d, comma-separated", arg, f.refChannel)
			}
			meas = append(meas, c)
			count = max(count, c+1)
		}
	}
	return count, meas, nil
}

// check validates the transfer flags with the output's format.
func (f *captureTransferFlags) check(format encode.Format) error {
	var err error
	if f.averageSelected, err = dual.ParseTransferAverage(f.average); err != nil {
		return fmt.Errorf("--average: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	if f.frames < 1 || f.frames > gpufft.MaxTransferFrames {
		return fmt.Errorf("--frames %d: want 1…%d", f.frames, gpufft.MaxTransferFrames)
	}
	if f.averageTime != 0 {
		if !(f.averageTime > 0 && f.averageTime <= 3600) { // NaN too
			return fmt.Errorf("--average-time %g: want a time constant in seconds, 0…3600", f.averageTime)
		}
		framesGiven := false
		f.fs.Visit(func(fl *flag.Flag) { framesGiven = framesGiven || fl.Name == "frames" })
		if framesGiven {
			return errors.New("--average-time and --frames: choose the exponential or the FIFO average")
		}
	}
	if format != encode.FormatCSV && format != encode.FormatNPY && format != encode.FormatPNG {
		return fmt.Errorf("-o: --transfer writes .csv, .npy or .png")
	}
	return nil
}

// settings are the live analyzer's settings at sampleRate (Hz): the
// delay re-found after every batch (TrackEvery 1), and with
// --average-time the exponential average of that time constant.
func (f *captureTransferFlags) settings(o analysis.AnalyzeOptions, meas []int, sampleRate int) transfer.LiveSettings {
	s := transfer.LiveSettings{FFT: o.FFT, Hop: o.Hop, Window: o.Window, RefChannel: f.refChannel, Channels: meas,
		Average: f.averageSelected, Frames: f.frames, Track: true, TrackEvery: 1}
	if f.averageTime > 0 {
		s.Frames, s.ExpAlpha = 0, dual.ExpAlpha(f.averageTime, o.Hop, sampleRate)
	}
	return s
}

// captureTransfer runs the live measurement and writes prism transfer's
// outputs (writeTransfer) and, with --stats, the statistics with the
// delay summary (transferJSON's keys) on stdout.
func captureTransfer(sess *kit.Session, rec *audio.Recorder, ts transfer.LiveSettings, seconds float64, out string, format encode.Format, force, stats, quiet bool, stdout, stderr io.Writer) int {
	if ts.RefChannel >= rec.Channels() {
		fmt.Fprintf(stderr, "prism: capture: --ref-channel %d: the source has %d channels\n", ts.RefChannel, rec.Channels())
		return ExitUsage
	}
	var log io.Writer
	if !quiet {
		log = stderr
	}
	lr, st, err := transfer.Capture(sess.Ctx, rec, sess.Engines, ts, seconds, log)
	if err != nil && lr.Frames == 0 {
		return captureDone(st, err, false, out, stdout, stderr)
	}
	res := lr.Result()
	if werr := transfer.WriteFile(out, format, res, nil, force); werr != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", werr)
		return ExitFailure
	}
	if !quiet {
		for _, ch := range res.Channels {
			fmt.Fprintln(stderr, "prism: "+transfer.Summary(res, ch))
		}
	}
	incomplete := errors.Is(err, live.ErrIncomplete)
	if stats && (err == nil || incomplete) { // an incomplete run says what it lost
		b, _ := json.Marshal(st)
		obj := map[string]any{}
		if jerr := json.Unmarshal(b, &obj); jerr != nil {
			fmt.Fprintf(stderr, "prism: capture: %v\n", jerr)
			return ExitFailure
		}
		for k, v := range transfer.JSON(res) {
			obj[k] = v
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(obj)
	}
	if incomplete {
		fmt.Fprintf(stderr, "prism: capture: %v; %s written with what was averaged\n", err, message.Quote(out))
		return ExitFailure
	}
	return captureDone(st, err, false, out, stdout, stderr)
}
