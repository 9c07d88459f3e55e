package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
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
	averageSelected dsp.TransferAverage
}

func (f *captureTransferFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "transfer", false, "measure the transfer function of --channels against --ref-channel (live, averaged; the outputs of prism transfer)")
	fs.IntVar(&f.refChannel, "ref-channel", 0, "with --transfer: the reference channel (0-based)")
	fs.StringVar(&f.average, "average", "complex", "with --transfer: complex (vector, H1) or polar averaging")
	fs.IntVar(&f.frames, "frames", 32, fmt.Sprintf("with --transfer: frames averaged (FIFO), 1…%d", gpufft.MaxTransferFrames))
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
	if f.averageSelected, err = dsp.ParseTransferAverage(f.average); err != nil {
		return fmt.Errorf("--average: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	if f.frames < 1 || f.frames > gpufft.MaxTransferFrames {
		return fmt.Errorf("--frames %d: want 1…%d", f.frames, gpufft.MaxTransferFrames)
	}
	if format != encode.FormatCSV && format != encode.FormatNPY && format != encode.FormatPNG {
		return fmt.Errorf("-o: --transfer writes .csv, .npy or .png")
	}
	return nil
}

func (f *captureTransferFlags) settings(o analysis.AnalyzeOptions, meas []int) live.TransferSettings {
	return live.TransferSettings{FFT: o.FFT, Hop: o.Hop, Window: o.Window, RefChannel: f.refChannel, Channels: meas,
		Average: f.averageSelected, Frames: f.frames, Track: true}
}

// captureTransfer runs the live measurement and writes prism transfer's
// outputs (writeTransfer) and, with --stats, the statistics with the
// delay summary (transferJSON's keys) on stdout.
func captureTransfer(sess *session, rec *audio.Recorder, ts live.TransferSettings, seconds float64, out string, format encode.Format, force, stats, quiet bool, stdout, stderr io.Writer) int {
	if ts.RefChannel >= rec.Channels() {
		fmt.Fprintf(stderr, "prism: capture: --ref-channel %d: the source has %d channels\n", ts.RefChannel, rec.Channels())
		return ExitUsage
	}
	var log io.Writer
	if !quiet {
		log = stderr
	}
	lr, st, err := live.CaptureTransfer(sess.ctx, rec, sess.engines, ts, seconds, log)
	if err != nil && lr.Frames == 0 {
		return captureDone(st, err, false, out, stdout, stderr)
	}
	res := transferResult(lr)
	if werr := writeTransfer(out, format, res, nil, force); werr != nil {
		fmt.Fprintf(stderr, "prism: capture: %v\n", werr)
		return ExitFailure
	}
	if !quiet {
		for _, ch := range res.Channels {
			fmt.Fprintln(stderr, "prism: "+transferSummary(res, ch))
		}
	}
	if errors.Is(err, live.ErrIncomplete) {
		fmt.Fprintf(stderr, "prism: capture: %v; %s written with what was averaged\n", err, quote(out))
		return ExitFailure
	}
	if stats && err == nil {
		b, _ := json.Marshal(st)
		obj := map[string]any{}
		if jerr := json.Unmarshal(b, &obj); jerr != nil {
			fmt.Fprintf(stderr, "prism: capture: %v\n", jerr)
			return ExitFailure
		}
		for k, v := range transferJSON(res) {
			obj[k] = v
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(obj)
	}
	return captureDone(st, err, false, out, stdout, stderr)
}

// transferResult is a live result in the file pipeline's terms: the
// tracked delay as found (none: no delay found), the mean coherence over
// 20 Hz…20 kHz as prism transfer reports it.
func transferResult(lr live.TransferResult) transfer.Result {
	g := lr.Geometry
	res := transfer.Result{SampleRate: g.Rate, FFT: g.FFT, Hop: g.Hop, Frames: lr.Averaged,
		FreqHz: make([]float64, g.Bins())}
	for k := range res.FreqHz {
		res.FreqHz[k] = float64(k) * g.BinHz()
	}
	for c, idx := range lr.Channels {
		ch := transfer.Channel{Index: idx, MagnitudeDB: lr.MagnitudeDB[c], PhaseDeg: lr.PhaseDeg[c],
			Coherence: lr.Coherence[c], Delay: lr.Delays[c].Delay}
		ch.MeanCoherence = meanCoherence20k(ch.Coherence, g.BinHz())
		res.Channels = append(res.Channels, ch)
	}
	return res
}

// meanCoherence20k is prism transfer's mean_coherence rule: the mean γ²
// of the bins from 20 Hz to 20 kHz, below the top bin.
func meanCoherence20k(coh []float64, binHz float64) float64 {
	sum, n := 0.0, 0
	for k, v := range coh {
		if f := float64(k) * binHz; f >= 20 && f <= 20000 && k < len(coh)-1 {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
