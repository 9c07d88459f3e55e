package archive

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	core "github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/out"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

var day0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mergeArchive has contiguous files on a bin boundary (A→B), a gap (B…C),
// files joined mid-bin (C→D: one unit), another gap and a contiguous pair.
var mergeArchive = []testFile{
	{day0, 40}, {day0.Add(40 * time.Second), 40},
	{day0.Add(85 * time.Second), 30}, {day0.Add(115 * time.Second), 35},
	{day0.Add(180 * time.Second), 20}, {day0.Add(200 * time.Second), 20},
}

// TestMergeEqualsOneProcess: the parts of N shards, merged, are the file
// one process writes, byte for byte, as NetCDF and as NPY with its
// sidecar, at any --parallel; and the one process's levels are those of one LTSA over all
// the files (cutting the work into units changes nothing).
func TestMergeEqualsOneProcess(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	mkdir(t, in)
	writeArchive(t, in, 8000, mergeArchive)
	flags := []string{"--average", "10", "--fft", "256", "--engine", "cpu", "--quiet"}
	one := filepath.Join(dir, "one.nc")
	run(t, append([]string{"ltsa", in, "-o", one}, flags...)...)
	run(t, append([]string{"ltsa", in, "-o", filepath.Join(dir, "one.npy")}, flags...)...)
	for _, p := range []string{"1", "3"} {
		path := filepath.Join(dir, "parallel-"+p+".nc")
		run(t, append([]string{"ltsa", in, "-o", path, "--parallel", p}, flags...)...)
		if !bytes.Equal(readFile(t, path), readFile(t, one)) {
			t.Errorf("--parallel %s differs from the default", p)
		}
	}
	want := map[string][]byte{".nc": readFile(t, one), ".npy": readFile(t, filepath.Join(dir, "one.npy")),
		".json": readFile(t, filepath.Join(dir, "one.json"))}
	for _, n := range []int{1, 2, 3, 4, 7} {
		var parts []string
		for k := n - 1; k >= 0; k-- { // any order
			p := filepath.Join(dir, fmt.Sprintf("part-%d-%d.nc", k, n))
			run(t, append([]string{"ltsa", in, "-o", p, "--shard", fmt.Sprintf("%d/%d", k, n)}, flags...)...)
			parts = append(parts, p)
		}
		if n == 1 {
			if !bytes.Equal(readFile(t, parts[0]), want[".nc"]) {
				t.Errorf("--shard 0/1 differs from no shard")
			}
			continue
		}
		for _, ext := range []string{".nc", ".npy"} {
			m := filepath.Join(dir, fmt.Sprintf("merged-%d%s", n, ext))
			run(t, append([]string{"ltsa", "merge", "-o", m, "--quiet"}, parts...)...)
			if !bytes.Equal(readFile(t, m), want[ext]) {
				t.Errorf("N=%d: merged %s differs from one process's", n, ext)
			}
			if ext == ".npy" && !bytes.Equal(readFile(t, out.SidecarPath(m)), want[".json"]) {
				t.Errorf("N=%d: merged sidecar differs from one process's", n)
			}
		}
		if code := command(append([]string{"ltsa", "merge", "-o", filepath.Join(dir, "bad.nc"), "--quiet"}, parts[1:]...), &bytes.Buffer{}, &bytes.Buffer{}); code == 0 {
			t.Errorf("N=%d: a merge without shard %d succeeded", n, n-1)
		}
	}
	compareWhole(t, in, one)
}

// compareWhole checks the command's rows against one core.LTSA over all
// files on the CPU engine, within 0.001 dB.
func compareWhole(t *testing.T, in, path string) {
	cat, err := core.Scan([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	var want []core.Row
	cfg := core.LTSAConfig{Average: 10 * time.Second, FFT: 256, Window: window.Func{Kind: window.Hann}}
	if _, err := core.LTSA(context.Background(), gpufft.NewCPU(1), cat.Files, cfg, func(r core.Row) error {
		want = append(want, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	p, err := out.OpenPart(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Rows != len(want) {
		t.Fatalf("%d rows, one LTSA gives %d", p.Rows, len(want))
	}
	i := 0
	p.Each(func(r out.Row) error {
		w := want[i]
		if !r.Start.Equal(w.Start) || r.Seconds != w.Seconds {
			t.Errorf("row %d: %s %g s, want %s %g s", i, r.Start, r.Seconds, w.Start, w.Seconds)
		}
		for k := range r.Level {
			if d := math.Abs(float64(r.Level[k] - w.Level[k])); !(d <= 1e-3) {
				t.Fatalf("row %d bin %d: %g dB, one LTSA %g dB", i, k, r.Level[k], w.Level[k])
			}
		}
		i++
		return nil
	})
}
