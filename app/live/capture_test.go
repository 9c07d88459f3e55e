//go:build cgo

package live

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// TestCaptureTones: tones played into the null sink are captured through
// PortAudio and analyzed live at the right frequencies (within one bin)
// and levels (within 0.5 dB).
func TestCaptureTones(t *testing.T) {
	apptest.RequireAudio(t)
	apptest.PlayTones(t, 5, 0.5, 1000, 3000)
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.OpenCapture(audio.CaptureConfig{}) }, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	s := DefaultLiveSettings()
	s.Window = gpufft.Window{Kind: gpufft.FlatTop}
	l, err := NewLive(rec, analysis.Engines{Preferred: cpu, CPU: cpu}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runLive(l, 2*time.Second)
	var sp Spectrum
	for c, hz := range []float64{1000, 3000} {
		l.Latest(c, &sp)
		k := int(math.Round(hz / sp.BinHz))
		pk, lv := apptest.PeakIn(sp.Current, 1, len(sp.Current))
		// amplitude 0.5 in 16-bit: −6.02 dBFS
		if max(pk-k, k-pk) > 1 || math.Abs(float64(lv)+6.02) > 0.5 {
			t.Errorf("channel %d: peak at bin %d (%.0f Hz) %.2f dBFS; want %.0f Hz at −6.02 ± 0.5", c, pk, float64(pk)*sp.BinHz, lv, hz)
		}
	}
	st := l.Stats()
	if st.Frames < 40 || st.Stalls != 0 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("captured %d frames at %d Hz from %s; latency p50 %.2f ms p99 %.2f ms", st.Frames, st.SampleRate, st.Source, st.LatencyP50Ms, st.LatencyP99Ms)
}

// TestCaptureStalledSource: a source that delivers 0.1 s and then never
// again (each reopening stalls at once) ends the capture at its deadline
// with ErrIncomplete and the captured part written.
func TestCaptureStalledSource(t *testing.T) {
	first := true
	rec, err := audio.StartRecorder(func() (audio.Source, error) {
		blocks := 0
		if first {
			blocks, first = 20, false // 20 × 240 samples = 0.1 s
		}
		return &stallingSource{blocks: blocks, closed: make(chan struct{})}, nil
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	out := apptest.TempPath(t, "cap.npy")
	opts := CaptureOptions{AnalyzeOptions: analysis.AnalyzeOptions{FFT: 256, Hop: 256, Window: gpufft.Window{Kind: gpufft.Hann}, Channel: -1},
		Seconds: 1, Out: out, Format: encode.FormatNPY, Grace: 300 * time.Millisecond}
	start := time.Now()
	_, err = Capture(context.Background(), rec, analysis.Engines{Preferred: cpu, CPU: cpu}, opts)
	t.Logf("ended after %v: %v", time.Since(start), err)
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("error %v, want ErrIncomplete", err)
	}
	rows, cols, _ := apptest.ReadNPY(t, out)
	if cols != 129 || rows < 5 || rows >= 187 { // 187 frames would be the whole second
		t.Errorf("%d×%d written, want the ~18 frames of the first 0.1 s", rows, cols)
	}
}

// rowRecorder is a RowWriter that keeps the rows, one frame each.
type rowRecorder struct {
	bins int
	rows [][]float32
	next []int // each call's first frame
}

func (r *rowRecorder) Rows(first int, db []float32) error {
	r.next = append(r.next, first)
	for f := range len(db) / r.bins {
		r.rows = append(r.rows, append([]float32(nil), db[f*r.bins:(f+1)*r.bins]...))
	}
	return nil
}

func (r *rowRecorder) Finish(int) error { return nil }

// TestCaptureGaps: input the analysis lost stays in the timeline as NaN
// rows at its place; the rows before and after it are the signal, in dB,
// of the captured channel only.
func TestCaptureGaps(t *testing.T) {
	rw := &rowRecorder{bins: 2}
	s := newCaptureSink(rw, CaptureOptions{AnalyzeOptions: analysis.AnalyzeOptions{FFT: 2, Channel: 1}}, 2, 100)
	// columns of output channel 1 of 3 (the captured one), 2 bins, dB as
	// the engine folds them: frames 0 and 1, then 5 after frames 2…4 were
	// lost
	cfg := gpufft.LiveConfig{Spectrogram: gpufft.SpectrogramConfig{Size: 2, Channels: 3}, Grid: gpufft.FixedColumns{Frames: 1},
		ColumnChannel: 2, MaxColumns: 2}
	out := cfg.NewOutput()
	copy(out.Columns, []float32{0, -3.0103, -10, -13.0103})
	out.ColumnIDs[0], out.ColumnIDs[1], out.NumColumns = 0, 1, 2
	s.batch(out)
	copy(out.Columns, []float32{-20, -23.0103})
	out.ColumnIDs[0], out.NumColumns = 5, 1
	s.batch(out)
	want := [][]float32{{0, -3.0103}, {-10, -13.0103}, nil, nil, nil, {-20, -23.0103}}
	if len(rw.rows) != len(want) || s.written != 6 || s.gaps != 3 {
		t.Fatalf("%d rows %v, written %d, gaps %d", len(rw.rows), rw.rows, s.written, s.gaps)
	}
	for i, w := range want {
		for k, v := range rw.rows[i] {
			if w == nil && !math.IsNaN(float64(v)) || w != nil && math.Abs(float64(v-w[k])) > 1e-3 {
				t.Errorf("row %d: %v, want %v", i, rw.rows[i], w)
				break
			}
		}
	}
}
