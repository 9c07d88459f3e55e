package cli

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dsp/bandwidth"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/internal/proc"
	"github.com/prismaudio/prism/window"
)

const spectrumUsage = `  prism spectrum IN -o OUT.csv|.npy|.png [--fft N] [--overlap PCT] [--window W]
      [--channel mix|all|C] [--unit dbfs|dbfs-hz|dbspl] [--cal FILE] [--cal-dbspl LEVEL]
      [--calibrator REC.wav [--calibrator-dbspl 94]] [--ref REF.csv] [--engine E]
  The power-averaged (Welch) spectrum of the whole file. dbfs reads a sine's
  level, dbfs-hz the noise density (white noise of RMS σ reads
  10·log10(σ²/(fs/2))), dbspl a sine's level in dB SPL (needs --cal-dbspl or
  --calibrator). dbfs-hz alone is referenced to a mean square of 1, not to a
  full-scale sine as every other dBFS in Prism (levels, bands, dbfs): power
  summed from it over a band reads 3.01 dB below prism bands. --cal FILE subtracts a microphone response (REW/miniDSP
  text); --ref writes the difference to a reference trace (CSV freq_hz,level).
`

// spectrumFlags are `prism spectrum`'s flags.
type spectrumFlags struct {
	calFlags
	out, window, channel, unit string
	refFile                    string
	dbRange, engine, device    string
	fft                        int
	overlap                    float64
	quiet, force               bool
}

func runSpectrum(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("spectrum", spectrumUsage, stderr)
	var f spectrumFlags
	fs.StringVar(&f.out, "o", "", "output: .csv (freq_hz,level), .npy (bins × [freq_hz, level…], float32) or .png (plot)")
	fs.IntVar(&f.fft, "fft", 8192, fmt.Sprintf("FFT size: a power of two, %d…%d", engine.MinFFT, engine.MaxFFT))
	fs.Float64Var(&f.overlap, "overlap", 50, "frame overlap in percent, 0 ≤ PCT < 100")
	fs.StringVar(&f.window, "window", "hann", "window: "+strings.Join(window.Names(), ", ")+" or kaiser:BETA")
	fs.StringVar(&f.channel, "channel", "mix", "channel: mix (mean of channels), all (one column each) or a 0-based index")
	fs.StringVar(&f.unit, "unit", "dbfs", "unit: dbfs (sine level), dbfs-hz (noise density re a mean square of 1: 3.01 dB below full-scale-sine dBFS), dbspl (calibrated sine level)")
	f.calFlags.register(fs, "channel as --channel or 0")
	fs.StringVar(&f.refFile, "ref", "", "reference trace CSV (freq_hz,level): write level − reference")
	fs.StringVar(&f.dbRange, "db-range", "", "PNG vertical range MIN:MAX in dB (default: the top 120 dB)")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary on stdout")
	kit.RegisterForce(fs, &f.force)
	kit.RegisterEngine(fs, &f.engine, &f.device, "device")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("spectrum", stderr)
	if len(pos) != 1 {
		return usage("want one input file (prism spectrum IN -o OUT)")
	}
	format, ok := encode.FormatOf(f.out)
	if f.out == "" || !ok {
		return usage("-o OUT.csv, OUT.npy or OUT.png is required")
	}
	o, err := f.options()
	if err != nil {
		return usage("%v", err)
	}
	if f.calibrator != "" {
		if o.Cal, err = f.level(o.Channel); err != nil {
			return kit.Failure(stderr, err)
		}
	}
	if o.Mic, o.Ref, err = f.files(); err != nil {
		return kit.Failure(stderr, err)
	}
	if err := engine.CheckChoice(f.engine); err != nil {
		return usage("--engine: %v", err)
	}
	if err := kit.CheckReplace(f.force, f.out); err != nil {
		return usage("%v", err)
	}
	sess, ok := kit.OpenSession("spectrum", kit.ChooseEngine("spectrum", f.engine, pos[:1], kit.Verbose(), stderr), f.device, f.quiet, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.End() // the output is in place (or discarded) by then
	sess.Written.Expect(f.out)
	src, remove, err := proc.Spool(sess.Ctx, pos[0]) // read once per channel
	if err != nil {
		return kit.Failure(stderr, err)
	}
	defer remove()
	res, err := analysis.AnalyzeSpectrum(sess.Ctx, src, o, sess.Engines)
	err = proc.Renamed(err, src, pos[0])
	kit.Warn(stderr, proc.RenameAll(res.Warnings, src, pos[0]))
	if errors.Is(err, context.Canceled) {
		return kit.Interrupted(stderr, "spectrum", f.out)
	}
	if err != nil {
		return kit.Failure(stderr, err)
	}
	if err := writeSpectrum(f.out, format, res, o, f); err != nil {
		fmt.Fprintf(stderr, "prism: spectrum: %v\n", err)
		return ExitFailure
	}
	if !f.quiet {
		fmt.Fprintln(stdout, spectrumSummary(res, o))
		if o.Ref == nil && len(res.FreqHz) > 1 { // the verdict reads a spectrum's shape, not a difference
			fmt.Fprintf(stdout, "bandwidth: %v\n", bandwidth.Detect(res.Levels[0], res.FreqHz[1]))
		}
	}
	return ExitOK
}

// options validates the flags that need no file.
func (f *spectrumFlags) options() (analysis.SpectrumOptions, error) {
	o := analysis.SpectrumOptions{FFT: f.fft, OverlapPct: f.overlap}
	if err := engine.CheckFFT(f.fft, 1); err != nil {
		return o, fmt.Errorf("--fft: %v", err)
	}
	if !(f.overlap >= 0 && f.overlap < 100) {
		return o, fmt.Errorf("--overlap %g: want 0 ≤ PCT < 100", f.overlap)
	}
	w, err := window.Parse(f.window)
	if err != nil {
		return o, fmt.Errorf("--window: %v", strings.TrimPrefix(err.Error(), "gpufft: "))
	}
	o.Window = w
	if f.channel == "all" {
		o.Channel = analysis.AllChannels
	} else if o.Channel, err = kit.ParseChannel(f.channel); err != nil {
		return o, err
	}
	if o.Unit, err = dsp.ParseUnit(f.unit); err != nil {
		return o, fmt.Errorf("--unit: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	if o.Cal, err = f.levelCal(o.Unit); err != nil {
		return o, err
	}
	if f.dbRange != "" {
		if _, _, err := parseRange(f.dbRange); err != nil {
			return o, err
		}
	}
	return o, nil
}

// levelCal checks the level calibration flags against the unit and reads
// --cal-dbspl (a --calibrator recording is measured later).
func (f *spectrumFlags) levelCal(u dsp.Unit) (dsp.LevelCal, error) {
	switch {
	case u == dsp.DBSPL && !f.hasLevel():
		return dsp.LevelCal{}, fmt.Errorf("--unit dbspl needs --cal-dbspl LEVEL or --calibrator REC.wav")
	case u != dsp.DBSPL && f.hasLevel():
		return dsp.LevelCal{}, fmt.Errorf("a level calibration needs --unit dbspl")
	}
	return f.checkLevel()
}

// files reads the microphone response and reference trace, if named.
func (f *spectrumFlags) files() (*dsp.MicResponse, *dsp.Trace, error) {
	mic, err := f.mic()
	if err != nil {
		return nil, nil, err
	}
	var ref *dsp.Trace
	if f.refFile != "" {
		if ref, err = dsp.ReadTraceFile(f.refFile); err != nil {
			return nil, nil, &analysis.InputError{Err: fmt.Errorf("--ref: %w", err)}
		}
	}
	return mic, ref, nil
}

func parseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.ParseFloat(a, 64)
	hi, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || !(lo < hi) || lo < -400 || hi > 400 {
		return 0, 0, fmt.Errorf("--db-range %q: want MIN:MAX in dB with MIN < MAX, e.g. -140:0", s)
	}
	return lo, hi, nil
}

// unitLabel names the output's unit.
func unitLabel(o analysis.SpectrumOptions) string {
	u := map[dsp.Unit]string{dsp.DBFS: "dBFS", dsp.DBFSPerHz: "dBFS/Hz", dsp.DBSPL: "dB SPL"}[o.Unit]
	if o.Mic != nil {
		u += " (" + o.Mic.Name + ")"
	}
	if o.Ref != nil {
		u = "dB re " + o.Ref.Name
	}
	return u
}

func spectrumSummary(res analysis.SpectrumResult, o analysis.SpectrumOptions) string {
	note := ""
	if res.Note != "" {
		note = fmt.Sprintf(" (%s %+.0f cents)", res.Note, res.Cents)
	}
	peakUnit := map[dsp.Unit]string{dsp.DBFS: "dBFS", dsp.DBFSPerHz: "dBFS", dsp.DBSPL: "dB SPL"}[o.Unit]
	return fmt.Sprintf("peak %.3f Hz %.2f %s%s; %d frames of %d (%s, hop %d), %s",
		res.Peak.FreqHz, res.PeakDB, peakUnit, note, res.Frames, res.FFT, o.Window, res.Hop, unitLabel(o))
}

func writeSpectrum(path string, format encode.Format, res analysis.SpectrumResult, o analysis.SpectrumOptions, f spectrumFlags) error {
	out, err := encode.CreateWith(path, encode.CreateOptions{Force: f.force})
	if err != nil {
		return err
	}
	defer out.Discard()
	switch format {
	case encode.FormatCSV:
		fmt.Fprintf(out.W, "freq_hz,%s\n", strings.Join(res.Columns, ","))
		for k, hz := range res.FreqHz {
			fmt.Fprintf(out.W, "%s", strconv.FormatFloat(hz, 'f', -1, 64))
			for _, lv := range res.Levels {
				fmt.Fprintf(out.W, ",%s", strconv.FormatFloat(lv[k], 'f', 4, 64))
			}
			fmt.Fprintln(out.W)
		}
	case encode.FormatNPY:
		cols := 1 + len(res.Levels)
		if _, err := out.W.Write(encode.NPYHeader(len(res.FreqHz), cols)); err != nil {
			return err
		}
		row := make([]byte, 4*cols)
		for k, hz := range res.FreqHz {
			binary.LittleEndian.PutUint32(row, math.Float32bits(float32(hz)))
			for c, lv := range res.Levels {
				binary.LittleEndian.PutUint32(row[4+4*c:], math.Float32bits(float32(lv[k])))
			}
			if _, err := out.W.Write(row); err != nil {
				return err
			}
		}
	case encode.FormatPNG:
		lo, hi := autoRange(res.Levels)
		if f.dbRange != "" {
			lo, hi, _ = parseRange(f.dbRange)
		}
		img := plot.Lines(plot.LineOptions{Width: 1200, Height: 600, Scale: plot.Log, DBMin: lo, DBMax: hi,
			Unit: unitLabel(o), Title: filepath.Base(f.out) + ": " + spectrumSummary(res, o)}, res.SampleRate, res.FFT, res.FreqHz, res.Levels, res.Columns)
		if err := encode.PNG(out.W, img); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-o %s: unknown format", path)
	}
	return out.Commit()
}

// autoRange is the top 120 dB of the finite levels, in steps of 10 dB.
func autoRange(levels [][]float64) (lo, hi float64) {
	top := math.Inf(-1)
	for _, lv := range levels {
		for _, v := range lv {
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				top = max(top, v)
			}
		}
	}
	if math.IsInf(top, -1) {
		return -120, 0
	}
	hi = math.Ceil(top/10)*10 + 10
	return hi - 130, hi
}
