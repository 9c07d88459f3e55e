package gpufft

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/window"
)

// cacheRun opens a fresh engine (so programs come from the disk cache or
// the compiler, never from an engine's map), makes an image plan, which
// needs two programs, runs it on a fixed signal and returns the image and
// the engine's stats.
func cacheRun(t *testing.T) ([]float32, OpenCLStats) {
	t.Helper()
	requireGPU(t)
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := SpectrogramConfig{Size: 256, Hop: 64, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 4096, Output: DBFS}
	ic := ImageConfig{Columns: 16, TotalFrames: cfg.Frames(4096), RowLo: []int32{0, 10, 40}, RowHi: []int32{10, 40, 129}}
	p, err := e.NewImage(cfg, ic)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(0.5*math.Sin(0.3*float64(i)) + 0.01*r.NormFloat64())
	}
	if _, err := p.Add(x, 0); err != nil {
		t.Fatal(err)
	}
	img := make([]float32, ic.Columns*ic.Rows())
	if err := p.Image(img); err != nil {
		t.Fatal(err)
	}
	return img, e.Stats()
}

func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestProgramCache: a miss compiles and writes one entry per program; a
// hit loads every program from the cache, compiles nothing, and gives the
// same image bit for bit; damaged entries (flipped byte, truncated, empty,
// garbage, a valid checksum over a binary the driver refuses, another
// entry's whole file: issue 33 item 13) are each detected, rebuilt and
// replaced.
func TestProgramCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCacheDir, dir)
	want, st := cacheRun(t)
	if st.Programs != 2 || st.CacheHits != 0 || st.CacheWrites != 2 || st.CacheErrors != 0 || st.BuildSource <= 0 {
		t.Fatalf("cold: %+v, want 2 programs compiled and written", st)
	}
	entries := cacheEntries(t, dir)
	if len(entries) != 2 {
		t.Fatalf("cold: cache holds %v, want 2 entries", entries)
	}
	got, st := cacheRun(t)
	if st.Programs != 2 || st.CacheHits != 2 || st.CacheWrites != 0 || st.BuildSource != 0 {
		t.Fatalf("warm: %+v, want 2 cache hits and no compile", st)
	}
	if !slices.Equal(got, want) {
		t.Fatal("warm: image differs from the one built from source")
	}
	good := make([][]byte, len(entries))
	for i, f := range entries {
		if good[i], _ = os.ReadFile(f); len(good[i]) <= cacheHeader {
			t.Fatalf("entry %s is %d bytes", f, len(good[i]))
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(key string, b, other []byte) []byte // other: the other entry's good file
	}{
		{"flipped byte", func(_ string, b, _ []byte) []byte { b = slices.Clone(b); b[len(b)/2+cacheHeader/2] ^= 0x40; return b }},
		{"truncated", func(_ string, b, _ []byte) []byte { return b[:len(b)-7] }},
		{"header only", func(_ string, b, _ []byte) []byte { return b[:cacheHeader] }},
		{"empty", func(string, []byte, []byte) []byte { return nil }},
		{"garbage", func(_ string, b, _ []byte) []byte { return []byte(strings.Repeat("x", len(b))) }},
		{"refused by the driver", func(key string, _, _ []byte) []byte {
			return encodeEntry(key, []byte("not a program binary at all"))
		}},
		{"another entry's file", func(_ string, _, other []byte) []byte { return other }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, f := range entries {
				key := strings.TrimSuffix(filepath.Base(f), ".clbin")
				if err := os.WriteFile(f, tc.damage(key, good[i], good[1-i]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, st := cacheRun(t)
			if st.CacheHits != 0 || st.CacheRejected != 2 || st.CacheWrites != 2 {
				t.Fatalf("%+v, want both entries rejected, rebuilt and rewritten", st)
			}
			if !slices.Equal(got, want) {
				t.Fatal("image differs after rebuilding")
			}
			// the rewritten entries are good again
			if _, st := cacheRun(t); st.CacheHits != 2 {
				t.Fatalf("after the rebuild: %+v, want 2 hits", st)
			}
		})
	}
}

// TestProgramCacheKeys: build options, sources and the device's identity
// each change the entry's name; an engine with other options misses.
func TestProgramCacheKeys(t *testing.T) {
	c := progCache{dir: "x", ident: "a"}
	d := progCache{dir: "x", ident: "b"}
	base := c.key("-D A=1", "common", "src")
	for _, k := range []string{c.key("-D A=2", "common", "src"), c.key("-D A=1 -w", "common", "src"),
		c.key("-D A=1", "common", "src2"), c.key("-D A=1", "commonsrc", ""), d.key("-D A=1", "common", "src")} {
		if k == base {
			t.Errorf("key collision: %s", k)
		}
	}
	if c.key("-D A=1", "common", "src") != base {
		t.Error("key is not deterministic")
	}

	dir := t.TempDir()
	t.Setenv(EnvCacheDir, dir)
	cacheRun(t)
	n := len(cacheEntries(t, dir))
	t.Setenv("PRISM_OPENCL_OPTIONS", "-cl-denorms-are-zero")
	if _, st := cacheRun(t); st.CacheHits != 0 || st.CacheWrites != 2 {
		t.Fatalf("other options: %+v, want 2 misses", st)
	}
	if m := len(cacheEntries(t, dir)); m != n+2 {
		t.Fatalf("other options: %d entries, want %d", m, n+2)
	}
	if _, st := cacheRun(t); st.CacheHits != 2 {
		t.Fatalf("other options, again: %+v, want 2 hits", st)
	}
}

// TestProgramCacheUnwritable: a cache directory that cannot be created or
// written costs the cache, not the engine: plans build and run, one write
// is tried and given up, nothing is returned as an error. "off" disables
// the cache entirely.
func TestProgramCacheUnwritable(t *testing.T) {
	requireGPU(t)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := []string{filepath.Join(blocker, "cache")} // under a regular file: cannot exist
	if os.Geteuid() != 0 {                            // root writes through permissions
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		dirs = append(dirs, ro)
	}
	var want []float32
	for _, dir := range dirs {
		t.Setenv(EnvCacheDir, dir)
		img, st := cacheRun(t)
		if st.Programs != 2 || st.CacheErrors != 1 || st.CacheWrites != 0 || st.CacheHits != 0 {
			t.Errorf("%s: %+v, want 2 programs built, 1 failed write", dir, st)
		}
		if want == nil {
			want = img
		} else if !slices.Equal(img, want) {
			t.Errorf("%s: image differs", dir)
		}
	}
	t.Setenv(EnvCacheDir, "off")
	if _, st := cacheRun(t); st.CacheErrors != 0 || st.CacheWrites != 0 || st.CacheHits != 0 {
		t.Errorf("off: %+v, want no cache activity", st)
	}
	// a missing directory is created
	missing := filepath.Join(t.TempDir(), "a", "b")
	t.Setenv(EnvCacheDir, missing)
	if _, st := cacheRun(t); st.CacheWrites != 2 {
		t.Errorf("missing dir: %+v, want 2 writes", st)
	}
}

// TestProgramCachePrune: writing an entry removes entries unused for
// cacheMaxAge and temporaries older than an hour, and keeps the rest; it
// never removes a file whose name the cache did not generate, however old
// and whatever it contains (issue 33 item 6: PRISM_OPENCL_CACHE pointed at
// a documents folder deleted thesis.tmp.docx).
func TestProgramCachePrune(t *testing.T) {
	dir := t.TempDir()
	c := progCache{dir: dir, ident: "x"}
	now := time.Now()
	stale, recent := c.key("-D STALE", "s"), c.key("-D RECENT", "s")
	ancient := 10 * cacheMaxAge
	files := map[string]time.Duration{ // name: age
		stale + ".clbin":                 cacheMaxAge + time.Hour,
		recent + ".clbin":                cacheMaxAge - time.Hour,
		stale + ".0123456789abcdef.tmp":  2 * time.Hour, // left by a crash
		recent + ".fedcba9876543210.tmp": time.Minute,   // a write in progress
		stale + ".tmp123":                2 * time.Hour, // an earlier version's temporary
		"probe-ok-1":                     ancient,
		// the user's
		"thesis.tmp.docx": ancient, "notes.clbin": ancient, "a.tmp123": ancient, ".tmp": ancient,
		strings.ToUpper(stale) + ".clbin": ancient, stale + ".clbin.bak": ancient, "x" + stale + ".clbin": ancient,
		stale[:63] + ".clbin": ancient, stale + ".0123456789abcdef.tmp.docx": ancient, stale + ".tmp12a": ancient,
	}
	removed := map[string]bool{stale + ".clbin": true, stale + ".0123456789abcdef.tmp": true, stale + ".tmp123": true}
	for name, age := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.store(c.key("-D A", "s"), []byte("binary")); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := err != nil; gone != removed[name] {
			t.Errorf("%s: removed = %v, want %v", name, gone, removed[name])
		}
	}
	if bin, damaged := c.load(c.key("-D A", "s")); string(bin) != "binary" || damaged {
		t.Errorf("new entry reads %q (damaged %v)", bin, damaged)
	}
	// the cache's own names are what prune matches
	if ents := cacheEntries(t, dir); len(ents) != len(files)-len(removed)+1 {
		t.Errorf("%d files after the write, want %d: %v", len(ents), len(files)-len(removed)+1, ents)
	}
	for _, f := range cacheEntries(t, dir) {
		if n := filepath.Base(f); strings.HasPrefix(n, c.key("-D A", "s")) && !entryName.MatchString(n) {
			t.Errorf("the write left %s", n)
		}
	}
}

// TestProgramCacheEntryCoversKey (issue 33 item 13): an entry whose file
// holds another entry's contents, checksum and all, is a miss: it is
// reported damaged and removed, and the entry it was copied from still
// loads. Before, it loaded as a valid binary of the wrong program, was
// never evicted, and every later run fell back to the CPU.
func TestProgramCacheEntryCoversKey(t *testing.T) {
	c := progCache{dir: t.TempDir(), ident: "x"}
	a, b := c.key("-D A", "s"), c.key("-D B", "s")
	for key, bin := range map[string]string{a: "binary A", b: "binary B"} {
		if err := c.store(key, []byte(bin)); err != nil {
			t.Fatal(err)
		}
	}
	fileA, err := os.ReadFile(c.path(a))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.path(b), fileA, 0o600); err != nil {
		t.Fatal(err)
	}
	if bin, damaged := c.load(b); bin != nil || !damaged {
		t.Errorf("B holding A's file: load = %q, damaged %v; want a damaged miss", bin, damaged)
	}
	if _, err := os.Stat(c.path(b)); err == nil {
		t.Error("B's wrong entry was not removed")
	}
	if bin, damaged := c.load(a); string(bin) != "binary A" || damaged {
		t.Errorf("A: load = %q, damaged %v", bin, damaged)
	}
}

// TestProgramCacheDefaultDir: the cache lives under the user cache dir,
// except on PoCL (its own kernel cache does the job), where only an
// explicit directory turns it on; "off" turns it off everywhere.
func TestProgramCacheDefaultDir(t *testing.T) {
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache dir:", err)
	}
	gpu := DeviceInfo{Platform: "NVIDIA CUDA", Name: "H200"}
	pocl := DeviceInfo{Platform: poclPlatform, Name: "cpu"}
	t.Setenv(EnvCacheDir, "")
	if c := newProgCache(gpu); c.dir != filepath.Join(base, "prism", "opencl") {
		t.Errorf("default dir %q", c.dir)
	}
	if c := newProgCache(pocl); c.dir != "" {
		t.Errorf("PoCL by default: dir %q, want none", c.dir)
	}
	t.Setenv(EnvCacheDir, "/x/y")
	if c := newProgCache(pocl); c.dir != "/x/y" {
		t.Errorf("PoCL with %s: dir %q", EnvCacheDir, c.dir)
	}
	t.Setenv(EnvCacheDir, "off")
	if c := newProgCache(gpu); c.dir != "" {
		t.Errorf("off: dir %q", c.dir)
	}
}

// TestDumpDoesNotFollowLinks (issue 12 item 10): PRISM_OPENCL_DUMP writes
// each binary through a new file renamed into place, so a symbolic link
// planted at the predictable name is replaced, and what it points to is
// left alone.
func TestDumpDoesNotFollowLinks(t *testing.T) {
	first := t.TempDir()
	t.Setenv(EnvCacheDir, "off")
	t.Setenv("PRISM_OPENCL_DUMP", first)
	cacheRun(t)
	names := cacheEntries(t, first)
	if len(names) != 2 {
		t.Fatalf("dump holds %v, want 2 binaries", names)
	}
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.Symlink(victim, filepath.Join(dir, filepath.Base(n))); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PRISM_OPENCL_DUMP", dir)
	cacheRun(t)
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
		t.Fatalf("the link's target now holds %q (%v)", b, err)
	}
	for _, n := range names {
		st, err := os.Lstat(filepath.Join(dir, filepath.Base(n)))
		if err != nil || !st.Mode().IsRegular() || st.Size() < 10 {
			t.Errorf("%s: %v, %v; want a regular file holding the binary", n, st, err)
		}
	}
}
