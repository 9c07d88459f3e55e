package archive

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	core "github.com/prismaudio/prism/app/archive"
)

// randomFiles is a catalogue of n files of rate Hz: runs of contiguous
// files (some starting mid-bin), gaps, and overlaps.
func randomFiles(rng *rand.Rand, n int) []core.File {
	var files []core.File
	t := time.Date(2026, 1, 1, 23, 0, 0, 0, time.UTC)
	for i := range n {
		secs := 30 + rng.IntN(600)
		f := core.File{Path: fmt.Sprintf("f%03d.wav", i), Start: t, Rate: 8000, Frames: int64(secs * 8000), Channels: 1}
		files = append(files, f)
		switch rng.IntN(4) {
		case 0: // contiguous
			t = f.End()
		case 1: // a gap
			t = f.End().Add(time.Duration(rng.IntN(7200)) * time.Second)
		case 2: // an overlap
			t = f.End().Add(-time.Duration(rng.IntN(20)) * time.Second)
		default: // contiguous, on a minute
			t = f.End().Truncate(time.Minute).Add(time.Minute)
		}
	}
	return files
}

// TestShardsPartition: for any N every file is in exactly one shard, a
// shard's files are contiguous, and no time bin has files in two shards.
func TestShardsPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 20 {
		files := randomFiles(rng, 1+rng.IntN(60))
		avg := []time.Duration{time.Second, 10 * time.Second, time.Minute, 75 * time.Second, time.Hour}[trial%5]
		us := units(files, avg)
		w := make([]int64, len(us))
		for i, u := range us {
			w[i] = u.frames
		}
		for N := 1; N <= 12; N++ {
			count := make([]int, len(files))
			lastBin := int64(-1 << 62)
			for K := range N {
				first, end := take(Shard{K, N}, w)
				for _, u := range us[first:end] {
					for i := u.first; i < u.end; i++ {
						count[i]++
						if b := binOf(files[i].Start, avg); b <= lastBin && i == u.first {
							t.Fatalf("trial %d N=%d: %s starts in bin %d, which an earlier unit reaches (%d)", trial, N, files[i].Path, b, lastBin)
						}
					}
					for i := u.first; i < u.end; i++ {
						lastBin = max(lastBin, binOf(files[i].End().Add(-1), avg))
					}
				}
			}
			for i, c := range count {
				if c != 1 {
					t.Fatalf("trial %d N=%d: %s is in %d shards", trial, N, files[i].Path, c)
				}
			}
		}
	}
}

// TestShardsDays: every UTC day in exactly one shard, days a file covers
// all listed.
func TestShardsDays(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	files := randomFiles(rng, 80)
	ds := days(files)
	for _, f := range files {
		for d := dayOf(f.Start); d.Before(f.End()); d = d.AddDate(0, 0, 1) {
			if len(filesOn(files, d)) == 0 {
				t.Fatalf("day %s of %s has no files", d, f.Path)
			}
		}
	}
	w := make([]int64, len(ds))
	for i := range w {
		w[i] = 1
	}
	for N := 1; N <= 10; N++ {
		got := 0
		for K := range N {
			first, end := take(Shard{K, N}, w)
			got += end - first
			if first != 0 && K == 0 {
				t.Fatalf("N=%d: shard 0 starts at %d", N, first)
			}
		}
		if got != len(ds) {
			t.Fatalf("N=%d: %d days in shards, want %d", N, got, len(ds))
		}
	}
}

func TestParseShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		arg  string
		env  func(string) string
		want Shard
		ok   bool
	}{
		{"", env(), Shard{0, 1}, true},
		{"2/5", env(), Shard{2, 5}, true},
		{"5/5", env(), Shard{}, false},
		{"x", env(), Shard{}, false},
		{"slurm", env(envSlurmID, "3", envSlurmCount, "4"), Shard{3, 4}, true},
		{"slurm", env(envSlurmID, "4", envSlurmMin, "1", envSlurmCount, "4"), Shard{3, 4}, true},
		{"slurm", env(envSlurmID, "4", envSlurmCount, "4"), Shard{}, false},
		{"slurm", env(), Shard{}, false},
		{"k8s", env(envK8sIndex, "1", envK8sCount, "3"), Shard{1, 3}, true},
		{"k8s", env(envK8sIndex, "1"), Shard{}, false},
		{"auto", env(envK8sIndex, "0", envK8sCount, "2"), Shard{0, 2}, true},
		{"auto", env(envSlurmID, "1", envSlurmCount, "2", envK8sIndex, "0", envK8sCount, "2"), Shard{1, 2}, true},
		{"auto", env(), Shard{0, 1}, true},
	} {
		got, err := ParseShard(c.arg, c.env)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v (ok %v)", c.arg, got, err, c.want, c.ok)
		}
	}
}
