package archive

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	core "github.com/prismaudio/prism/app/archive"
)

// Shard is task K (0-based) of N.
type Shard struct{ K, N int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// The environment variables --shard reads.
const (
	envSlurmID    = "SLURM_ARRAY_TASK_ID"
	envSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	envSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	envK8sIndex   = "JOB_COMPLETION_INDEX"
	envK8sCount   = "PRISM_SHARDS" // the Job's completions: Kubernetes does not tell a pod
)

// ParseShard reads --shard: "" (the whole archive), "K/N", "slurm"
// (SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN of
// SLURM_ARRAY_TASK_COUNT), "k8s" (JOB_COMPLETION_INDEX of PRISM_SHARDS)
// or "auto" (slurm, else k8s, else the whole archive). getenv is
// os.Getenv outside tests.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	switch s {
	case "":
		return Shard{0, 1}, nil
	case "auto":
		if getenv(envSlurmID) != "" {
			return ParseShard("slurm", getenv)
		}
		if getenv(envK8sIndex) != "" {
			return ParseShard("k8s", getenv)
		}
		return Shard{0, 1}, nil
	case "slurm":
		id, err := envInt(getenv, envSlurmID)
		if err != nil {
			return Shard{}, err
		}
		lo := 0
		if getenv(envSlurmMin) != "" {
			if lo, err = envInt(getenv, envSlurmMin); err != nil {
				return Shard{}, err
			}
		}
		n, err := envInt(getenv, envSlurmCount)
		if err != nil {
			return Shard{}, err
		}
		return checkShard(Shard{id - lo, n}, "--array's task ids must run from MIN by 1")
	case "k8s":
		k, err := envInt(getenv, envK8sIndex)
		if err != nil {
			return Shard{}, err
		}
		n, err := envInt(getenv, envK8sCount)
		if err != nil {
			return Shard{}, fmt.Errorf("%w (set it to the Job's completions)", err)
		}
		return checkShard(Shard{k, n}, "")
	}
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want K/N, slurm, k8s or auto", s)
	}
	return checkShard(Shard{ki, ni}, "")
}

func envInt(getenv func(string) string, name string) (int, error) {
	v := getenv(name)
	i, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("$%s is %q: want an integer", name, v)
	}
	return i, nil
}

func checkShard(s Shard, hint string) (Shard, error) {
	if s.N < 1 || s.K < 0 || s.K >= s.N {
		msg := fmt.Sprintf("shard %d/%d: want 0 ≤ K < N", s.K, s.N)
		if hint != "" {
			msg += " (" + hint + ")"
		}
		return Shard{}, fmt.Errorf("%s", msg)
	}
	return s, nil
}

// envShard is ParseShard on the process's environment.
func envShard(s string) (Shard, error) { return ParseShard(s, os.Getenv) }

// unit is files (indices into the catalogue's files) that one LTSA call
// reads: no time bin has samples on both sides of a unit's boundary.
type unit struct {
	first, end int // files[first:end]
	frames     int64
}

// units splits files (sorted by start) into units: a new unit starts at a
// file whose first sample lies in a later time bin of length average than
// the last sample of every file before it. Files that follow each other
// mid-bin, or overlap, stay in one unit (the analysis joins or trims them
// as one run).
func units(files []core.File, average time.Duration) []unit {
	var out []unit
	var lastBin int64
	for i, f := range files {
		first := binOf(f.Start, average)
		if i == 0 || first > lastBin {
			out = append(out, unit{first: i})
		}
		u := &out[len(out)-1]
		u.end, u.frames = i+1, u.frames+f.Frames
		if last := binOf(f.End().Add(-time.Nanosecond), average); i == 0 || last > lastBin {
			lastBin = last
		}
	}
	return out
}

// binOf is the time bin of length average that holds t (bins start at
// multiples of average since the Unix epoch, as the analyses' bins do).
func binOf(t time.Time, average time.Duration) int64 {
	ns, a := t.UnixNano(), int64(average)
	q := ns / a
	if ns%a != 0 && ns < 0 {
		q--
	}
	return q
}

// take returns shard s's share of n items of the given weights: a
// contiguous run, item i going to the shard that holds the middle of its
// weight in the cumulative total (so shards get about equal weight, and
// every item exactly one shard).
func take(s Shard, weights []int64) (first, end int) {
	var total int64
	for _, w := range weights {
		total += max(w, 1)
	}
	first, end = len(weights), len(weights)
	var cum int64
	for i, w := range weights {
		w = max(w, 1)
		k := int((float64(cum) + float64(w)/2) * float64(s.N) / float64(total))
		cum += w
		if k == s.K && first == len(weights) {
			first = i
		}
		if k > s.K {
			end = i
			break
		}
	}
	if first > end {
		first = end
	}
	return first, end
}

// days lists the UTC days that files cover, in order.
func days(files []core.File) []time.Time {
	var out []time.Time
	seen := map[time.Time]bool{}
	for _, f := range files {
		for d := dayOf(f.Start); d.Before(f.End()); d = d.AddDate(0, 0, 1) {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// filesOn returns the files that have samples on UTC day d.
func filesOn(files []core.File, d time.Time) []core.File {
	var out []core.File
	next := d.AddDate(0, 0, 1)
	for _, f := range files {
		if f.Start.Before(next) && f.End().After(d) {
			out = append(out, f)
		}
	}
	return out
}
