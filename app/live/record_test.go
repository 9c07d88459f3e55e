package live

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/plot"
)

// foldSettings analyze 1024-point Hann frames every 64 samples: at
// 48 kHz 750 frames/s, so the waterfall's history folds 2 frames into
// each column while a recording gets every frame.
func foldSettings() Settings {
	s := DefaultSettings()
	s.FFT, s.Hop, s.History = 1024, 64, 4096
	return s
}

// startRec starts a recording and applies it (one Step), failing the test
// on an error; it returns the frames that Step analyzed (recorded).
func startRec(t *testing.T, l *Live, path string, c int) int {
	t.Helper()
	errc := make(chan error, 1)
	if err := l.StartRecording(path, c, func(err error) { errc <- err }); err != nil {
		t.Fatal(err)
	}
	n, _ := l.Step()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return n
}

// stopRec stops the recording (one Step applies it, before its batch)
// and waits for the file.
func stopRec(t *testing.T, l *Live) RecordStatus {
	t.Helper()
	type result struct {
		st  RecordStatus
		err error
	}
	res := make(chan result, 1)
	l.StopRecording(func(st RecordStatus, err error) { res <- result{st, err} })
	l.Step()
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.st
}

// stepFor steps l for d of real time and returns the frames analyzed.
func stepFor(l *Live, d time.Duration) int {
	frames := 0
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		n, _ := l.Step()
		frames += n
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return frames
}

// TestRecordToneAndGap: a recording of the generator's tone has one row
// per frame analyzed between start and stop, every bin, with the tone at
// its bin and level (3 kHz at 48 kHz, N=1024: bin 64, −6.00 ± 0.01 dBFS;
// the Hann window's neighbours 6.02 dB below, nothing else above −100),
// and the frames lost from the timeline (a forced jump of 7 frames, a
// 0.1-s pause, and any the loaded machine lost) as NaN rows at their
// place; the status
// counts them. Even at 750 frames/s, where the waterfall folds frames.
func TestRecordToneAndGap(t *testing.T) {
	eachRecordCase(t, recordToneAndGap)
}

// eachRecordCase runs f on every test engine at hop 64 (above 500 frames/s:
// a record plan of its own) and 256 (the live plan's per-frame columns).
func eachRecordCase(t *testing.T, f func(*testing.T, engine.Pair, int)) {
	for _, engs := range testEngines(t) {
		for _, hop := range []int{64, 256} {
			t.Run(fmt.Sprintf("%s/hop=%d", engs.Preferred.Name(), hop), func(t *testing.T) { f(t, engs, hop) })
		}
	}
}

// startFoldLive starts a live analysis of generator spec on engs with
// foldSettings at hop; the caller closes it.
func startFoldLive(t *testing.T, spec string, engs engine.Pair, hop int) *Live {
	t.Helper()
	rec := apptest.StartGenerator(t, spec, 48000, 2)
	s := foldSettings()
	s.Hop = hop
	l, err := New(rec, engs, s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func recordToneAndGap(t *testing.T, engs engine.Pair, hop int) {
	l := startFoldLive(t, "sine:3000:-6", engs, hop)
	defer l.Close()
	stepFor(l, 100*time.Millisecond)
	out := filepath.Join(t.TempDir(), "rec.npy")
	lost0 := l.run.lostFrames
	frames := startRec(t, l, out, 2) // the mix
	if own := l.recd.plan != nil; own != (hop == 64) {
		t.Fatalf("hop %d: a plan of its own %v, want it only above 500 frames/s", hop, own)
	}
	frames += stepFor(l, 300*time.Millisecond)
	before := l.RecordStatus()
	const jump = 7
	l.run.lostFrames += jump // what take does when input was overwritten
	frames += stepFor(l, 300*time.Millisecond)
	l.SetPaused(true) // the file tab: 0.1 s not analyzed, a gap in the recording
	stepFor(l, 100*time.Millisecond)
	l.SetPaused(false)
	frames += stepFor(l, 200*time.Millisecond)
	lost := int(l.run.lostFrames - lost0)
	// new settings that keep the frames, then the CPU engine: the
	// recording goes on after the input the changes dropped (a gap)
	s := foldSettings()
	s.Hop, s.AvgTau = hop, 3*time.Second
	l.Apply(s)
	l.UseEngine(engine.CPU)
	frames += stepFor(l, 200*time.Millisecond)
	lost += int(l.run.lostFrames)
	if lost < jump+4000/hop {
		t.Errorf("%d frames lost, want the jump of %d and the pause's %d or so", lost, jump, 4800/hop)
	}
	st := stopRec(t, l)
	rows, cols, vals := apptest.ReadNPY(t, out)
	if cols != 513 || rows != frames+lost || st.Frames != rows || st.Gaps != lost || st.Active || !st.Saved || st.Err != "" {
		t.Fatalf("shape (%d, %d), status %+v; want %d frames + %d lost rows of 513", rows, cols, st, frames, lost)
	}
	for f := before.Frames; f < before.Frames+jump; f++ {
		if !math.IsNaN(float64(vals[f*cols])) {
			t.Fatalf("row %d (in the forced gap after row %d) is not NaN", f, before.Frames)
		}
	}
	nan := 0
	neighbour := -6 + 20*math.Log10(0.5)
	for f := range rows {
		row := vals[f*cols : (f+1)*cols]
		if math.IsNaN(float64(row[0])) {
			nan++
			continue
		}
		if pk, lv := apptest.PeakIn(row, 1, cols); pk != 64 || math.Abs(float64(lv)+6) > 0.01 {
			t.Fatalf("row %d: peak bin %d at %.3f dBFS, want bin 64 at −6.00", f, pk, lv)
		}
		// the periodic Hann window's transform of a bin-centred tone: the
		// neighbours at half the amplitude (−6.02 dB), nothing beyond
		if math.Abs(float64(row[63])-neighbour) > 0.01 || math.Abs(float64(row[65])-neighbour) > 0.01 || max(row[62], row[66], row[10], row[500]) > -100 {
			t.Fatalf("row %d: bins 62…66 %v, bins 10, 500 %v, %v; want %.3f beside the peak, nothing beyond", f, row[62:67], row[10], row[500], neighbour)
		}
	}
	if nan != lost || frames < 40 {
		t.Errorf("%d NaN rows, want %d; %d frames", nan, lost, frames)
	}
}

// TestHistoryExport: the exported history is the columns Live published
// (Columns), every bin, for the channel asked; at 750 frames/s each is
// the per-bin maximum of its 2 frames, checked against a full-resolution
// recording of the same frames; the sidecar says the folding, the CSV
// has the columns' times, and the PNG is written.
func TestHistoryExport(t *testing.T) {
	for _, engs := range testEngines(t) {
		t.Run(engs.Preferred.Name(), func(t *testing.T) {
			rec := apptest.StartGenerator(t, "sweep:200:8000:-12:0.5", 48000, 2)
			l, err := New(rec, engs, foldSettings())
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			dir := t.TempDir()
			startRec(t, l, filepath.Join(dir, "full.npy"), 1)
			origin := l.recd.sink.Origin
			stepFor(l, 700*time.Millisecond)
			stopRec(t, l)
			paths := []string{filepath.Join(dir, "h1.npy"), filepath.Join(dir, "h1.csv"), filepath.Join(dir, "hmix.png")}
			info, err := l.ExportHistory(paths, []int{1, 1, 2}, plot.ImageOptions{Width: 300, Height: 100, DBMin: -120, DBMax: 0})
			if err != nil {
				t.Fatal(err)
			}
			dst := make([][]float32, 4096)
			n, next, geo := l.Columns(1, dst, 0)
			rows, cols, vals := apptest.ReadNPY(t, paths[0])
			if info.FramesPerColumn != 2 || geo.Hop != 128 || info.ColumnGeometry != geo || rows != n || cols != 513 ||
				info.Columns != n || info.FirstColumn != next-uint64(n) {
				t.Fatalf("info %+v, shape (%d, %d); Columns: %d columns to %d, geometry %+v", info, rows, cols, n, next, geo)
			}
			for i := range n {
				for k := range cols {
					if vals[i*cols+k] != dst[i][k] {
						t.Fatalf("column %d bin %d: exported %v, published %v", i, k, vals[i*cols+k], dst[i][k])
					}
				}
			}
			checkFold(t, filepath.Join(dir, "full.npy"), origin, info.FirstColumn, dst[:n])
			checkHistoryCSV(t, paths[1], n, geo)
			side, err := os.ReadFile(paths[0] + ".json")
			if err != nil || !strings.Contains(string(side), `"frames_per_column": 2`) || !strings.Contains(string(side), `"column_seconds": 0.00266`) {
				t.Errorf("sidecar %s, %v", side, err)
			}
			if fi, err := os.Stat(paths[2]); err != nil || fi.Size() < 1000 {
				t.Errorf("PNG: %v, %v", fi, err)
			}
		})
	}
}

// checkFold: each history column (numbered from first) equals the per-bin
// maximum of its two frames in the recording (row r is frame origin+r),
// where the recording has both.
func checkFold(t *testing.T, path string, origin int, first uint64, hist [][]float32) {
	t.Helper()
	rows, cols, rec := apptest.ReadNPY(t, path)
	checked := 0
	for i, col := range hist {
		r := 2*(int(first)+i) - origin
		if r < 0 || r+1 >= rows || math.IsNaN(float64(rec[r*cols])) || math.IsNaN(float64(rec[(r+1)*cols])) {
			continue
		}
		for k := range cols {
			if want := max(rec[r*cols+k], rec[(r+1)*cols+k]); col[k] != want {
				t.Fatalf("column %d bin %d: %v, the maximum of its frames %v", int(first)+i, k, col[k], want)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d columns checked against the recording", checked)
	}
}

// checkHistoryCSV: the CSV has a header of bin frequencies and n rows at
// the columns' times (from the oldest kept).
func checkHistoryCSV(t *testing.T, path string, n int, geo Geometry) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != n+1 || !strings.HasPrefix(lines[0], "time_s,0,46.875,") {
		t.Fatalf("%d lines, header %.40q", len(lines), lines[0])
	}
	want := (float64(geo.Hop) + float64(geo.FFT)/2) / float64(geo.Rate)
	if !strings.HasPrefix(lines[2], apptest.FormatFloat(want)+",") {
		t.Errorf("second row %.40q, want time %v", lines[2], want)
	}
}

// TestRecordNoAllocs: the analysis loop does not allocate while recording
// (once the sink's queue has its chunks).
func TestRecordNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	eachRecordCase(t, recordNoAllocs)
}

func recordNoAllocs(t *testing.T, engs engine.Pair, hop int) {
	l := startFoldLive(t, "pink:-20", engs, hop)
	defer l.Close()
	startRec(t, l, filepath.Join(t.TempDir(), "rec.npy"), 0)
	stepFor(l, 300*time.Millisecond)
	frames := 0
	allocs := testing.AllocsPerRun(200, func() {
		n, _ := l.Step()
		frames += n
		for s := l.recd.sink; s.Pending() > 1; { // the writer has caught up
			runtime.Gosched()
		}
		time.Sleep(time.Millisecond)
	})
	if st := l.RecordStatus(); allocs != 0 || frames == 0 || !st.Active {
		t.Errorf("%v allocs per Step (%d frames analyzed), status %+v", allocs, frames, st)
	}
	stopRec(t, l)
}

// failingRows is a writer whose disk is full.
type failingRows struct{}

func (failingRows) Rows(int, []float32) error {
	return errors.New("write output: no space left on device")
}
func (failingRows) Finish(int) error { return nil }

// TestRecordErrors: a bad format, a directory that does not exist, a
// channel that does not exist, a second start, a stop with nothing
// recording, a writer that fails (a full disk: the recording stops, the
// file is discarded, the error said, the live view goes on) and new
// settings that change the frames (the recording ends, its file kept).
func TestRecordErrors(t *testing.T) {
	l := startCPULive(t, "sine:1000:-6", DefaultSettings())
	defer l.Close()
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "a.png"), filepath.Join(dir, "a.txt"), filepath.Join(dir, "no", "a.npy")} {
		if err := l.StartRecording(p, 0, nil); err == nil || !strings.HasPrefix(err.Error(), "live: record: ") {
			t.Errorf("%s: %v", p, err)
		}
	}
	errc := make(chan error, 1)
	if err := l.StartRecording(filepath.Join(dir, "a.npy"), 3, func(err error) { errc <- err }); err != nil {
		t.Fatal(err)
	}
	l.Step()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "no output channel 3") {
		t.Errorf("channel 3 of 3: %v", err)
	}
	stopped := make(chan error, 1)
	l.StopRecording(func(_ RecordStatus, err error) { stopped <- err })
	l.Step()
	if err := <-stopped; err == nil {
		t.Error("stop while not recording: no error")
	}

	full := filepath.Join(dir, "full.npy")
	if err := l.StartRecording(full, 0, func(error) { l.recd.sink.RW = failingRows{} }); err != nil {
		t.Fatal(err)
	}
	if err := l.StartRecording(filepath.Join(dir, "b.npy"), 0, func(err error) { errc <- err }); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.RecordStatus().Err == "" {
		if time.Now().After(deadline) {
			t.Fatal("a failing writer did not stop the recording")
		}
		stepFor(l, 20*time.Millisecond)
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "already recording") {
		t.Errorf("second start: %v", err)
	}
	if st := l.RecordStatus(); st.Active || st.Saved || !strings.Contains(st.Err, "no space left") {
		t.Errorf("status after a full disk: %+v", st)
	}
	if _, err := os.Stat(full); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed recording's file: %v", err)
	}
	if n := stepFor(l, 200*time.Millisecond); n == 0 {
		t.Error("the live view stopped with the recording")
	}

	kept := filepath.Join(dir, "kept.csv")
	startRec(t, l, kept, 0)
	stepFor(l, 100*time.Millisecond)
	s := DefaultSettings()
	s.AvgTau = 3 * time.Second // the frames stay: it goes on
	l.Apply(s)
	stepFor(l, 100*time.Millisecond)
	if st := l.RecordStatus(); !st.Active {
		t.Fatalf("an averaging change stopped the recording: %+v", st)
	}
	s.FFT = 2048
	l.Apply(s)
	l.Step()
	// inactive at once; its file completed (Saved, or an error) soon after
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if st := l.RecordStatus(); !st.Active && (st.Saved || st.Err != "") {
			break
		}
		time.Sleep(time.Millisecond)
	}
	st := l.RecordStatus()
	b, err := os.ReadFile(kept)
	if st.Active || !st.Saved || !strings.Contains(st.Err, "change the frames") || err != nil || strings.Count(string(b), "\n") != st.Frames+1 {
		t.Errorf("after an FFT change: status %+v, file %d lines, %v", st, strings.Count(string(b), "\n"), err)
	}
}

// TestHistoryExportErrors: a format that is not NPY, CSV or PNG, a
// channel that does not exist, paths that do not match the channels, a
// directory that does not exist and a history with nothing kept are
// errors that say so, and write nothing.
func TestHistoryExportErrors(t *testing.T) {
	l := startCPULive(t, "sine:1000:-6", DefaultSettings())
	defer l.Close()
	dir := t.TempDir()
	img := plot.ImageOptions{Width: 100, Height: 50, DBMin: -120, DBMax: 0}
	if _, err := l.ExportHistory([]string{filepath.Join(dir, "h.npy")}, []int{2}, img); err == nil || !strings.Contains(err.Error(), "no columns kept yet") {
		t.Errorf("before any column: %v", err)
	}
	stepFor(l, 200*time.Millisecond)
	for _, c := range []struct {
		paths []string
		chans []int
		want  string
	}{
		{[]string{filepath.Join(dir, "h.wav")}, []int{0}, "export as .npy, .csv or .png"},
		{[]string{filepath.Join(dir, "h.npy")}, []int{3}, "no output channel 3 (there are 3)"},
		{[]string{filepath.Join(dir, "h.npy")}, []int{0, 1}, "1 paths for 2 channels"},
		{[]string{filepath.Join(dir, "no", "h.npy")}, []int{0}, "no such file or directory"},
	} {
		if _, err := l.ExportHistory(c.paths, c.chans, img); err == nil || !strings.HasPrefix(err.Error(), "live: history: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: %v, want %q", c.paths, c.chans, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
	s := DefaultSettings()
	s.History = -1
	l.Apply(s)
	stepFor(l, 200*time.Millisecond)
	if _, err := l.ExportHistory([]string{filepath.Join(dir, "h.npy")}, []int{2}, img); err == nil {
		t.Error("a history of none kept exported")
	}
}

// TestRecordClose: closing the analysis while recording completes the
// file before Close returns, every row in it.
func TestRecordClose(t *testing.T) {
	l := startCPULive(t, "sine:3000:-6", foldSettings())
	out := filepath.Join(t.TempDir(), "rec.npy")
	startRec(t, l, out, 0)
	stepFor(l, 200*time.Millisecond)
	l.Close()
	st := l.RecordStatus()
	rows, cols, _ := apptest.ReadNPY(t, out)
	if st.Active || !st.Saved || !strings.Contains(st.Err, "the analysis closed") || rows != st.Frames || rows < 20 || cols != 513 {
		t.Errorf("status %+v, file shape (%d, %d)", st, rows, cols)
	}
}
