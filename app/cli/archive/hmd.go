package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	core "github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/out"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/version"
)

const hmdUsage = `  prism hmd IN… | --manifest FILE -o DIR [--prefix NAME] [--density] [--fft N] [--channel C]
      [--sensitivity DB [--gain DB] [--full-scale V] | --sensitivity-file FILE | --cal-dbspl LEVEL]
      [--shard K/N|slurm|k8s|auto] [--resume] [--parallel N] [--engine E]
  Hybrid millidecade spectra (1-Hz bands, then millidecade bands; Martin
  et al. 2021): one row of band levels per UTC minute, in one NetCDF file
  per UTC day, DIR/NAME_YYYYMMDD.nc, with the day's percentiles (5, 10,
  25, 50, 75, 90, 95: L5…L95 as percentiles; the level exceeded N % of
  the time is the (100−N)-th). Shards take whole days; --resume skips the
  days whose file is in place.
`

// hmdPercentiles are the percentiles each day's file holds.
var hmdPercentiles = []float64{5, 10, 25, 50, 75, 90, 95}

// hmdFlags are `prism hmd`'s flags.
type hmdFlags struct {
	common
	prefix  string
	fft     int
	density bool
}

// HMD runs `prism hmd`.
func HMD(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("hmd", hmdUsage, stderr)
	var f hmdFlags
	fs.StringVar(&f.out, "o", "", "output folder: one NetCDF file a UTC day, NAME_YYYYMMDD.nc")
	fs.StringVar(&f.prefix, "prefix", "hmd", "the daily files' NAME")
	fs.IntVar(&f.fft, "fft", 0, "FFT size (a power of two; default: the smallest at least the sample rate, bins ≤ 1 Hz apart)")
	fs.BoolVar(&f.density, "density", false, "band power spectral densities (band power ÷ bandwidth, per Hz: the NCEI products' values) instead of band levels")
	f.common.register(fs)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("hmd", stderr)
	if f.out == "" {
		return usage("-o DIR is required")
	}
	shard, err := envShard(f.shard)
	if err != nil {
		return usage("%v", err)
	}
	cal, err := f.cal.calibration()
	if err != nil {
		return usage("%v", err)
	}
	cat, err := f.catalog(pos)
	if err != nil {
		return usage("%v", err)
	}
	if err := os.MkdirAll(f.out, 0o777); err != nil {
		return kit.Failure(stderr, fmt.Errorf("archive: %w", err))
	}
	cfg := core.HMDConfig{FFT: f.fft, Channel: f.channel, Cal: cal, Density: f.density}
	return runHMD(&f, cat, cfg, shard, args, stdout, stderr)
}

// dayPath is the file of UTC day d.
func (f *hmdFlags) dayPath(d time.Time) string {
	return filepath.Join(f.out, f.prefix+"_"+d.Format("20060102")+".nc")
}

// hmdMeta is a day's file's description.
func hmdMeta(cat *core.Catalog, cfg core.HMDConfig, d time.Time) (out.Meta, error) {
	cal, err := core.CalibrationOf(cat.Files, cfg.Cal)
	if err != nil {
		return out.Meta{}, err
	}
	rate := cat.Files[0].Rate
	bands := core.HMDBands(rate)
	m := out.Meta{Kind: "hmd", Title: "hybrid millidecade spectra", Unit: cal.BandUnit(), Percentiles: hmdPercentiles}
	if cfg.Density {
		m.Unit = cal.Unit()
	}
	for _, b := range bands {
		m.FreqHz, m.BandLoHz, m.BandHiHz = append(m.FreqHz, b.Centre), append(m.BandLoHz, b.Lo), append(m.BandHiHz, b.Hi)
	}
	fft := cfg.FFT
	if fft == 0 {
		fft = core.LTSAConfig{Resolution: 1}.FFTFor(rate)
	}
	density := int32(0)
	if cfg.Density {
		density = 1
	}
	m.Attrs = append([]out.Attr{
		{Name: "day_utc", Value: d.Format("2006-01-02")},
		{Name: "average_seconds", Value: core.HMDMinute.Seconds()},
		{Name: "fft", Value: int32(fft)},
		{Name: "window", Value: "hann"},
		{Name: "overlap_percent", Value: 50.0},
		{Name: "channel", Value: int32(cfg.Channel)},
		{Name: "sample_rate_hz", Value: rate},
		{Name: "band_density", Value: density},
	}, calAttrs(cal)...)
	m.Attrs = append(m.Attrs, out.Attr{Name: "prism_version", Value: version.Version})
	return m, nil
}

// runHMD does this shard's days, one file each.
func runHMD(f *hmdFlags, cat *core.Catalog, cfg core.HMDConfig, shard Shard, args []string, stdout, stderr io.Writer) int {
	if !f.quiet {
		report(stderr, "hmd", cat)
	}
	all := days(cat.Files)
	weights := make([]int64, len(all))
	for i := range weights {
		weights[i] = 1
	}
	first, end := take(shard, weights)
	mine := all[first:end]
	var files []core.File
	seen := map[string]int{}
	for _, d := range mine {
		for _, fl := range filesOn(cat.Files, d) {
			if _, ok := seen[fl.Path]; !ok {
				seen[fl.Path] = len(files)
				files = append(files, fl)
			}
		}
	}
	outputs := make([]string, len(mine))
	for i, d := range mine {
		outputs[i] = f.dayPath(d)
	}
	sess, eng, ok := f.openEngine("hmd", cat.Files, stderr)
	if !ok {
		return kit.ExitFailure
	}
	defer sess.End()
	prov, hashed := newProvenance("hmd", args, eng.name, shard, files, outputs)
	start := time.Now()
	err := inOrder(sess.Ctx, len(mine), f.parallelism(), func(ctx context.Context, i int, _ func(struct{}) error) error {
		if f.resume && exists(f.dayPath(mine[i])) {
			return errComplete
		}
		return eng.try(ctx, "hmd: "+mine[i].Format("2006-01-02"), func(e gpufft.Engine) error {
			return f.day(ctx, e, cat, cfg, mine[i])
		})
	}, func(struct{}) error { return nil }, func(i int, secs float64, err error) error {
		return markDay(prov, seen, filesOn(cat.Files, mine[i]), secs, err)
	})
	prov.Engine = eng.engineName()
	hashed()
	provPath := filepath.Join(f.out, f.prefix+".provenance.json")
	if shard.N > 1 {
		provPath = filepath.Join(f.out, fmt.Sprintf("%s.shard-%d-of-%d.provenance.json", f.prefix, shard.K, shard.N))
	}
	return finish(stderr, stdout, "hmd", f.out, provPath, prov, start, files, f.quiet, err)
}

// errComplete is day's answer for a day whose file --resume found in
// place.
var errComplete = errors.New("skipped (complete)")

// day writes UTC day d's file. Days run on goroutines of their own: it
// touches nothing shared but its own file.
func (f *hmdFlags) day(ctx context.Context, e gpufft.Engine, cat *core.Catalog, cfg core.HMDConfig, d time.Time) error {
	path := f.dayPath(d)
	meta, err := hmdMeta(cat, cfg, d)
	if err != nil {
		return err
	}
	w, err := out.CreateNetCDF(path, meta, nil)
	if err != nil {
		return err
	}
	defer w.Discard()
	var levels [][]float32
	next := d.AddDate(0, 0, 1)
	err = core.HMD(ctx, e, filesOn(cat.Files, d), cfg, func(r core.Row) error {
		if r.Start.Before(d) || !r.Start.Before(next) {
			return nil // another day's minute: that day's file has it
		}
		levels = append(levels, r.Level)
		return w.Write(out.Row(r))
	})
	if err != nil {
		return err
	}
	w.SetPercentiles(core.Percentiles(levels, hmdPercentiles))
	if err := w.Commit(); err != nil {
		return err
	}
	noteCommitted(path)
	return nil
}

// markDay records a day's outcome for its files (index: their places in
// prov.Inputs): a file of several days keeps an error, else "ok" over
// "skipped (complete)". It returns the day's error, errComplete aside.
func markDay(prov *out.Provenance, index map[string]int, files []core.File, secs float64, err error) error {
	status := "ok"
	if err != nil {
		status = err.Error()
	}
	for _, fl := range files {
		in := &prov.Inputs[index[fl.Path]]
		in.Seconds += secs * float64(fl.Frames) / float64(max(totalFrames(files), 1))
		if in.Status == "not run" || in.Status == errComplete.Error() || err != nil && err != errComplete {
			in.Status = status
		}
	}
	if err == errComplete {
		return nil
	}
	return err
}

func totalFrames(files []core.File) int64 {
	var n int64
	for _, f := range files {
		n += f.Frames
	}
	return n
}
