package archive

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"time"

	core "github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
	"github.com/prismaudio/prism/app/archive/out"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/internal/version"
)

// common are the flags `ltsa` and `hmd` share.
type common struct {
	manifest, out, shard string
	engine, device       string
	channel, parallel    int
	resume, quiet        bool
	cal                  calFlags
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.manifest, "manifest", "", "a CSV manifest of the archive (path,start_utc,rate_correction,transducer,sensitivity_db,gain_db,full_scale_v,sensitivity_file) instead of IN…")
	fs.StringVar(&c.shard, "shard", "", "do shard K/N (0-based) of the work, or slurm ($SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT), k8s ($JOB_COMPLETION_INDEX of $PRISM_SHARDS) or auto (slurm, k8s or the whole)")
	fs.BoolVar(&c.resume, "resume", false, "skip outputs that are in place already (complete: written by rename)")
	fs.IntVar(&c.channel, "channel", 0, "the channel to analyze, 0-based")
	fs.IntVar(&c.parallel, "parallel", 0, "units of files (ltsa) or days (hmd) analyzed at once (default: the number of cores, twice that for ltsa on the CPU engine); the output is the same")
	fs.BoolVar(&c.quiet, "quiet", false, "no catalogue report or summary")
	c.cal.register(fs)
	kit.RegisterEngine(fs, &c.engine, &c.device, "device")
}

// catalog reads the archive: the manifest, or the files and folders pos.
func (c *common) catalog(pos []string) (*core.Catalog, error) {
	switch {
	case c.manifest != "" && len(pos) > 0:
		return nil, errors.New("give IN… or --manifest, not both")
	case c.manifest != "":
		return core.ReadManifest(c.manifest)
	case len(pos) == 0:
		return nil, errors.New("want IN… (files or folders) or --manifest FILE")
	}
	return core.Scan(pos)
}

// report says on w what the catalogue found: the files' span, each gap,
// overlap and skipped file.
func report(w io.Writer, name string, cat *core.Catalog) {
	if len(cat.Files) > 0 {
		var secs float64
		for _, f := range cat.Files {
			secs += float64(f.Frames) / f.Rate
		}
		first, last := cat.Files[0], cat.Files[len(cat.Files)-1]
		fmt.Fprintf(w, "prism: %s: %d files, %.2f h of audio, %s … %s\n", name, len(cat.Files), secs/3600,
			first.Start.Format(time.RFC3339), last.End().Format(time.RFC3339))
	}
	for _, g := range cat.Gaps {
		fmt.Fprintf(w, "prism: %s: gap of %v at %s, between %s and %s\n", name, g.Length, g.Start.Format(time.RFC3339Nano), g.After, g.Before)
	}
	for _, o := range cat.Overlaps {
		fmt.Fprintf(w, "prism: %s: overlap of %v at %s: %s is read from %s\n", name, o.Length, o.Start.Format(time.RFC3339Nano), o.Second, o.First)
	}
	for _, s := range cat.Skipped {
		fmt.Fprintf(w, "prism: %s: skipped %s: %s\n", name, s.Path, s.Reason)
	}
}

// calFlags are the calibration flags.
type calFlags struct {
	sens, gain, fullScale, dbspl float64
	file                         string
	microphone                   bool
}

func (f *calFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&f.sens, "sensitivity", math.NaN(), "hydrophone sensitivity, dB re 1 V/µPa (with --microphone: dB re 1 V/Pa): levels in dB re 1 µPa²/Hz (re (20 µPa)²/Hz)")
	fs.Float64Var(&f.gain, "gain", 0, "preamplifier gain, dB (with --sensitivity or --sensitivity-file)")
	fs.Float64Var(&f.fullScale, "full-scale", 1, "volts at digital full scale (with --sensitivity or --sensitivity-file)")
	fs.StringVar(&f.file, "sensitivity-file", "", "sensitivity versus frequency (\"hz,db\" lines), replacing --sensitivity")
	fs.BoolVar(&f.microphone, "microphone", false, "the sensitivity is a microphone's, dB re 1 V/Pa: levels in dB re (20 µPa)²/Hz")
	fs.Float64Var(&f.dbspl, "cal-dbspl", math.NaN(), "microphone calibration: a full-scale sine reads LEVEL dB SPL")
}

// fullScaleSineDB is 10·log10 of a full-scale sine's power (0.5 FS²).
var fullScaleSineDB = 10 * math.Log10(0.5)

// calibration is the flags' calibration (uncalibrated when none is set:
// then a manifest's own applies).
func (f *calFlags) calibration() (core.Calibration, error) {
	hasSens := !math.IsNaN(f.sens) || f.file != ""
	switch {
	case hasSens && !math.IsNaN(f.dbspl):
		return core.Calibration{}, errors.New("give --sensitivity (or --sensitivity-file) or --cal-dbspl, not both")
	case !math.IsNaN(f.dbspl):
		// a full-scale sine (0.5 FS²) reads LEVEL: OffsetDB = LEVEL − 10·log10(0.5)
		// = −sensitivity − 20·log10(20 µPa) with 1 V full scale and no gain
		return core.Calibration{Transducer: core.Microphone, FullScaleV: 1,
			SensitivityDB: -(f.dbspl - fullScaleSineDB) - 20*math.Log10(20e-6), Source: fmt.Sprintf("--cal-dbspl %g", f.dbspl)}, nil
	case !hasSens:
		return core.Calibration{}, nil
	}
	c := core.Calibration{Transducer: core.Hydrophone, SensitivityDB: f.sens, GainDB: f.gain, FullScaleV: f.fullScale, Source: "--sensitivity"}
	if f.microphone {
		c.Transducer = core.Microphone
	}
	if f.file != "" {
		curve, err := core.ReadCurve(f.file)
		if err != nil {
			return c, err
		}
		c.Curve, c.SensitivityDB, c.Source = curve, 0, f.file
	}
	return c, c.Check()
}

// calAttrs are a calibration's attributes, in the outputs (cache.CalAttrs).
func calAttrs(c core.Calibration) []out.Attr { return cache.CalAttrs(c) }

// openEngine opens the engines for the catalogue's files.
func (c *common) openEngine(name string, files []core.File, stderr io.Writer) (*kit.Session, *engines, bool) {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	sess, ok := kit.OpenSession(name, kit.ChooseEngine(name, c.engine, paths, kit.Verbose(), stderr), c.device, c.quiet, stderr)
	if !ok {
		return nil, nil, false
	}
	g := &engines{pref: sess.Engines.Preferred, cpu: sess.Engines.CPU, gpu: sess.Engines.HasGPU(), name: engine.CPU, stderr: stderr}
	if d, ok := g.pref.(interface{ Info() gpufft.DeviceInfo }); ok && g.gpu {
		g.name = "gpu: " + d.Info().Name
	}
	return sess, g, true
}

// engines are what a run analyzes on: the preferred engine and, when that
// is a GPU, the CPU engine that takes over a unit or a day whose analysis
// fails on it (an interrupt aside): a failing GPU never stops the run.
type engines struct {
	pref, cpu gpufft.Engine
	gpu       bool
	name      string // for the provenance: "cpu" or "gpu: DEVICE"
	stderr    io.Writer
	mu        sync.Mutex
	fellBack  int
}

// try runs fn on the preferred engine, and once more on the CPU engine
// when that is a GPU and fn fails, saying so on stderr. Any goroutine
// may call it.
func (g *engines) try(ctx context.Context, what string, fn func(e gpufft.Engine) error) error {
	err := fn(g.pref)
	if err == nil || !g.gpu || ctx.Err() != nil {
		return err
	}
	g.mu.Lock()
	g.fellBack++
	fmt.Fprintf(g.stderr, "prism: %s: the GPU failed (%v): again on the CPU engine\n", what, err)
	g.mu.Unlock()
	return fn(g.cpu)
}

// engineName is the provenance's engine: the one opened, and how many
// units or days the CPU engine took over.
func (g *engines) engineName() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fellBack > 0 {
		return fmt.Sprintf("%s (%d on the cpu engine after GPU failures)", g.name, g.fellBack)
	}
	return g.name
}

// newProvenance starts a run's record, every input "not run". The
// inputs' hashes are taken on a goroutine beside the analysis (a cold
// disk reads each file's first MiB in about 10 ms, which one after
// another came before every run); hashed waits for them and writes them
// into the record, and must be called before it is written.
func newProvenance(cmd string, args []string, engineName string, s Shard, files []core.File, outputs []string) (p *out.Provenance, hashed func()) {
	p = &out.Provenance{Command: cmd, Args: args, Version: version.Get(), Engine: engineName,
		Parameters: map[string]any{}, Outputs: outputs, Started: time.Now().UTC().Format(time.RFC3339Nano), Status: "ok"}
	if s.N > 1 {
		p.Shard = s.String()
	}
	sums := make([]string, len(files))
	for _, f := range files {
		p.Inputs = append(p.Inputs, out.Input{Path: f.Path, Size: f.Size, Status: "not run"})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, f := range files {
			sums[i], _ = out.HashInput(f.Path)
		}
	}()
	return p, func() {
		<-done
		for i, h := range sums {
			p.Inputs[i].SHA256 = h
		}
	}
}

// params copies attributes into the provenance's parameters.
func params(p *out.Provenance, attrs []out.Attr) {
	for _, a := range attrs {
		p.Parameters[a.Name] = a.Value
	}
}

func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// committed, when set (tests), is called with each output once it is in
// place.
var committed func(path string)

func noteCommitted(path string) {
	if committed != nil {
		committed(path)
	}
}

// parallelism is --parallel, or the number of cores.
func (c *common) parallelism() int {
	if c.parallel > 0 {
		return c.parallel
	}
	return runtime.GOMAXPROCS(0)
}
