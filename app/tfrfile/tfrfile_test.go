package tfrfile

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

func cpuPair(t *testing.T) engine.Pair {
	cpu := gpufft.NewCPU(0)
	t.Cleanup(func() { cpu.Close() })
	return engine.Pair{Preferred: cpu, CPU: cpu}
}

var hann = window.Func{Kind: window.Hann}

// TestNPYAndSidecar analyzes a two-channel file (a 1 kHz sine left, a
// 3 kHz one right) in every mode built here: the NPY has frames × bins
// float32 rows, the sidecar's freq_hz has one ascending centre per
// column, hop_s is the hop, and channel 1's sine reads its level at the
// column nearest 3 kHz.
func TestNPYAndSidecar(t *testing.T) {
	const rate, n = 48000, 48000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, rate, [][]float32{apptest.Tone(n, rate, 1000, 0.5), apptest.Tone(n, rate, 3000, 0.25)})
	for _, cfg := range []tfr.Config{
		{Mode: tfr.MultiRes, Hop: 512, Window: window.Func{Kind: window.FlatTop}},
		{Mode: tfr.Reassigned, Hop: 256, Size: 2048, Window: hann, Squeeze: true},
	} {
		out := filepath.Join(dir, cfg.Mode.String()+".npy")
		res, err := AnalyzeFile(context.Background(), in, out, encode.FormatNPY, Options{Transform: cfg, Channel: 1}, cpuPair(t))
		if err != nil {
			t.Fatal(err)
		}
		rows, cols, vals := apptest.ReadNPY(t, out)
		var sc Sidecar
		b, err := os.ReadFile(SidecarPath(out))
		if err != nil || json.Unmarshal(b, &sc) != nil {
			t.Fatalf("%v: sidecar: %v %s", cfg.Mode, err, b)
		}
		if rows != res.Frames || cols != len(sc.FreqHz) || cols != len(sc.ENBWHz) || sc.Frames != rows || sc.Mode != cfg.Mode.String() ||
			sc.HopS != float64(cfg.Hop)/rate || sc.SampleRate != rate || sc.Unit != "dBFS" {
			t.Fatalf("%v: NPY %d×%d, sidecar %+v", cfg.Mode, rows, cols, sc)
		}
		for k := 1; k < cols; k++ {
			if !(sc.FreqHz[k] > sc.FreqHz[k-1]) {
				t.Fatalf("%v: freq_hz not ascending at %d", cfg.Mode, k)
			}
		}
		k := nearest(sc.FreqHz, 3000)
		lo := -1.5 // Hann's scalloping where 3 kHz falls between bins
		for r := range rows {
			best := vals[r*cols+k]
			for j := max(0, k-3); j < min(cols, k+4); j++ {
				best = max(best, vals[r*cols+j])
			}
			if d := float64(best) - 20*math.Log10(0.25); d < lo || d > 0.05 {
				t.Fatalf("%v: row %d reads the 3 kHz sine %.3f dB off", cfg.Mode, r, d)
			}
		}
	}
}

// TestCSVHeaderAndPNG: the CSV's header is time_s and every column's
// centre frequency, each line a frame's time and levels; the PNG is the
// labelled image of the layout's size.
func TestCSVHeaderAndPNG(t *testing.T) {
	const rate = 8000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, rate, [][]float32{apptest.Tone(8000, rate, 440, 0.5)})
	cfg := tfr.Config{Mode: tfr.MultiRes, Hop: 128, Window: hann, Sizes: []int{2048, 1024, 512}}
	out := filepath.Join(dir, "o.csv")
	res, err := AnalyzeFile(context.Background(), in, out, encode.FormatCSV, Options{Transform: cfg, Channel: -1}, cpuPair(t))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	head := strings.Split(lines[0], ",")
	// bins 0…127 of 2048, 64…127 of 1024, 64…256 of 512
	if len(lines) != res.Frames+1 || head[0] != "time_s" || len(head) != 1+128+64+193 {
		t.Fatalf("%d lines for %d frames, header of %d: %.80s", len(lines), res.Frames, len(head), lines[0])
	}
	want := []float64{0, 128 * 8000.0 / 2048 * 0.5, 64 * 8000.0 / 1024, 8000.0 / 1024 * 127, 64 * 8000.0 / 512, 4000}
	for i, col := range []int{1, 65, 129, 192, 193, len(head) - 1} {
		if f, err := strconv.ParseFloat(head[col], 64); err != nil || math.Abs(f-want[i]) > 1e-9 {
			t.Errorf("header column %d: %q, want %g", col, head[col], want[i])
		}
	}
	if t1, _ := strconv.ParseFloat(strings.Split(lines[2], ",")[0], 64); math.Abs(t1-(128+1024)/8000.0) > 1e-12 {
		t.Errorf("frame 1 at %g s, want %g", t1, (128+1024)/8000.0)
	}
	png := filepath.Join(dir, "o.png")
	img := plot.ImageOptions{Width: 300, Height: 200, Scale: plot.Log, DBMin: -120, DBMax: 0}
	if _, err := AnalyzeFile(context.Background(), in, png, encode.FormatPNG, Options{Transform: cfg, Channel: 0, Image: img}, cpuPair(t)); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Fatalf("PNG: %v", err)
	}
}

// TestReassignedChunksJoin: a file cut into many Execute calls (each with
// a margin of frames either side) gives the frames one call gives.
func TestReassignedChunksJoin(t *testing.T) {
	const rate = 8000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	x := apptest.Tone(16000, rate, 700, 0.5)
	for i := range x {
		tt := float64(i) / rate
		x[i] += float32(0.3 * math.Sin(2*math.Pi*(200*tt+150*tt*tt)))
	}
	apptest.WriteWAV(t, in, rate, [][]float32{x})
	cfg := tfr.Config{Mode: tfr.Reassigned, Hop: 64, Size: 512, Window: hann}
	read := func(name string) []float32 {
		out := filepath.Join(dir, name)
		if _, err := AnalyzeFile(context.Background(), in, out, encode.FormatNPY, Options{Transform: cfg, Channel: 0}, cpuPair(t)); err != nil {
			t.Fatal(err)
		}
		_, _, v := apptest.ReadNPY(t, out)
		return v
	}
	whole := read("whole.npy")
	defer func(v int) { chunkValues = v }(chunkValues)
	chunkValues = 3 * 512 * 7 // 7 frames a call
	chunked := read("chunked.npy")
	for i := range whole {
		if max(whole[i], chunked[i]) > -100 && math.Abs(float64(whole[i]-chunked[i])) > 0.01 {
			t.Fatalf("value %d: %.3f dB in one call, %.3f in chunks", i, whole[i], chunked[i])
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(1000, 8000, 440, 0.5)})
	for _, c := range []struct {
		cfg  tfr.Config
		ch   int
		want string
	}{
		{tfr.Config{Mode: tfr.MultiRes, Hop: 128, Window: hann, Sizes: []int{2048, 1024}}, 0, "fewer than one frame"},
		{tfr.Config{Mode: tfr.MultiRes, Hop: 128, Window: hann, Sizes: []int{512, 1024}}, 0, "smaller than the one before"},
		{tfr.Config{Mode: tfr.Reassigned, Hop: 128, Size: 256, Window: hann}, 2, "no channel 2"},
	} {
		_, err := AnalyzeFile(context.Background(), in, filepath.Join(dir, "o.npy"), encode.FormatNPY, Options{Transform: c.cfg, Channel: c.ch}, cpuPair(t))
		if !errors.As(err, new(*analysis.InputError)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want bad input saying %q", c.cfg, err, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// TestResultPhases: a VQT file's Result splits its time into phases that
// each took some time (the plan, the calls, the writer's finish with its
// fsync) and together fit in Elapsed, and Timings gives them in ms; the
// NPY's rows, written on the writer's goroutine, are every frame's.
func TestResultPhases(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.npy")
	apptest.WriteWAV(t, in, rate8k, [][]float32{apptest.Tone(20000, rate8k, 700, 0.5)})
	cfg := tfr.Config{Mode: tfr.VQT, Hop: 128, BinsPerOctave: 24, FMin: 50}
	res, err := AnalyzeFile(context.Background(), in, out, encode.FormatNPY, Options{Transform: cfg, Channel: -1}, cpuPair(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan <= 0 || res.Compute <= 0 || res.Write <= 0 || res.Read < 0 || res.Read+res.Plan+res.Compute+res.Write > res.Elapsed {
		t.Fatalf("phases read %v, plan %v, compute %v, write %v; elapsed %v", res.Read, res.Plan, res.Compute, res.Write, res.Elapsed)
	}
	tm := res.Timings(cfg.Mode)
	if tm.Mode != "vqt" || tm.ComputeMs != float64(res.Compute.Microseconds())/1000 || tm.ElapsedMs != float64(res.Elapsed.Microseconds())/1000 {
		t.Fatalf("timings %+v of %+v", tm, res)
	}
	if rows, bins, _ := apptest.ReadNPY(t, out); rows != res.Frames || bins != res.Bins {
		t.Fatalf("NPY %d × %d, result %d × %d", rows, bins, res.Frames, res.Bins)
	}
}
