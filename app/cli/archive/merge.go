package archive

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/archive/out"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/internal/version"
)

const mergeUsage = `  prism ltsa merge PART.nc… -o OUT.nc|.npy|.png
  Joins the parts that 'prism ltsa --shard K/N' wrote (every K of one N,
  each once) into the file one process writes, byte for byte.
`

func merge(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("ltsa merge", mergeUsage, stderr)
	var target string
	var quiet bool
	fs.StringVar(&target, "o", "", "output: .nc, .npy (with OUT.json) or .png")
	fs.BoolVar(&quiet, "quiet", false, "no summary")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("ltsa merge", stderr)
	if _, ok := out.FormatOf(target); !ok {
		return usage("-o OUT.nc, OUT.npy or OUT.png is required")
	}
	if len(pos) == 0 {
		return usage("want the parts (PART.nc…)")
	}
	start := time.Now()
	rows, err := mergeParts(pos, target)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	prov := &out.Provenance{Command: "ltsa merge", Args: args, Version: version.Get(), Engine: "none",
		Parameters: map[string]any{}, Outputs: []string{target}, Started: start.UTC().Format(time.RFC3339Nano),
		Seconds: time.Since(start).Seconds(), Status: "ok"}
	for _, p := range pos {
		in := out.Input{Path: p, Status: "ok"}
		in.SHA256, _ = out.HashInput(p)
		prov.Inputs = append(prov.Inputs, in)
	}
	if err := out.WriteProvenance(out.ProvenancePath(target), prov); err != nil {
		return kit.Failure(stderr, err)
	}
	if !quiet {
		fmt.Fprintf(stdout, "%s: %d parts, %d time bins\n", target, len(pos), rows)
	}
	return kit.ExitOK
}

// mergeParts checks the parts are every shard of one run, each once, and
// writes their rows in time order to target.
func mergeParts(paths []string, target string) (int, error) {
	parts := make([]*out.Part, len(paths))
	for i, p := range paths {
		part, err := out.OpenPart(p)
		if err != nil {
			return 0, err
		}
		defer part.Close()
		parts[i] = part
	}
	if err := checkParts(paths, parts); err != nil {
		return 0, err
	}
	slices.SortFunc(parts, func(a, b *out.Part) int {
		ka, _ := shardOf(a.Meta.Shard)
		kb, _ := shardOf(b.Meta.Shard)
		return ka.K - kb.K
	})
	meta := parts[0].Meta
	meta.Shard = ""
	w, err := out.Create(target, meta, paths)
	if err != nil {
		return 0, err
	}
	defer w.Discard()
	var last time.Time
	rows := 0
	for _, p := range parts {
		err := p.Each(func(r out.Row) error {
			if rows > 0 && !r.Start.After(last) {
				return fmt.Errorf("archive: %s: a time bin at %s is not after the previous part's last (%s): parts of different runs?", p.Meta.Shard, r.Start.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))
			}
			last = r.Start
			rows++
			return w.Write(r)
		})
		if err != nil {
			return 0, err
		}
	}
	return rows, w.Commit()
}

// checkParts says whether the parts are shards 0…N−1 of one N, each once,
// with equal descriptions.
func checkParts(paths []string, parts []*out.Part) error {
	var n int
	seen := map[int]string{}
	for i, p := range parts {
		s, err := shardOf(p.Meta.Shard)
		if err != nil {
			return fmt.Errorf("archive: %s: %w", paths[i], err)
		}
		if i == 0 {
			n = s.N
		}
		if s.N != n {
			return fmt.Errorf("archive: %s is shard %s, %s of %d shards", paths[i], s, paths[0], n)
		}
		if prev, ok := seen[s.K]; ok {
			return fmt.Errorf("archive: %s and %s are both shard %s", prev, paths[i], s)
		}
		seen[s.K] = paths[i]
		a, b := parts[0].Meta, p.Meta
		a.Shard, b.Shard = "", ""
		if !reflect.DeepEqual(a, b) {
			return fmt.Errorf("archive: %s and %s differ in their parameters or frequencies: parts of different runs", paths[0], paths[i])
		}
	}
	var missing []string
	for k := range n {
		if _, ok := seen[k]; !ok {
			missing = append(missing, strconv.Itoa(k))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("archive: shards %s of %d are missing", strings.Join(missing, ", "), n)
	}
	return nil
}

// shardOf reads a part's "K/N".
func shardOf(s string) (Shard, error) {
	if s == "" {
		return Shard{}, errors.New("not a shard's part (written without --shard)")
	}
	return ParseShard(s, func(string) string { return "" })
}
