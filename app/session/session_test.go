package session

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/window"
)

// waitUntil polls cond for up to 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSession: the desktop's analyzer runs on its own goroutine, switches
// sources (generator ↔ file) and engines, times the inactive engine in the
// background, and refuses a bad source without losing the current one.
func TestSession(t *testing.T) {
	engs := testEngines(t)
	e := engs[len(engs)-1]
	s := live.DefaultSettings()
	s.FFT, s.Hop = 4096, 256 // the desktop demo's setting: 48 kHz stereo, N=4096, hop 256
	// PRISM_LIVE_FFT / PRISM_LIVE_HOP measure other settings (closing notes)
	if v, err := strconv.Atoi(os.Getenv("PRISM_LIVE_FFT")); err == nil {
		s.FFT = v
	}
	if v, err := strconv.Atoi(os.Getenv("PRISM_LIVE_HOP")); err == nil {
		s.Hop = v
	}
	m, notice, err := New(SourceSpec{Kind: SourceGenerator, Generator: "sine:2000:-10", Rate: 48000, Channels: 2}, s, e)
	if err != nil || notice != "" {
		t.Fatal(err, notice)
	}
	defer m.Close()
	var sp live.Spectrum
	peakNear := func(c int, f float64) func() bool {
		return func() bool {
			m.Latest(c, &sp)
			return len(sp.Current) > 0 && math.Abs(sp.Peak.Freq-f) < 2
		}
	}
	waitUntil(t, "the 2 kHz tone", peakNear(2, 2000))

	if e.Preferred != e.CPU {
		// both engines timed, the inactive one in the background
		var st live.Stats
		waitUntil(t, "both engines' times", func() bool {
			m.ReadStats(&st)
			return st.EngineMs["cpu"] > 0 && st.EngineMs["opencl"] > 0
		})
		time.Sleep(3 * time.Second) // a steady mean for the log
		m.ReadStats(&st)
		t.Logf("GPU active (%s): per batch of %.1f frames × 3 channels: GPU %.3f ms, CPU %.3f ms (background); latency p50 %.2f p99 %.2f ms",
			st.Device, st.FramesPerBatch, st.EngineMs["opencl"], st.EngineMs["cpu"], st.LatencyP50Ms, st.LatencyP99Ms)
		m.UseEngine("cpu")
		waitUntil(t, "the CPU engine", func() bool { m.ReadStats(&st); return st.Engine == "cpu" })
		time.Sleep(3 * time.Second)
		m.ReadStats(&st)
		t.Logf("CPU active: per batch: GPU %.3f ms (background), CPU %.3f ms; latency p50 %.2f p99 %.2f ms",
			st.EngineMs["opencl"], st.EngineMs["cpu"], st.LatencyP50Ms, st.LatencyP99Ms)
	}

	// a file, played in real time, stereo at 44.1 kHz
	path := apptest.TempPath(t, "tone.wav")
	apptest.WriteWAV(t, path, 44100, [][]float32{apptest.Tone(44100*2, 44100, 3000, 0.5), apptest.Tone(44100*2, 44100, 3000, 0.5)})
	if _, err := m.SetSource(SourceSpec{Kind: SourceFile, File: path}); err != nil {
		t.Fatal(err)
	}
	var st live.Stats
	m.ReadStats(&st)
	if st.SampleRate != 44100 || st.Channels != 2 || !strings.Contains(st.Source, "tone.wav") {
		t.Errorf("after switching to the file: %d Hz × %d, source %q", st.SampleRate, st.Channels, st.Source)
	}
	waitUntil(t, "the file's 3 kHz tone", peakNear(2, 3000))

	// a bad source: an error, and the file carries on
	if _, err := m.SetSource(SourceSpec{Kind: SourceFile, File: apptest.TempPath(t, "missing.wav")}); err == nil {
		t.Error("a missing file as source did not fail")
	}
	if _, err := m.SetSource(SourceSpec{Kind: SourceGenerator, Generator: "sine:abc"}); err == nil {
		t.Error("a bad generator spec did not fail")
	}
	if s := m.Source(); s.Kind != SourceFile {
		t.Errorf("after failed switches the source is %+v", s)
	}
	waitUntil(t, "the file's tone still", peakNear(2, 3000))
	m.Close()
	m.Close()
}

// TestAnalyzeView: a file's overview folds frames into columns by their
// maximum (checked against the float64 STFT), a region is analyzed from
// its start, and a one-frame click survives the folding.
func TestAnalyzeView(t *testing.T) {
	const rate, n, hop = 8000, 256, 64
	x := apptest.Tone(rate*3, rate, 1000, 0.25)
	click := rate*3/2 + 7
	x[click] = 1 // one sample: a few frames see it
	path := apptest.TempPath(t, "click.wav")
	apptest.WriteWAV(t, path, rate, [][]float32{x})
	x64 := make([]float64, len(x))
	for i, v := range x {
		x64[i] = float64(v)
	}
	ref := apptest.STFT64(x64, n, hop, window.Func{Kind: window.Hann})
	win := window.Func{Kind: window.Hann}
	for _, e := range testEngines(t) {
		fs, err := analysis.AnalyzeView(context.Background(), path, analysis.ViewOptions{FFT: n, Hop: hop, Window: win, Channel: -1, MaxColumns: 100}, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		frames := (len(x)-n)/hop + 1
		if fs.Frames != frames || len(fs.Columns) != 100 || math.Abs(fs.FramesPerColumn-float64(frames)/100) > 1e-9 || fs.Duration != 3 {
			t.Fatalf("%s: %d frames, %d columns, %.3f per column", e.Preferred.Name(), fs.Frames, len(fs.Columns), fs.FramesPerColumn)
		}
		// each column is the per-bin maximum of its frames
		for c, col := range fs.Columns {
			for _, k := range []int{0, 32, 100, 128} {
				want := math.Inf(-1)
				for f := range frames {
					if min(99, int(float64(f)/fs.FramesPerColumn)) == c {
						want = math.Max(want, ref[f][k])
					}
				}
				if want > -120 && math.Abs(float64(col[k])-want) > 0.01 {
					t.Fatalf("%s: column %d bin %d: %.3f dB, want %.3f", e.Preferred.Name(), c, k, col[k], want)
				}
			}
		}
		// the click: at bin 100 (3125 Hz, far from the tone) its column stands out
		cc := int(float64((click-n/2)/hop) / fs.FramesPerColumn)
		if fs.Columns[cc][100] < fs.Columns[0][100]+40 {
			t.Errorf("%s: the click's column %d reads %.1f dB at 3 kHz, the first %.1f", e.Preferred.Name(), cc, fs.Columns[cc][100], fs.Columns[0][100])
		}
		// a region: 1.0…1.5 s, one column per frame
		r, err := analysis.AnalyzeView(context.Background(), path, analysis.ViewOptions{FFT: n, Hop: hop / 2, Window: win, Channel: -1, Start: 1, End: 1.5}, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Start != 1 || r.FramesPerColumn != 1 || r.Frames != (rate/2-n)/(hop/2)+1 {
			t.Errorf("%s: region starts %g s, %d frames, %.2f per column", e.Preferred.Name(), r.Start, r.Frames, r.FramesPerColumn)
		}
		// its frame 6 starts at sample 8000 + 6·32 = frame 128 of the overview's hop
		want := ref[(rate+6*hop/2)/hop]
		for k := range 129 {
			if want[k] > -100 && math.Abs(float64(r.Columns[6][k])-want[k]) > 0.01 {
				t.Fatalf("%s: region frame 6 bin %d: %.3f, want %.3f", e.Preferred.Name(), k, r.Columns[6][k], want[k])
			}
		}
		if tc := r.ColumnTime(6); math.Abs(tc-(1+(6*32+128)/8000.0)) > 1e-12 || math.Abs(r.TimeColumn(tc)-6) > 1e-9 {
			t.Errorf("column time %g", tc)
		}
	}
	if _, err := analysis.AnalyzeView(context.Background(), apptest.TempPath(t, "none.wav"), analysis.ViewOptions{FFT: n, Hop: hop, Window: win, Channel: -1}, testEngines(t)[0], nil); err == nil {
		t.Error("a missing file did not fail")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := analysis.AnalyzeView(ctx, path, analysis.ViewOptions{FFT: n, Hop: hop, Window: win, Channel: -1}, testEngines(t)[0], nil); err == nil {
		t.Error("a cancelled analysis did not fail")
	}
}
