package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/window"
)

const transferUsage = `  prism transfer IN --ref-channel R [--channels C,…] -o OUT.csv|.npy|.png
      [--fft N] [--overlap PCT] [--average polar|complex] [--smoothing 1/N]
      [--delay auto|MS] [--window W] [--json] [--engine E]
  prism transfer REF MEAS [--ref-channel R] [--channels C,…] -o OUT …
  Dual-channel measurement: the transfer function of each measurement channel
  against the reference channel (one file, or a reference file and a
  measurement file), averaged over the whole file: magnitude (dB), phase
  (degrees, wrapped, with the delay taken out) and coherence (γ², 0…1).
  Channels are 0-based; --channels defaults to every channel but the
  reference. --average complex is the H1 estimate mean(Gxy)/mean(Gxx)
  (uncorrelated noise averages out); polar averages the magnitude as power,
  √(mean Gyy/mean Gxx), and takes the phase of mean Gxy. --delay auto finds
  each channel's delay (GCC-PHAT, lags ±N/2 samples) and aligns the frames
  by it; a number is a delay in ms taken out of every channel; 0 keeps the
  raw phase. "No delay found" (no clear impulse-response peak) is reported
  as such, never as a number.
  CSV: freq_hz,magnitude_db,phase_deg,coherence for one measurement channel;
  for several, each name but freq_hz gets the channel's index,
  freq_hz,magnitude_db_chC,phase_deg_chC,coherence_chC,… in --channels order.
  NPY: the same columns as float32, one row per bin. PNG: magnitude, phase
  and coherence plots, one trace per channel.
  --json prints {"delay_ms","delay_samples","polarity","mean_coherence",
  "delay_found","delay_given"} on stdout: with --delay auto, null delay and
  polarity when none is found; with --delay MS, that delay (delay_given
  true) and the impulse response's polarity, null without a clear peak;
  mean_coherence is the mean γ² over 20 Hz…20 kHz. With several channels
  each key holds an array in --channels order, and "channels" lists them.
`

// transferFlags are `prism transfer`'s flags.
type transferFlags struct {
	out, channels, average, smoothing, delay, window string
	engine, device                                   string
	refChannel, fft                                  int
	overlap                                          float64
	json, quiet, force                               bool
}

func runTransfer(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("transfer", transferUsage, stderr)
	var f transferFlags
	fs.StringVar(&f.out, "o", "", "output: .csv, .npy (bins × [freq_hz, magnitude_db, phase_deg, coherence…], float32) or .png (plots)")
	fs.IntVar(&f.refChannel, "ref-channel", 0, "the reference channel (0-based) of IN, or of REF")
	fs.StringVar(&f.channels, "channels", "", "measurement channels C,… (0-based; default every channel but the reference)")
	fs.IntVar(&f.fft, "fft", 32768, fmt.Sprintf("FFT size: a power of two, %d…%d", engine.MinFFT, engine.MaxFFT))
	fs.Float64Var(&f.overlap, "overlap", 50, "frame overlap in percent, 0 ≤ PCT < 100")
	fs.StringVar(&f.average, "average", "complex", "averaging: complex (vector, H1) or polar (magnitude as power, phase of the vector mean)")
	fs.StringVar(&f.smoothing, "smoothing", "off", "fractional-octave smoothing of magnitude and phase: 1/N, N in 3…48, or off")
	fs.StringVar(&f.delay, "delay", "auto", "delay: auto (find it), or MS to take out (0: none)")
	fs.StringVar(&f.window, "window", "hann", "window: "+strings.Join(window.Names(), ", ")+" or kaiser:BETA")
	fs.BoolVar(&f.json, "json", false, "print the delay summary as JSON on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary on stdout")
	kit.RegisterForce(fs, &f.force)
	kit.RegisterEngine(fs, &f.engine, &f.device, "device")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("transfer", stderr)
	if len(pos) != 1 && len(pos) != 2 {
		return usage("want one input file, or a reference file and a measurement file (prism transfer IN -o OUT)")
	}
	format, ok := encode.FormatOf(f.out)
	if f.out == "" || !ok {
		return usage("-o OUT.csv, OUT.npy or OUT.png is required")
	}
	in, o, err := f.options(pos)
	if err != nil {
		return usage("%v", err)
	}
	if err := engine.CheckChoice(f.engine); err != nil {
		return usage("--engine: %v", err)
	}
	if err := kit.CheckReplace(f.force, f.out); err != nil {
		return usage("%v", err)
	}
	sess, ok := kit.OpenSession("transfer", f.engine, f.device, f.quiet || f.json, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.End()
	res, err := transfer.AnalyzeFiles(sess.Ctx, in, o, sess.Engines)
	kit.Warn(stderr, res.Warnings)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	if err := transfer.WriteFile(f.out, format, res, pos, f.force); err != nil {
		fmt.Fprintf(stderr, "prism: transfer: %v\n", err)
		return ExitFailure
	}
	switch {
	case f.json:
		b, err := json.Marshal(transfer.JSON(res))
		if err != nil {
			fmt.Fprintf(stderr, "prism: transfer: %v\n", err)
			return ExitFailure
		}
		fmt.Fprintln(stdout, string(b))
	case !f.quiet:
		for _, ch := range res.Channels {
			fmt.Fprintln(stdout, transfer.Summary(res, ch))
		}
	}
	return ExitOK
}

// options validates the flags that need no file.
func (f *transferFlags) options(pos []string) (transfer.Inputs, transfer.Options, error) {
	in := transfer.Inputs{Ref: pos[0], RefChannel: f.refChannel}
	if len(pos) == 2 {
		in.Measurement = pos[1]
	}
	o := transfer.Options{FFT: f.fft, OverlapPct: f.overlap}
	if f.refChannel < 0 {
		return in, o, fmt.Errorf("--ref-channel %d: want a channel index ≥ 0", f.refChannel)
	}
	if f.channels != "" {
		for _, s := range strings.Split(f.channels, ",") {
			c, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || c < 0 {
				return in, o, fmt.Errorf("--channels %q: want channel indices ≥ 0, comma-separated", f.channels)
			}
			if len(pos) == 1 && c == f.refChannel {
				return in, o, fmt.Errorf("--channels %q: channel %d is the reference", f.channels, c)
			}
			in.Channels = append(in.Channels, c)
		}
	}
	if err := engine.CheckFFT(f.fft, 1); err != nil {
		return in, o, fmt.Errorf("--fft %d: want a power of two from %d to %d", f.fft, engine.MinFFT, engine.MaxFFT)
	}
	if !(f.overlap >= 0 && f.overlap < 100) {
		return in, o, fmt.Errorf("--overlap %g: want 0 ≤ PCT < 100", f.overlap)
	}
	var err error
	if o.Window, err = window.Parse(f.window); err != nil {
		return in, o, fmt.Errorf("--window: %v", strings.TrimPrefix(err.Error(), "gpufft: "))
	}
	if o.Average, err = dual.ParseTransferAverage(f.average); err != nil {
		return in, o, fmt.Errorf("--average: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	if o.Smoothing, err = dual.ParseSmoothing(f.smoothing); err != nil {
		return in, o, fmt.Errorf("--smoothing: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	if f.delay == "auto" {
		o.DelayAuto = true
	} else if o.DelayMs, err = strconv.ParseFloat(f.delay, 64); err != nil || math.IsNaN(o.DelayMs) || math.IsInf(o.DelayMs, 0) {
		return in, o, fmt.Errorf("--delay %q: want auto or a delay in ms", f.delay)
	}
	return in, o, nil
}
