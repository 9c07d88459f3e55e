package measure

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/sweep"
	"github.com/prismaudio/prism/audio"
)

const irUsage = `  prism ir RECORDING.wav [--sweep SWEEP.wav | --from F0 --to F1 --seconds S]
      [--channel C] [--ref-channel R] -o IR.wav|.npy [--json] [--engine E]
  prism ir … --distortion -o DIST.csv|.npy
  prism ir … --csd -o CSD.png|.npy
  Deconvolves a recording of a sweep prism sweep wrote (played from the
  recording's start) into its impulse response, by FFT on the engine
  (the recording convolved with the sweep's inverse filter; --engine auto
  is the CPU engine here: one deconvolution is faster there than the
  GPU's start-up and plans, even on an H200 host). The sweep is
  read back from SWEEP.wav's parameters, or rebuilt from --from, --to and
  --seconds with prism sweep's defaults (−3 dBFS, 50-ms fades, 0.2 s and
  1 s of silence) at the recording's rate. --channel is the measured
  channel (0-based; default the first that is not the reference);
  --ref-channel a loopback of the sweep recorded beside it, the timing
  reference: its own latency (the interface's and the audio system's) is
  taken out of the response and of latency_ms.
  IR.wav (mono 32-bit float at the recording's rate) or IR.npy ((samples,
  1) float32): the linear impulse response, 1.0 being unity gain, from a
  short lead before lag 0 (a tenth of the time between the linear
  response and the second harmonic's: the band-limited impulse's leading
  half) to the end of the recording's tail.
  --distortion: the harmonic distortion versus the fundamental's frequency
  from the harmonics' impulse responses 2…9, which the sweep separates in
  time. CSV freq_hz,thd_percent,h2_db,…,h9_db (harmonics in dB relative to
  the fundamental; nan where k·f is above the sweep), 1/24 octave from F0
  to F1/2; NPY the same columns as float32.
  --csd: the cumulative spectral decay: 40 spectra of the impulse response
  from start times 5 ms apart (the first 1 ms before its peak) to one end
  300 ms after that. NPY float32 of shape (41, 1+bins): row 0 is 0 then the
  frequencies (1/24 octave, F0…F1), each further row a slice's start in ms
  after the peak, then its levels in dB; PNG the slices from −1, 4, 9,
  14, 19, 29, 49 and 99 ms.
  Summary: latency (ms; the peak's lag), peak (dBFS), SNR (the peak over the
  RMS of the response's last tenth, dB; null in JSON when that is
  digitally silent) and polarity; --json prints
  {"latency_ms","peak_dbfs","snr_db","polarity"} (polarity 1 or −1) on stdout.
`

// irFlags are `prism ir`'s flags.
type irFlags struct {
	out, sweepPath, engine, device string
	from, to, seconds              float64
	channel, refChannel            int
	distortion, csd                bool
	json, quiet, force             bool
}

func IR(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("ir", irUsage, stderr)
	var f irFlags
	fs.StringVar(&f.out, "o", "", "output: IR.wav or IR.npy; with --distortion DIST.csv or .npy; with --csd CSD.png or .npy")
	fs.StringVar(&f.sweepPath, "sweep", "", "the sweep prism sweep wrote (its parameters are read from it)")
	fs.Float64Var(&f.from, "from", 0, "the sweep's start frequency in Hz (without --sweep)")
	fs.Float64Var(&f.to, "to", 0, "the sweep's end frequency in Hz (without --sweep)")
	fs.Float64Var(&f.seconds, "seconds", 0, "the sweep's length in seconds (without --sweep)")
	fs.IntVar(&f.channel, "channel", -1, "the measured channel, 0-based (−1: the first that is not the reference)")
	fs.IntVar(&f.refChannel, "ref-channel", -1, "a loopback channel of the sweep, the timing reference (−1: none)")
	fs.BoolVar(&f.distortion, "distortion", false, "write the harmonic distortion versus frequency")
	fs.BoolVar(&f.csd, "csd", false, "write the cumulative spectral decay")
	fs.BoolVar(&f.json, "json", false, "print the summary as JSON on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no summary on stdout")
	kit.RegisterForce(fs, &f.force)
	kit.RegisterEngine(fs, &f.engine, &f.device, "device")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("ir", stderr)
	if len(pos) != 1 {
		return usage("want one recording (prism ir RECORDING.wav --sweep SWEEP.wav -o IR.wav)")
	}
	if msg := f.check(fs); msg != "" {
		return usage("%s", msg)
	}
	if err := kit.CheckReplace(f.force, f.out); err != nil {
		return usage("%v", err)
	}
	rec, ref, rate, warns, err := f.read(pos[0])
	kit.Warn(stderr, warns)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	spec := sweep.NewSpec(f.from, f.to, f.seconds, rate)
	if f.sweepPath != "" {
		if spec, err = readSweepSpec(f.sweepPath); err != nil {
			return kit.Failure(stderr, err)
		}
		if spec.Rate != rate {
			return kit.Failure(stderr, &analysis.InputError{Err: fmt.Errorf("ir: the sweep is at %d Hz, the recording at %d Hz", spec.Rate, rate)})
		}
	} else if err := spec.Check(); err != nil {
		return usage("%s", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	sess, ok := kit.OpenSession("ir", kit.ChooseEngine("ir", f.engine, pos, kit.Verbose(), stderr), f.device, f.quiet || f.json, stderr)
	if !ok {
		return kit.ExitFailure
	}
	defer sess.End()
	res, notice, err := sweep.Analyze(sess.Ctx, sess.Engines, spec, rec, ref, sweep.Options{Distortion: f.distortion, CSD: f.csd})
	if notice != "" && !f.quiet && !f.json {
		fmt.Fprintf(stderr, "prism: ir: %s\n", notice)
	}
	if err != nil {
		var ie *sweep.InputError
		if errors.As(err, &ie) {
			err = &analysis.InputError{Err: fmt.Errorf("ir: %s: %w", pos[0], ie)}
		}
		return kit.Failure(stderr, err)
	}
	if err := f.write(res, pos[0]); err != nil {
		fmt.Fprintf(stderr, "prism: ir: %v\n", err)
		if errors.Is(err, encode.ErrOutputIsInput) {
			return kit.ExitUsage
		}
		return kit.ExitFailure
	}
	return f.summary(res, stdout, stderr)
}

// check validates the flags that need no file; it returns why they are
// bad, or "".
func (f *irFlags) check(fs *flag.FlagSet) string {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	given := 0
	for _, name := range []string{"from", "to", "seconds"} {
		if set[name] {
			given++
		}
	}
	ext := strings.ToLower(fileExt(f.out))
	switch {
	case f.sweepPath != "" && given > 0:
		return "give --sweep or --from, --to and --seconds, not both"
	case f.sweepPath == "" && given < 3:
		return "the sweep is needed: --sweep SWEEP.wav, or --from F0 --to F1 --seconds S"
	case f.distortion && f.csd:
		return "--distortion and --csd write one output each: run prism ir once for each"
	case f.out == "":
		return "-o OUT is required"
	case f.distortion && ext != ".csv" && ext != ".npy":
		return "--distortion: -o DIST.csv or DIST.npy"
	case f.csd && ext != ".png" && ext != ".npy":
		return "--csd: -o CSD.png or CSD.npy"
	case !f.distortion && !f.csd && ext != ".wav" && ext != ".npy":
		return "-o IR.wav or IR.npy (or --distortion, --csd)"
	case f.refChannel < -1 || f.channel < -1:
		return "channels are 0-based indices"
	case f.refChannel >= 0 && f.channel == f.refChannel:
		return fmt.Sprintf("--channel %d is the reference", f.channel)
	}
	return ""
}

// read decodes the measured channel and the reference (nil without one)
// of the recording. Bad input is an *analysis.InputError.
func (f *irFlags) read(path string) (rec, ref []float32, rate int, warns []string, err error) {
	bad := func(err error) ([]float32, []float32, int, []string, error) {
		return nil, nil, 0, nil, &analysis.InputError{Err: fmt.Errorf("ir: %w", err)}
	}
	d, err := audio.Open(path)
	if err != nil {
		return bad(err)
	}
	defer d.Close()
	fm := d.Format()
	ch := f.channel
	if ch < 0 {
		ch = 0
		if f.refChannel == 0 {
			ch = 1
		}
	}
	for _, c := range []int{ch, f.refChannel} {
		if c >= fm.Channels {
			return bad(fmt.Errorf("%s has %d channel(s), no channel %d", path, fm.Channels, c))
		}
	}
	buf := make([]float32, 8192*fm.Channels)
	for {
		n, err := d.Read(buf)
		for j := range n {
			rec = append(rec, buf[j*fm.Channels+ch])
			if f.refChannel >= 0 {
				ref = append(ref, buf[j*fm.Channels+f.refChannel])
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return bad(err)
		}
	}
	return rec, ref, fm.SampleRate, d.Warnings(), nil
}

// write writes the chosen output.
func (f *irFlags) write(res sweep.Result, input string) error {
	o, err := encode.CreateWith(f.out, encode.CreateOptions{Inputs: []string{input, f.sweepPath}, Force: f.force})
	if err != nil {
		return err
	}
	defer o.Discard()
	ext := strings.ToLower(fileExt(f.out))
	switch {
	case f.distortion:
		writeDistortion(o.W, res.Distortion, ext == ".npy")
	case f.csd && ext == ".png":
		if err := encode.PNG(o.W, csdImage(res.CSD, res.Rate, filepath.Base(f.out))); err != nil {
			return err
		}
	case f.csd:
		writeCSD(o.W, res.CSD)
	case ext == ".npy":
		o.W.Write(encode.NPYHeader(len(res.IR), 1))
		writeFloats(o.W, res.IR)
	default:
		w, err := encode.NewWAVWriter(o, res.Rate, 1, 32, true)
		if err != nil {
			return err
		}
		x := make([]float32, len(res.IR))
		for i, v := range res.IR {
			x[i] = float32(v)
		}
		if err := w.Write(x); err != nil {
			return err
		}
		if err := w.Finish(); err != nil {
			return err
		}
	}
	return o.Commit()
}

func writeFloats(w io.Writer, x []float64) {
	var raw [4]byte
	for _, v := range x {
		binary.LittleEndian.PutUint32(raw[:], math.Float32bits(float32(v)))
		w.Write(raw[:])
	}
}

// writeDistortion writes the distortion as CSV (freq_hz,thd_percent,
// h2_db,…,h9_db) or NPY (the same columns, float32).
func writeDistortion(w io.Writer, d *sweep.Distortion, npy bool) {
	cols := 2 + len(d.HarmonicDB)
	if npy {
		w.Write(encode.NPYHeader(len(d.FreqHz), cols))
	} else {
		io.WriteString(w, "freq_hz,thd_percent")
		for k := range d.HarmonicDB {
			fmt.Fprintf(w, ",h%d_db", k+2)
		}
		io.WriteString(w, "\n")
	}
	row := make([]float64, cols)
	var b []byte
	for i, f := range d.FreqHz {
		row[0], row[1] = f, d.THDPercent[i]
		for k, h := range d.HarmonicDB {
			row[2+k] = h[i]
		}
		if npy {
			writeFloats(w, row)
			continue
		}
		b = strconv.AppendFloat(b[:0], f, 'f', 2, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, row[1], 'g', 5, 64)
		for _, v := range row[2:] {
			b = append(b, ',')
			if math.IsNaN(v) {
				b = append(b, "nan"...)
			} else {
				b = strconv.AppendFloat(b, v, 'f', 2, 64)
			}
		}
		w.Write(append(b, '\n'))
	}
}

// writeCSD writes the decay as NPY: row 0 is 0 then the frequencies, each
// further row a slice's start (ms after the peak) then its levels (dB).
func writeCSD(w io.Writer, c *sweep.CSD) {
	w.Write(encode.NPYHeader(1+len(c.LevelDB), 1+len(c.FreqHz)))
	writeFloats(w, append([]float64{0}, c.FreqHz...))
	for s, lv := range c.LevelDB {
		writeFloats(w, append([]float64{c.StartSec[s] * 1000}, lv...))
	}
}

// csdSlicesDrawn are the slices the PNG draws: the first 5 (the first
// 20 ms, 5 ms apart), then 30, 50 and 100 ms after the first.
var csdSlicesDrawn = []int{0, 1, 2, 3, 4, 6, 10, 20}

// csdImage draws slices of the decay over frequency.
func csdImage(c *sweep.CSD, rate int, title string) *image.RGBA {
	var levels [][]float64
	var names []string
	top := math.Inf(-1)
	for _, v := range c.LevelDB[0] {
		top = max(top, v)
	}
	top = math.Ceil(top/10)*10 + 10
	for _, s := range csdSlicesDrawn {
		levels = append(levels, c.LevelDB[s])
		names = append(names, fmt.Sprintf("%.0f ms", c.StartSec[s]*1000))
	}
	return plot.Lines(plot.LineOptions{Width: 1200, Height: 600, Scale: plot.Log, DBMin: top - 80, DBMax: top,
		Unit: "dB", Title: title + ": cumulative spectral decay"}, rate, 1<<16, c.FreqHz, levels, names)
}

// summary prints the summary (JSON with --json) and returns the exit code.
func (f *irFlags) summary(res sweep.Result, stdout, stderr io.Writer) int {
	round := func(v float64, digits int) float64 {
		p := math.Pow(10, float64(digits))
		return math.Round(v*p) / p
	}
	switch {
	case f.json:
		var snr any // null when the tail is digitally silent (infinite)
		if !math.IsInf(res.SNRDB, 0) {
			snr = round(res.SNRDB, 2)
		}
		b, err := json.Marshal(map[string]any{"latency_ms": round(res.LatencyMs(), 6), "peak_dbfs": round(res.PeakDBFS, 3),
			"snr_db": snr, "polarity": res.Polarity})
		if err != nil {
			fmt.Fprintf(stderr, "prism: ir: %v\n", err)
			return kit.ExitFailure
		}
		fmt.Fprintln(stdout, string(b))
	case !f.quiet:
		pol := "normal"
		if res.Polarity < 0 {
			pol = "inverted"
		}
		ref := ""
		if res.HasRef {
			ref = fmt.Sprintf(" after the reference's %.4f ms", res.RefLatencySamples/float64(res.Rate)*1000)
		}
		fmt.Fprintf(stdout, "impulse response: latency %.4f ms (%.2f samples%s), peak %.2f dBFS, SNR %.1f dB, polarity %s; %s\n",
			res.LatencyMs(), res.LatencySamples, ref, res.PeakDBFS, res.SNRDB, pol, f.out)
	}
	return kit.ExitOK
}
