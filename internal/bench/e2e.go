package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// E2EOptions configure `prism bench --e2e`: whole `prism analyze` runs
// of a generated file, as a user runs them.
type E2EOptions struct {
	Seconds float64 // the file's length
	Batch   int     // files in the batch row
	Repeat  int     // runs per row (the median is reported)
	Engines []string
	Device  string // the OpenCL device (--device), "" for the default
	JSON    bool   // JSON rows instead of the table
}

// ErrRunsFailed is RunE2E's error when some runs failed; they were
// reported on stderr and the rows printed.
var ErrRunsFailed = errors.New("bench: some runs failed")

// e2eRow is one measurement: a median wall time over repeat runs.
type e2eRow struct {
	Case    string  `json:"case"`
	Engine  string  `json:"engine"`
	Seconds float64 `json:"seconds"`          // median wall time of the whole case
	PerFile float64 `json:"per_file_seconds"` // Seconds / files
	Files   int     `json:"files"`
	// Stages: the batch's per-file stage times (--timings) of its last
	// run, averaged over the files (files in flight overlap them)
	Stages *FileTimings `json:"stages,omitempty"`
	// Busy: the batch's busy summary (--timings) of its last run
	Busy *BatchTimings `json:"busy,omitempty"`
	// Open: the NPY row's engines_open_ms (--timings) of its last run
	Open float64 `json:"engines_open_ms,omitempty"`
}

// RunE2E generates a 48 kHz stereo 16-bit WAV of o.Seconds (the
// generator's logarithmic sweep) and times, for each engine, `prism
// analyze` (this executable) to a 1920×1080 PNG (N=4096, hop 1024, the
// mix) as separate processes: with an empty and a warm OpenCL program
// cache, to NPY, and a batch of o.Batch such files in one process; and
// the floors: the time to read the file, and to write the NPY's bytes as
// analyze writes them. The rows go to stdout, failed runs to stderr.
func RunE2E(o E2EOptions, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "prism-e2e-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.wav")
	if err := writeE2EFile(in, o.Seconds); err != nil {
		return err
	}
	batch, err := linkBatch(in, o.Batch)
	if err != nil {
		return err
	}
	r := e2eRunner{self: self, dir: dir, device: o.Device, repeat: o.Repeat, stderr: stderr}
	rows := []e2eRow{r.readFloor(in)}
	if row, ok := r.soxRow(in); ok {
		rows = append(rows, row)
	}
	for _, eng := range o.Engines {
		rows = append(rows, r.engineRows(eng, in, batch)...)
	}
	if row, ok := r.npyFloorRow(filepath.Join(dir, "o.npy")); ok { // the last engine's NPY
		rows = slices.Insert(rows, 1, row)
	}
	if r.failed {
		fmt.Fprintf(stderr, "prism: bench: some runs failed (see above)\n")
	}
	if o.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rows)
	} else {
		printE2E(stdout, rows, o.Seconds)
	}
	if r.failed {
		return ErrRunsFailed
	}
	return nil
}

// linkBatch links n names in in's directory to in: the batch's files.
func linkBatch(in string, n int) ([]string, error) {
	var batch []string
	for i := range n {
		p := filepath.Join(filepath.Dir(in), fmt.Sprintf("in%02d.wav", i))
		if err := os.Link(in, p); err != nil {
			return nil, err
		}
		batch = append(batch, p)
	}
	return batch, nil
}

// writeE2EFile writes seconds of 48 kHz stereo int16 from the signal
// generator: a logarithmic sweep from 20 Hz to 20 kHz at −12 dBFS over the
// whole file.
func writeE2EFile(path string, seconds float64) error {
	const rate = 48000
	gs, err := audio.ParseGenerator(fmt.Sprintf("sweep:20:20000:-12:%g", seconds))
	if err != nil {
		return err
	}
	g, err := audio.NewGenerator(gs, rate, 2, false)
	if err != nil {
		return err
	}
	o, err := encode.Create(path)
	if err != nil {
		return err
	}
	defer o.Discard()
	w, err := encode.NewWAVWriter(o, rate, 2, 16, false)
	if err != nil {
		return err
	}
	block := make([]float32, 2*rate)
	for left := int(seconds * rate); left > 0; left -= len(block) / 2 {
		b := block[:2*min(rate, left)]
		g.Generate(b)
		if err := w.Write(b); err != nil {
			return err
		}
	}
	if err := w.Finish(); err != nil {
		return err
	}
	return o.Commit()
}

// e2eRunner runs `prism analyze` processes and times them.
type e2eRunner struct {
	self, dir, device string
	repeat            int
	stderr            io.Writer
	failed            bool
}

// readFloor times reading the whole file (the page cache warm).
func (r *e2eRunner) readFloor(in string) e2eRow {
	row := e2eRow{Case: "read the file (floor)", Engine: "-", Files: 1, Seconds: r.median(func() error {
		_, err := os.ReadFile(in)
		return err
	})}
	row.PerFile = row.Seconds
	return row
}

// engineRows measures one engine's cases.
func (r *e2eRunner) engineRows(eng, in string, batch []string) []e2eRow {
	png, npy := filepath.Join(r.dir, "o.png"), filepath.Join(r.dir, "o.npy")
	base := []string{"analyze", "--engine", eng, "--fft", "4096", "--hop", "1024", "--quiet"}
	if r.device != "" {
		base = append(base, "--device", r.device)
	}
	cacheEmpty := func() []string { // a new empty program cache each run
		d, _ := os.MkdirTemp(r.dir, "cache-")
		return []string{gpufft.EnvCacheDir + "=" + d}
	}
	warmCache := filepath.Join(r.dir, "cache-warm")
	os.MkdirAll(warmCache, 0o755)
	warm := []string{gpufft.EnvCacheDir + "=" + warmCache}
	r.run(warm, append(slices.Clone(base), in, "-o", png)) // fills the warm cache
	var npyOut []byte
	npyRow := e2eRow{Case: npyCase, Files: 1, Seconds: r.median(func() (err error) {
		npyOut, err = r.output(warm, append(slices.Clone(base), in, "-o", npy, "--timings"))
		return err
	})}
	npyRow.Stages, npyRow.Open = MeanTimings(string(npyOut)), EnginesOpenMs(string(npyOut))
	rows := []e2eRow{
		{Case: pngWarmCase, Files: 1, Seconds: r.median(func() error { return r.run(warm, append(slices.Clone(base), in, "-o", png)) })},
		npyRow,
	}
	if eng == "gpu" {
		rows = append(rows, e2eRow{Case: "analyze → PNG, empty program cache", Files: 1,
			Seconds: r.median(func() error { return r.run(cacheEmpty(), append(slices.Clone(base), in, "-o", png)) })})
	}
	outDir := filepath.Join(r.dir, "batch") + "/"
	args := append(append(slices.Clone(base), batch...), "-o", outDir, "--timings")
	var last []byte
	row := e2eRow{Case: fmt.Sprintf("batch of %d files → PNG, one process", len(batch)), Files: len(batch),
		Seconds: r.median(func() (err error) { last, err = r.output(warm, args); return err })}
	row.Stages, row.Busy = MeanTimings(string(last)), BatchBusy(string(last))
	rows = append(rows, row)
	for i := range rows {
		rows[i].Engine = eng
		rows[i].PerFile = rows[i].Seconds / float64(rows[i].Files)
	}
	return rows
}

// run runs one prism process with env added; a failure is reported.
func (r *e2eRunner) run(env, args []string) error {
	_, err := r.output(env, args)
	return err
}

// output is run returning the process's stdout and stderr.
func (r *e2eRunner) output(env, args []string) ([]byte, error) {
	cmd := exec.Command(r.self, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.failed = true
		fmt.Fprintf(r.stderr, "prism: bench: %v: %v\n%s", args, err, out)
	}
	return out, err
}

// median runs f repeat times and returns the median wall time in seconds.
func (r *e2eRunner) median(f func() error) float64 {
	var ts []float64
	for range max(1, r.repeat) {
		start := time.Now()
		if f() != nil {
			return math.NaN()
		}
		ts = append(ts, time.Since(start).Seconds())
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

func printE2E(w io.Writer, rows []e2eRow, seconds float64) {
	fmt.Fprintf(w, "prism analyze of a %s 48 kHz stereo 16-bit WAV, N=4096, hop 1024, mix, 1920×1080 PNG; whole processes, median wall time\n", fmtDuration(seconds))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tengine\tfiles\tseconds\tper file\t")
	byCase := map[string]map[string]float64{}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t\n", r.Case, r.Engine, r.Files, r.Seconds, r.PerFile)
		if byCase[r.Case] == nil {
			byCase[r.Case] = map[string]float64{}
		}
		byCase[r.Case][r.Engine] = r.PerFile
	}
	tw.Flush()
	for _, r := range rows {
		if st := r.Stages; st != nil {
			fmt.Fprintf(w, "%s, %s, per file (mean; files in flight overlap): total %.1f ms = setup %.1f + analyze %.1f + fetch %.1f + render %.1f + encode %.1f + commit %.1f; plans reused: %v\n",
				r.Case, r.Engine, st.Total, st.Setup, st.Analyze, st.Fetch, st.Render, st.Encode, st.Commit, st.Reused)
		}
		if b := r.Busy; b != nil {
			fmt.Fprintf(w, "%s, %s, busy over the files' %.1f ms (%.1f ms since the command started), ms at least one file / all files together:", r.Case, r.Engine, b.Wall, b.Started)
			for _, k := range b.Busy {
				fmt.Fprintf(w, " %s %.1f/%.1f", k.Kind, k.Union, k.Sum)
			}
			fmt.Fprintln(w)
		}
	}
	for _, r := range rows {
		if r.Engine != "gpu" {
			continue
		}
		if c, ok := byCase[r.Case]["cpu"]; ok {
			fmt.Fprintf(w, "%s: GPU %.2f× the CPU engine's speed\n", r.Case, c/r.PerFile)
		}
	}
	printSoxRatio(w, rows)
	printNPYFloor(w, rows)
}

// pngWarmCase is the single-file PNG row, the one compared with sox;
// npyCase the single-file NPY row, compared with the write floor.
const (
	pngWarmCase = "analyze → PNG, warm program cache"
	npyCase     = "analyze → NPY, warm program cache"
)

func fmtDuration(seconds float64) string {
	if seconds >= 60 && math.Mod(seconds, 60) == 0 {
		return strconv.Itoa(int(seconds/60)) + "-minute"
	}
	return strconv.FormatFloat(seconds, 'g', -1, 64) + "-second"
}
