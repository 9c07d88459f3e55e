package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	core "github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
	"github.com/prismaudio/prism/app/archive/out"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/bench"
	"github.com/prismaudio/prism/window"
)

const ltsaUsage = `  prism ltsa IN… | --manifest FILE -o OUT.nc|.npy|.png --average SECONDS
      [--resolution HZ] [--fft N] [--window W] [--channel C]
      [--sensitivity DB [--gain DB] [--full-scale V] | --sensitivity-file FILE | --cal-dbspl LEVEL]
      [--shard K/N|slurm|k8s|auto] [--resume] [--parallel N] [--engine E]
  prism ltsa merge PART.nc… -o OUT.nc|.npy|.png
  A long-term spectral average of an archive (files and folders of WAV or
  FLAC, started in absolute time from their names, bext chunks or the
  manifest): Welch power averages over time bins of SECONDS aligned to
  UTC, in dBFS/Hz or, calibrated, dB re 1 µPa²/Hz (dB re (20 µPa)²/Hz).
  Gaps, overlaps and skipped files are reported. With --shard each task
  of an array job writes its part (-o PART.nc) and 'prism ltsa merge'
  joins the parts into the file one process writes, byte for byte.
`

// ltsaFlags are `prism ltsa`'s flags.
type ltsaFlags struct {
	common
	average, resolution float64
	fft                 int
	window              string
	prof                bench.Profiles
}

// LTSA runs `prism ltsa` (and `prism ltsa merge`).
func LTSA(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return merge(args[1:], stdout, stderr)
	}
	fs := kit.NewFlags("ltsa", ltsaUsage, stderr)
	var f ltsaFlags
	fs.StringVar(&f.out, "o", "", "output: .nc (NetCDF, CF), .npy (time bins × frequency bins, float32, with OUT.json) or .png")
	fs.Float64Var(&f.average, "average", 0, "time bin, seconds (Triton's tave)")
	fs.Float64Var(&f.resolution, "resolution", 10, "frequency resolution, Hz: the FFT is the smallest power of two that reaches it (Triton's dfreq)")
	fs.IntVar(&f.fft, "fft", 0, "FFT size (a power of two), instead of --resolution")
	fs.StringVar(&f.window, "window", "hann", "window: "+strings.Join(window.Names(), ", ")+" or kaiser:BETA")
	f.common.register(fs)
	f.prof.Register(fs)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("ltsa", stderr)
	format, ok := out.FormatOf(f.out)
	if !ok {
		return usage("-o OUT.nc, OUT.npy or OUT.png is required")
	}
	if !(f.average > 0) || math.IsInf(f.average, 0) {
		return usage("--average SECONDS is required (a positive number of seconds)")
	}
	shard, err := envShard(f.shard)
	if err != nil {
		return usage("%v", err)
	}
	if shard.N > 1 && format != out.NetCDF {
		return usage("--shard writes a part to merge: -o PART.nc (then prism ltsa merge PART… -o %s)", f.out)
	}
	win, err := window.Parse(f.window)
	if err != nil {
		return usage("--window: %v", err)
	}
	cal, err := f.cal.calibration()
	if err != nil {
		return usage("%v", err)
	}
	cat, err := f.catalog(pos)
	if err != nil {
		return usage("%v", err)
	}
	cfg := core.LTSAConfig{Average: time.Duration(math.Round(f.average * 1e9)), FFT: f.fft, Resolution: f.resolution,
		Channel: f.channel, Window: win, Cal: cal}
	return runLTSA(&f, cat, cfg, shard, args, stdout, stderr)
}

// ltsaMeta is the output's description: the same for every shard
// (cache.Meta, which the window's Export… writes too).
func ltsaMeta(cat *core.Catalog, cfg core.LTSAConfig, winName string) (out.Meta, error) {
	return cache.Meta(cat.Files, cfg, winName)
}

// ltsaParallelism is --parallel, or by default the number of cores, twice
// that on the CPU engine: its plans split each call over every core and
// wait for the slowest part, and a unit whose read-ahead runs dry waits
// for the disk, so two units a core keep the cores busy (2 h of 16-bit
// WAV on 2 cores, cold, 8 rounds: 1.27× the cold cat by the median round
// against 1.47× at one unit a core; warm 0.62–0.70 s against 0.69–0.73).
// Memory grows with it: a unit holds its rows in flight, its plan and
// its read-ahead, 8 MiB for 16-bit files of one channel and 16 MiB for
// the rest (decoded to float32).
func (f *ltsaFlags) ltsaParallelism(g *engines) int {
	if f.parallel > 0 || g.gpu {
		return f.parallelism()
	}
	return 2 * f.parallelism()
}

// runLTSA does this shard's units into its output.
func runLTSA(f *ltsaFlags, cat *core.Catalog, cfg core.LTSAConfig, shard Shard, args []string, stdout, stderr io.Writer) int {
	if !f.quiet {
		report(stderr, "ltsa", cat)
	}
	if f.resume && exists(f.out) {
		if !f.quiet {
			fmt.Fprintf(stderr, "prism: ltsa: %s is complete (--resume): nothing to do\n", f.out)
		}
		return kit.ExitOK
	}
	meta, err := ltsaMeta(cat, cfg, f.window)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	us := units(cat.Files, cfg.Average)
	weights := make([]int64, len(us))
	for i, u := range us {
		weights[i] = u.frames
	}
	first, end := take(shard, weights)
	us = us[first:end]
	var mine []core.File
	if len(us) > 0 {
		mine = cat.Files[us[0].first:us[len(us)-1].end]
	}
	if shard.N > 1 {
		meta.Shard = shard.String()
	}
	sess, eng, ok := f.openEngine("ltsa", cat.Files, stderr)
	if !ok {
		return kit.ExitFailure
	}
	defer sess.End()
	sess.Written.Expect(f.out)
	prov, hashed := newProvenance("ltsa", args, eng.name, shard, mine, []string{f.out})
	params(prov, meta.Attrs)
	stopProf, err := f.prof.Start()
	if err != nil {
		return kit.Failure(stderr, err)
	}
	start := time.Now()
	err = writeLTSA(sess.Ctx, f.out, meta, cat, us, f.ltsaParallelism(eng), prov, func(ctx context.Context, files []core.File, emit func(core.Row) error) error {
		return eng.ltsa(ctx, files, cfg, emit)
	})
	stopProf()
	prov.Engine = eng.engineName()
	hashed()
	return finish(stderr, stdout, "ltsa", f.out, out.ProvenancePath(f.out), prov, start, mine, f.quiet, err)
}

// analysis is one LTSA call over files.
type analysis func(ctx context.Context, files []core.File, emit func(core.Row) error) error

// writeLTSA runs the units, parallel at a time, into the output at path
// (in time order), recording each file's status and time in prov.
func writeLTSA(ctx context.Context, path string, meta out.Meta, cat *core.Catalog, us []unit, parallel int, prov *out.Provenance, run analysis) error {
	inputs := make([]string, len(cat.Files))
	for i, f := range cat.Files {
		inputs[i] = f.Path
	}
	w, err := out.Create(path, meta, inputs)
	if err != nil {
		return err
	}
	defer w.Discard()
	base := 0
	if len(us) > 0 {
		base = us[0].first
	}
	err = inOrder(ctx, len(us), parallel, func(ctx context.Context, i int, emit func(core.Row) error) error {
		return run(ctx, cat.Files[us[i].first:us[i].end], emit)
	}, func(r core.Row) error { return w.Write(out.Row(r)) }, func(i int, secs float64, err error) error {
		u := us[i]
		for j := u.first; j < u.end; j++ {
			in := &prov.Inputs[j-base]
			in.Seconds = secs * float64(cat.Files[j].Frames) / float64(max(u.frames, 1))
			in.Status = "ok"
			if err != nil {
				in.Status = err.Error()
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	return w.Commit()
}

// finish writes the provenance and reports the run: a summary on stderr
// unless quiet, or the error.
func finish(stderr, stdout io.Writer, name, target, provPath string, prov *out.Provenance, start time.Time, files []core.File, quiet bool, err error) int {
	secs := time.Since(start).Seconds()
	prov.Seconds = secs
	if err != nil {
		prov.Status = err.Error()
	}
	if perr := out.WriteProvenance(provPath, prov); perr != nil && err == nil {
		err = perr
	}
	if errors.Is(err, context.Canceled) {
		return kit.Interrupted(stderr, name, target)
	}
	if err != nil {
		return kit.Failure(stderr, err)
	}
	if !quiet {
		var audio float64
		var bytes int64
		for _, f := range files {
			audio += float64(f.Frames) / f.Rate
			bytes += f.Size
		}
		fmt.Fprintf(stdout, "%s: %d files, %.2f h of audio, %.1f MB in %.2f s: %.0f× real time, %.0f MB/s (%s)\n",
			target, len(files), audio/3600, float64(bytes)/1e6, secs, audio/max(secs, 1e-9), float64(bytes)/1e6/max(secs, 1e-9), prov.Engine)
	}
	return kit.ExitOK
}

// ltsa is one LTSA call over files; on a GPU a unit's rows are kept
// until it succeeds, so the CPU engine can redo a failed one.
func (g *engines) ltsa(ctx context.Context, files []core.File, cfg core.LTSAConfig, emit func(core.Row) error) error {
	if !g.gpu {
		_, err := core.LTSA(ctx, g.pref, files, cfg, emit)
		return err
	}
	var rows []core.Row
	err := g.try(ctx, "ltsa: "+files[0].Path, func(e gpufft.Engine) error {
		rows = rows[:0]
		_, err := core.LTSA(ctx, e, files, cfg, func(r core.Row) error { rows = append(rows, r); return nil })
		return err
	})
	for _, r := range rows {
		if err != nil {
			break
		}
		err = emit(r)
	}
	return err
}
