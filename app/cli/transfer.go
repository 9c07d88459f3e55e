package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
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
	fs := newFlags("transfer", transferUsage, stderr)
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
	registerForce(fs, &f.force)
	registerEngine(fs, &f.engine, &f.device, "device")
	pos, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := usageError("transfer", stderr)
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
	if err := checkReplace(f.force, f.out); err != nil {
		return usage("%v", err)
	}
	sess, ok := openSession("transfer", f.engine, f.device, f.quiet || f.json, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.end()
	res, err := transfer.AnalyzeFiles(sess.ctx, in, o, sess.engines)
	warn(stderr, res.Warnings)
	if err != nil {
		return failure(stderr, err)
	}
	if err := writeTransfer(f.out, format, res, pos, f.force); err != nil {
		fmt.Fprintf(stderr, "prism: transfer: %v\n", err)
		return ExitFailure
	}
	switch {
	case f.json:
		b, err := json.Marshal(transferJSON(res))
		if err != nil {
			fmt.Fprintf(stderr, "prism: transfer: %v\n", err)
			return ExitFailure
		}
		fmt.Fprintln(stdout, string(b))
	case !f.quiet:
		for _, ch := range res.Channels {
			fmt.Fprintln(stdout, transferSummary(res, ch))
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
	if o.Average, err = dsp.ParseTransferAverage(f.average); err != nil {
		return in, o, fmt.Errorf("--average: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	if o.Smoothing, err = dsp.ParseSmoothing(f.smoothing); err != nil {
		return in, o, fmt.Errorf("--smoothing: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	if f.delay == "auto" {
		o.DelayAuto = true
	} else if o.DelayMs, err = strconv.ParseFloat(f.delay, 64); err != nil || math.IsNaN(o.DelayMs) || math.IsInf(o.DelayMs, 0) {
		return in, o, fmt.Errorf("--delay %q: want auto or a delay in ms", f.delay)
	}
	return in, o, nil
}

// transferColumns are the output's column names: freq_hz, then per
// channel magnitude_db, phase_deg, coherence, suffixed _chC when there
// are several channels.
func transferColumns(res transfer.Result) []string {
	cols := []string{"freq_hz"}
	for _, ch := range res.Channels {
		suffix := ""
		if len(res.Channels) > 1 {
			suffix = "_ch" + strconv.Itoa(ch.Index)
		}
		cols = append(cols, "magnitude_db"+suffix, "phase_deg"+suffix, "coherence"+suffix)
	}
	return cols
}

func writeTransfer(path string, format encode.Format, res transfer.Result, inputs []string, force bool) error {
	out, err := encode.CreateWith(path, encode.CreateOptions{Inputs: inputs, Force: force})
	if err != nil {
		return err
	}
	defer out.Discard()
	switch format {
	case encode.FormatCSV:
		fmt.Fprintln(out.W, strings.Join(transferColumns(res), ","))
		for k, hz := range res.FreqHz {
			fmt.Fprint(out.W, strconv.FormatFloat(hz, 'f', -1, 64))
			for _, ch := range res.Channels {
				fmt.Fprintf(out.W, ",%s,%s,%s", strconv.FormatFloat(ch.MagnitudeDB[k], 'f', 4, 64),
					strconv.FormatFloat(ch.PhaseDeg[k], 'f', 3, 64), strconv.FormatFloat(ch.Coherence[k], 'f', 6, 64))
			}
			fmt.Fprintln(out.W)
		}
	case encode.FormatNPY:
		cols := 1 + 3*len(res.Channels)
		if _, err := out.W.Write(encode.NPYHeader(len(res.FreqHz), cols)); err != nil {
			return err
		}
		row := make([]byte, 4*cols)
		put := func(i int, v float64) { binary.LittleEndian.PutUint32(row[4*i:], math.Float32bits(float32(v))) }
		for k, hz := range res.FreqHz {
			put(0, hz)
			for c, ch := range res.Channels {
				put(1+3*c, ch.MagnitudeDB[k])
				put(2+3*c, ch.PhaseDeg[k])
				put(3+3*c, ch.Coherence[k])
			}
			if _, err := out.W.Write(row); err != nil {
				return err
			}
		}
	case encode.FormatPNG:
		if err := encode.PNG(out.W, transferPlot(res, filepath.Base(path))); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-o %s: unknown format", path)
	}
	return out.Commit()
}

// transferPlot stacks three line plots: magnitude (dB), phase (degrees)
// and coherence (γ²), one trace per channel.
func transferPlot(res transfer.Result, name string) *image.RGBA {
	var mag, phase, coh [][]float64
	var names []string
	for _, ch := range res.Channels {
		pct := make([]float64, len(ch.Coherence)) // in percent: the axis ticks read 0…100
		for k, v := range ch.Coherence {
			pct[k] = 100 * v
		}
		mag, phase, coh = append(mag, ch.MagnitudeDB), append(phase, ch.PhaseDeg), append(coh, pct)
		names = append(names, "ch"+strconv.Itoa(ch.Index))
	}
	lo, hi := magnitudeRange(res)
	title := name + ": magnitude; " + transferSummary(res, res.Channels[0])
	if len(res.Channels) > 1 {
		title = fmt.Sprintf("%s: magnitude; %d channels, %d frames of %d", name, len(res.Channels), res.Frames, res.FFT)
	}
	opts := func(lo, hi float64, unit, title string) plot.LineOptions {
		return plot.LineOptions{Width: 1200, Height: 280, Scale: plot.Log, DBMin: lo, DBMax: hi, Unit: unit, Title: title}
	}
	parts := []*image.RGBA{
		plot.Lines(opts(lo, hi, "dB", title), res.SampleRate, res.FFT, res.FreqHz, mag, names),
		plot.Lines(opts(-180, 180, "deg", "phase (wrapped, the delay taken out)"), res.SampleRate, res.FFT, res.FreqHz, phase, names),
		plot.Lines(opts(0, 100, "%", "coherence γ²"), res.SampleRate, res.FFT, res.FreqHz, coh, names),
	}
	h := 0
	for _, p := range parts {
		h += p.Bounds().Dy()
	}
	img := image.NewRGBA(image.Rect(0, 0, parts[0].Bounds().Dx(), h))
	y := 0
	for _, p := range parts {
		draw.Draw(img, p.Bounds().Add(image.Pt(0, y)), p, image.Point{}, draw.Src)
		y += p.Bounds().Dy()
	}
	return img
}

// magnitudeRange spans the magnitudes of the coherent bins the log axis
// shows (20 Hz up, γ² ≥ 0.5, or all when none is), in steps of 10 dB, at
// least 40 dB.
func magnitudeRange(res transfer.Result) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, pass := range []float64{0.5, -1} {
		for _, ch := range res.Channels {
			for k, v := range ch.MagnitudeDB {
				if ch.Coherence[k] >= pass && v > dsp.FloorDB && res.FreqHz[k] >= 20 {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
		if lo <= hi {
			break
		}
	}
	if !(lo <= hi) {
		return -40, 10
	}
	hi = math.Ceil(hi/10)*10 + 10
	lo = min(hi-40, math.Floor(lo/10)*10-10)
	return lo, hi
}

func transferSummary(res transfer.Result, ch transfer.Channel) string {
	delay := "no delay found"
	if ch.Delay.Found {
		pol := "normal"
		switch {
		case ch.Delay.Polarity < 0:
			pol = "inverted"
		case ch.Delay.Polarity == 0:
			pol = "unknown (no clear peak)"
		}
		how := "found"
		if ch.Given {
			how = "given"
		}
		ms := ch.DelayMs(res.SampleRate)
		delay = fmt.Sprintf("delay %.4f ms (%.2f samples, %.3f m at %g m/s, %s), polarity %s", ms, ch.Delay.Samples,
			ch.Delay.Metres(float64(res.SampleRate), dsp.SpeedOfSound), dsp.SpeedOfSound, how, pol)
	}
	return fmt.Sprintf("channel %d: %s; mean coherence %.4f; %d frames of %d (hop %d)",
		ch.Index, delay, ch.MeanCoherence, res.Frames, res.FFT, res.Hop)
}

// transferJSON is the --json summary: scalars for one channel, arrays in
// channel order (and "channels") for several.
func transferJSON(res transfer.Result) map[string]any {
	type one struct {
		ms, samples, polarity any
		coh                   float64
		found, given          bool
	}
	var rows []one
	for _, ch := range res.Channels {
		r := one{coh: transferRound(ch.MeanCoherence, 6), found: ch.Delay.Found && !ch.Given, given: ch.Given}
		if ch.Delay.Found {
			r.ms, r.samples = transferRound(ch.DelayMs(res.SampleRate), 6), transferRound(ch.Delay.Samples, 4)
			if ch.Delay.Polarity != 0 {
				r.polarity = ch.Delay.Polarity
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 1 {
		r := rows[0]
		return map[string]any{"delay_ms": r.ms, "delay_samples": r.samples, "polarity": r.polarity,
			"mean_coherence": r.coh, "delay_found": r.found, "delay_given": r.given}
	}
	out := map[string]any{}
	var chans []int
	var ms, samples, pol, coh, found, given []any
	for i, r := range rows {
		chans = append(chans, res.Channels[i].Index)
		ms, samples, pol = append(ms, r.ms), append(samples, r.samples), append(pol, r.polarity)
		coh, found, given = append(coh, r.coh), append(found, r.found), append(given, r.given)
	}
	out["channels"], out["delay_ms"], out["delay_samples"], out["polarity"] = chans, ms, samples, pol
	out["mean_coherence"], out["delay_found"], out["delay_given"] = coh, found, given
	return out
}

func transferRound(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
