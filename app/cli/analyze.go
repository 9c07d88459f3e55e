package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prismaudio/prism/internal/message"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/tfrfile"
	"github.com/prismaudio/prism/internal/bench"
	"github.com/prismaudio/prism/internal/proc"
)

func runAnalyze(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("analyze", "  prism analyze IN -o OUT.png|.npy|.csv [flags]\n  prism analyze IN... -o DIR/ [--format png|npy|csv] [flags]\n  Several inputs need -o DIR: an existing directory, or a name ending in /\n  or without a .png, .npy or .csv extension (made if missing).\n", stderr)
	var af analysisFlags
	af.register(fs, "device")
	out := fs.String("o", "", "output file (format from its extension), or a directory for several inputs")
	format := fs.String("format", "", "output format when -o is a directory: png (default), npy, csv")
	quiet := fs.Bool("quiet", false, "no progress bar or summary")
	var prof bench.Profiles
	prof.Register(fs)
	timings := fs.Bool("timings", false, "print where each file's time went, one JSON line per file on stderr")
	var mf tfrfile.Flags
	mf.Register(fs)
	inputs, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("analyze", stderr)
	if len(inputs) == 0 {
		return usage("no input file (prism analyze IN -o OUT)")
	}
	if *out == "" {
		return usage("-o OUT is required")
	}
	opts, err := af.options()
	if err != nil {
		return usage("%v", err)
	}
	target, dsts, code, ok := analyzeOutputs(*out, *format, inputs, stderr)
	if !ok {
		return code
	}
	if err := kit.CheckReplace(opts.Force, dsts...); err != nil {
		return usage("%v", err)
	}
	tc, modes, err := mf.Config(fs, opts.FFT, opts.Hop, opts.Window)
	if err != nil {
		return usage("%v", err)
	}
	stopProfiles, ok := startProfiles(&prof, "analyze", stderr)
	if !ok {
		return ExitFailure
	}
	defer stopProfiles()
	if modes {
		return analyzeModes(inputs, dsts, target.Format, tfrfile.Options{Transform: tc, Channel: opts.Channel, Image: opts.Image, Force: opts.Force}, af, *quiet, *timings, stderr)
	}
	// several GPUs only with --device all (docs/performance.md: a second
	// GPU's opening costs more than it saves)
	// the first files' reads start while the engine opens
	go proc.Prefetch(inputs[:min(len(inputs), filesInFlight)])
	t0 := time.Now()
	// a batch starts on each GPU as it opens (engineTokens)
	choice := kit.ChooseEngine("analyze", af.engine, inputs, kit.Verbose(), stderr)
	sess, ok := kit.OpenSessionStart("analyze", choice, af.device, len(inputs) > 1, *quiet, stderr)
	if !ok {
		return ExitFailure
	}
	if *timings {
		bench.WriteLine(stderr, bench.EnginesOpen{Ms: bench.Ms(time.Since(t0))})
	}
	left := false
	defer func() {
		if !left { // a panic: close as usual
			sess.Close()
		}
	}()
	if len(inputs) > 1 { // a batch: plans are kept between files of one shape
		sharePlans(sess)
	}
	b := batchRun{sess: sess, format: target.Format, opts: opts, quiet: *quiet, timings: *timings, stderr: stderr, start: t0,
		release: newEarlyRelease(sess, len(inputs), target.Format)}
	status := b.all(inputs, dsts)
	// every file's output is in place, or its temporary file removed
	if took := b.release.Wait(); *timings && took > 0 {
		bench.WriteLine(stderr, bench.EarlyRelease{Ms: bench.Ms(took)})
	}
	sess.Leave(stderr, *timings)
	left = true
	return status
}

// analyzeModes is `prism analyze --mode` (multires, vqt, reassigned):
// each input through tfrfile on the session's engines, in turn.
func analyzeModes(inputs, dsts []string, format encode.Format, o tfrfile.Options, af analysisFlags, quiet, timings bool, stderr io.Writer) int {
	sess, ok := kit.OpenSession("analyze", kit.ChooseEngine("analyze", af.engine, inputs, kit.Verbose(), stderr), af.device, quiet, stderr)
	if !ok {
		return ExitFailure
	}
	defer sess.Leave(stderr, timings) // --timings: the engines' exit line

	status := ExitOK // a runtime failure (1) outweighs bad input (2)
	for i, in := range inputs {
		res, err := tfrfile.AnalyzeFile(sess.Ctx, in, dsts[i], format, o, sess.Engines)
		kit.Warn(stderr, res.Warnings)
		if err != nil {
			code := kit.Failure(stderr, err)
			if errors.Is(err, context.Canceled) {
				return code
			}
			if status != ExitFailure {
				status = code
			}
			continue
		}
		sess.Written.Add(dsts[i])
		if timings {
			js, _ := json.Marshal(res.Timings(o.Transform.Mode))
			fmt.Fprintf(stderr, "%s%s\n", bench.TimingsPrefix, js)
		}
		if !quiet {
			fmt.Fprintf(stderr, "prism: %s → %s: %v, %d frames × %d bins of %.1f s audio in %.2f s (reading %.2f s) on %s\n", message.Quote(in), message.Quote(dsts[i]),
				o.Transform.Mode, res.Frames, res.Bins, float64(res.Samples)/float64(res.Rate), res.Elapsed.Seconds(), res.Read.Seconds(), res.Engine)
		}
	}
	return status
}

// analyzeOutputs resolves -o and --format for inputs into each input's
// output (saying where inputs share a name) and makes the directory they
// go to; ok is false when the command should return code.
func analyzeOutputs(out, format string, inputs []string, stderr io.Writer) (encode.Target, []string, int, bool) {
	usage := kit.UsageError("analyze", stderr)
	target, err := encode.ResolveTarget(out, format, len(inputs))
	if err != nil {
		return target, nil, usage("%v", err), false
	}
	dsts, notes, err := target.Paths(inputs)
	if err != nil {
		return target, nil, usage("%v", err), false
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "prism: analyze: %s\n", n)
	}
	if target.ToDir {
		if err := os.MkdirAll(target.Out, 0o755); err != nil {
			fmt.Fprintf(stderr, "prism: analyze: %v\n", err)
			return target, nil, ExitFailure, false
		}
	}
	return target, dsts, 0, true
}

// sharePlans gives every engine of the session (those still opening too)
// one plan pool, so a batch keeps plans between files of one shape.
func sharePlans(s *kit.Session) {
	pool := engine.NewPlanPool()
	for i := range s.Set {
		s.Set[i].Plans = pool
	}
	if s.Opening != nil {
		s.Opening.Plans = pool
	}
}

// filesInFlight is how many files a batch on the GPU keeps in flight, over
// all its GPUs: the host reads some into pinned staging and fetches,
// colours and encodes the images of others on its other cores, while the
// device works on the batches queued (8 measured best on an H200:
// docs/performance.md). $PRISM_FILES_IN_FLIGHT (1…64) changes it, to measure.
var filesInFlight = func() int {
	if n, err := strconv.Atoi(os.Getenv("PRISM_FILES_IN_FLIGHT")); err == nil && n >= 1 && n <= 64 {
		return n
	}
	return 8
}()

// batchRun is one `prism analyze` of inputs.
type batchRun struct {
	sess    *kit.Session
	format  encode.Format
	opts    analysis.AnalyzeOptions
	quiet   bool
	timings bool
	stderr  io.Writer
	start   time.Time     // the command's start (--timings)
	release *proc.Release // nil: the engines are left to sess.leave
}

// all analyzes each input; a bad file is reported and skipped. Some file
// failed: a runtime failure says 1, else bad input says 2. On a GPU
// filesInFlight files are in flight at once, so files' images are
// coloured, encoded and written while the device analyzes others; with
// several GPUs (--device all) the files are spread over them, and one
// file alone is spread over them batch by batch. Results are reported in
// input order.
func (b batchRun) all(inputs, dsts []string) int {
	done := make([]chan fileResult, len(inputs))
	for i := range done {
		done[i] = make(chan fileResult, 1)
	}
	go b.dispatch(inputs, dsts, done)
	failed, badInput := false, false
	results := make([]fileResult, 0, len(inputs))
	if b.timings {
		defer func() { printBatchTimings(b.stderr, results, b.start) }()
	}
	for i, in := range inputs {
		r := <-done[i]
		results = append(results, r)
		kit.Warn(b.stderr, r.res.Warnings)
		if b.timings {
			bench.WriteLine(b.stderr, bench.FileTimingsOf(in, r.err == nil, r.res))
		}
		switch {
		case errors.Is(r.err, context.Canceled):
			for _, d := range done[i+1:] { // the others stop too, removing their temporary files
				<-d
			}
			fmt.Fprintf(b.stderr, "prism: %s: interrupted: %s\n", message.Quote(in), b.sess.Written.Say())
			return ExitFailure
		case errors.As(r.err, new(*analysis.InputError)):
			fmt.Fprintf(b.stderr, "prism: %v\n", r.err)
			badInput = true
		case r.err != nil:
			fmt.Fprintf(b.stderr, "prism: %s: %v\n", message.Quote(in), r.err)
			failed = true
		case !b.quiet:
			summary(b.stderr, in, dsts[i], r.res)
		}
	}
	switch {
	case failed:
		return ExitFailure
	case badInput:
		return ExitUsage
	}
	return ExitOK
}

// dispatch starts each input's analysis on an engine as one is free
// (engineTokens) and sends its result on done[i]; one input on several
// GPUs is spread over them all.
func (b batchRun) dispatch(inputs, dsts []string, done []chan fileResult) {
	sess := b.sess
	if len(inputs) == 1 && len(sess.Set) > 1 {
		done[0] <- b.one(sess.Set, inputs[0], dsts[0], false)
		return
	}
	t := b.engineTokens(len(inputs) > 1)
	for i, in := range inputs {
		var e int
		select {
		case e = <-t.slots:
		case <-t.none:
			done[i] <- fileResult{err: t.err}
			continue
		}
		go func() {
			defer func() { t.slots <- e }()
			done[i] <- b.one([]engine.Pair{t.engine(e)}, in, dsts[i], t.inFlight > 1)
		}()
	}
}

// tokens are the engines' turns: a file takes one from slots (an engine's
// index) and gives it back when done.
type tokens struct {
	slots    chan int
	inFlight int
	engine   func(int) engine.Pair
	none     chan struct{} // closed, with err set, when no engine opened
	err      error
}

// engineTokens makes the engines' turns: filesInFlight shared by the GPU
// engines in a batch, one for the CPU's (it uses every core on one
// file). A batch on several GPUs (the session's opening) gets each GPU's
// turns as soon as that GPU is open, not once all are; a GPU that fails
// to open leaves its files to the others, with a warning.
func (b batchRun) engineTokens(batch bool) *tokens {
	sess := b.sess
	o := sess.Opening
	if o == nil {
		perEngine := max(1, filesInFlight/len(sess.Set))
		t := &tokens{slots: make(chan int, perEngine*len(sess.Set)), engine: func(i int) engine.Pair { return sess.Set[i] }}
		for k := range perEngine {
			for i, e := range sess.Set {
				if k == 0 || (e.HasGPU() && batch) {
					t.slots <- i
				}
			}
		}
		t.inFlight = len(t.slots)
		return t
	}
	perEngine := max(1, filesInFlight/o.Len())
	t := &tokens{slots: make(chan int, perEngine*o.Len()), inFlight: perEngine * o.Len(), engine: o.Engine, none: make(chan struct{})}
	go func() {
		opened := 0
		for i := range o.Ready() {
			opened++
			if b.timings {
				bench.WriteLine(b.stderr, bench.EngineOpen{Engine: i, Ms: bench.Ms(time.Since(b.start))})
			}
			for range perEngine {
				t.slots <- i
			}
		}
		_, err := o.Wait()
		switch {
		case opened == 0:
			t.err = err
			close(t.none)
		case err != nil:
			fmt.Fprintf(b.stderr, "prism: warning: %v: the other GPUs analyze its files\n", err)
		}
	}()
	return t
}

// printBatchTimings writes the batch's --timings line: the busy summary
// of results' stages; start is when the command started.
func printBatchTimings(w io.Writer, results []fileResult, start time.Time) {
	stages := make([]analysis.Stages, len(results))
	for i, r := range results {
		stages[i] = r.res.Stages
	}
	bench.WriteLine(w, bench.BatchLine{Batch: bench.BatchTimingsOf(stages, start)})
}

type fileResult struct {
	res analysis.AnalyzeResult
	err error
}

// one analyzes one input on set (several GPUs share it: see
// analysis.AnalyzeFileSet), with a progress bar unless noBar or quiet.
func (b batchRun) one(set []engine.Pair, in, dst string, noBar bool) fileResult {
	ctx := b.sess.Ctx
	if err := ctx.Err(); err != nil {
		return fileResult{err: err}
	}
	o := b.opts
	o.EngineDone = b.release.FileDone()
	defer o.EngineDone() // a file that failed or never used the GPU is done with it too
	o.Image.Title = fmt.Sprintf("%s   N=%d  hop=%d  %v  %s", filepath.Base(in), o.FFT, o.Hop, o.Window, dsp.ChannelName(o.Channel))
	src := in
	if b.format == encode.FormatPNG { // the image needs the length first
		var err error
		var remove func()
		if src, remove, err = proc.Spool(ctx, in); err != nil {
			return fileResult{err: err}
		}
		defer remove()
	}
	bar := message.NewBar(noBar || b.quiet, b.stderr, filepath.Base(in))
	res, err := analysis.AnalyzeFileSet(ctx, src, dst, b.format, o, set, bar.Progress)
	bar.Finish()
	err = proc.Renamed(err, src, in)
	res.Warnings = proc.RenameAll(res.Warnings, src, in)
	if err == nil {
		b.sess.Written.Add(dst)
	}
	return fileResult{res, err}
}

// summary is the line that says what an analysis did.
func summary(w io.Writer, in, dst string, res analysis.AnalyzeResult) {
	audioSec := float64(res.Samples) / float64(res.Rate)
	how := res.Engine
	if res.Devices > 1 {
		how = fmt.Sprintf("%d GPUs (%s, …)", res.Devices, res.Engine)
	}
	if res.RawPCM {
		how += ", raw PCM converted by the engine"
	}
	fmt.Fprintf(w, "prism: %s → %s: %d frames of %.1f s audio in %.2f s (%.0f× real time, %.1f Msamples/s) on %s\n",
		message.Quote(in), message.Quote(dst), res.Frames, audioSec, res.Elapsed.Seconds(), audioSec/res.Elapsed.Seconds(),
		float64(res.Samples)/res.Elapsed.Seconds()/1e6, how)
}
