package view

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/app/tfrview"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestFileViewModes: a file shown in the VQT and multi-resolution modes
// reads, at the cursor, the level tfr's own Transform gives the same
// samples (made here) at the cursor's frequency, interpolated between the
// bins' centres, within 0.01 dB; the spectrum under the cursor is the
// transform's frame there, with its bins' table and the peak the live
// modes read (the sine's frequency and level); a zoom's re-analysis in
// the mode covers the view ("(refined)"), while an STFT's does not.
func TestFileViewModes(t *testing.T) {
	test.NewTempApp(t)
	const rate, f0 = 48000, 997.0
	x := make([]float32, rate)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*f0*float64(i)/rate))
	}
	path := filepath.Join(t.TempDir(), "sine.wav")
	writeWAV(t, path, rate, x)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	for _, c := range []tfr.Config{
		{Mode: tfr.VQT, BinsPerOctave: 24, FMin: 50},
		{Mode: tfr.MultiRes, Sizes: []int{8192, 2048}},
	} {
		t.Run(c.Mode.String(), func(t *testing.T) {
			o := tfrview.Options{View: analysis.ViewOptions{Hop: 512, Window: window.Func{Kind: window.Hann}, Channel: -1}, Mode: c}
			s, err := tfrview.AnalyzeView(context.Background(), path, o, engine.Pair{Preferred: cpu, CPU: cpu}, nil)
			if err != nil {
				t.Fatal(err)
			}
			frames, freqs := transformFrames(t, cpu, c, s, x)
			v := NewFileView(plot.Log, plot.Magma, -100, 0)
			var got *live.Spectrum
			var gotT float64
			v.OnCursor = func(sp *live.Spectrum, t float64, ok bool) {
				if ok {
					got, gotT = sp, t
				}
			}
			win := showIn(t, v, 700, 300)
			v.SetModeFile(s)
			capture(win)
			// at 0.5 s, 30 % of an octave above the sine (between bins)
			fc := f0 * math.Pow(2, 0.3/12)
			px := float32(v.area.Min.X) + float32(0.5/s.Duration*float64(v.area.Dx()))
			py := float32(v.area.Max.Y-1) - float32(v.axis.Pos(fc)*float64(v.area.Dy()))
			test.MoveMouse(win.Canvas(), fyne.NewPos(px, py))
			if got == nil || math.Abs(gotT-0.5) > 0.01 {
				t.Fatalf("no spectrum under the cursor at 0.5 s (%v at %g s)", got != nil, gotT)
			}
			ci := int(math.Round(s.TimeColumn(gotT)))
			want := frames[ci]
			if len(got.Freqs) != len(freqs) || got.BinHz != 0 {
				t.Fatalf("the cursor's spectrum has %d bins' table, BinHz %g; want the mode's %d", len(got.Freqs), got.BinHz, len(freqs))
			}
			for k := range want {
				if got.Freqs[k] != freqs[k] || math.Abs(float64(got.Current[k]-want[k])) > 0.01 {
					t.Fatalf("bin %d (%.2f Hz): %.4f dB, the transform's %.4f dB at %.2f Hz", k, got.Freqs[k], got.Current[k], want[k], freqs[k])
				}
			}
			// the readout's level: the transform's, interpolated in frequency
			f := v.axis.Freq(1 - (float64(v.p.px(py)-v.area.Min.Y)+0.5)/float64(v.area.Dy()))
			ref := interpDB(freqs, want, f)
			if lv := v.levelIn(v.source(), got.Current, f); math.Abs(lv-ref) > 0.01 {
				t.Errorf("the cursor reads %.4f dB at %.2f Hz, the transform %.4f dB", lv, f, ref)
			}
			if r := v.Readout(); !strings.Contains(r, strconv.FormatFloat(math.Abs(ref), 'f', 1, 64)+" dBFS") {
				t.Errorf("readout %q, want %.1f dBFS", r, ref)
			}
			pk := tfrlive.PeakOf(want, freqs)
			if got.Peak != pk || math.Abs(pk.Freq/f0-1) > 0.005 || math.Abs(pk.LevelDB+6.02) > 1.5 {
				t.Errorf("peak %.2f Hz %.3f dB; the transform's %.2f Hz %.3f dB, the sine 997 Hz −6.02 dB", got.Peak.Freq, got.Peak.LevelDB, pk.Freq, pk.LevelDB)
			}

			// zoom to 0.4…0.6 s: a region's re-analysis in the mode covers it
			v.SetView(0.4, 0.6)
			o.View.Start, o.View.End, o.View.MaxColumns = 0.4-float64(s.FFT)/rate, 0.6+float64(s.FFT)/rate, 2*v.area.Dx()
			o.View.Hop = 128
			d, err := tfrview.AnalyzeView(context.Background(), path, o, engine.Pair{Preferred: cpu, CPU: cpu}, nil)
			if err != nil {
				t.Fatal(err)
			}
			stft := &analysis.FileSpectrogram{Rate: rate, FFT: 1024, Hop: 128, FramesPerColumn: 1, Columns: [][]float32{make([]float32, 513)}}
			v.SetDetail(stft)
			if a := v.Analysis(); strings.Contains(a, "refined") {
				t.Errorf("an STFT's detail over a mode's overview: %q", a)
			}
			v.SetModeDetail(d)
			if a := v.Analysis(); !strings.Contains(a, "(refined)") || !strings.Contains(a, "hop 128") {
				t.Errorf("the mode's detail does not cover the view: %q", a)
			}
			test.MoveMouse(win.Canvas(), fyne.NewPos(px, py))
			if ci := int(math.Round(d.TimeColumn(gotT))); got.Current[0] != d.Columns[ci][0] {
				t.Errorf("the cursor's spectrum is not the detail's column")
			}
		})
	}
}

// TestFileViewVQTGolden: the file view of two tones and a rising sine in
// the VQT, on the note axis.
func TestFileViewVQTGolden(t *testing.T) {
	test.NewTempApp(t)
	const rate = 48000
	x := make([]float32, 2*rate)
	ph := 0.0
	for i := range x {
		ti := float64(i) / rate
		ph += 2 * math.Pi * 200 * math.Pow(10, ti) / rate // 200 Hz → 2 kHz
		x[i] = float32(0.3*math.Sin(2*math.Pi*110*ti) + 0.1*math.Sin(2*math.Pi*5000*ti) + 0.2*math.Sin(ph))
	}
	path := filepath.Join(t.TempDir(), "tones.wav")
	writeWAV(t, path, rate, x)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	o := tfrview.Options{View: analysis.ViewOptions{Hop: 512, Window: window.Func{Kind: window.Hann}, Channel: -1},
		Mode: tfr.Config{Mode: tfr.VQT, BinsPerOctave: 24, FMin: 50}}
	s, err := tfrview.AnalyzeView(context.Background(), path, o, engine.Pair{Preferred: cpu, CPU: cpu}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := NewFileView(plot.Note, plot.Magma, -100, 0)
	win := showIn(t, v, 700, 300)
	v.SetModeFile(s)
	test.AssertImageMatches(t, "fileview_vqt.png", capture(win))
}

// transformFrames are c's frames of x by tfr directly, with s's hop and
// window, and the bins' table.
func transformFrames(t *testing.T, e gpufft.Engine, c tfr.Config, s *tfrview.Spectrogram, x []float32) ([][]float32, []float64) {
	t.Helper()
	c.Rate, c.Channels, c.Hop, c.Window, c.MaxSamples = float64(s.Rate), 1, s.Hop, s.Window, len(x)
	tr, err := tfr.New(e, c)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	bins := len(tr.Freqs())
	n := (len(x)-tr.Span())/c.Hop + 1
	dst := make([]float32, n*bins)
	if got, err := tr.Execute(dst, x); err != nil || got != n {
		t.Fatalf("Execute: %d frames, %v", got, err)
	}
	out := make([][]float32, n)
	for i := range out {
		out[i] = dst[i*bins : (i+1)*bins]
	}
	return out, tr.Freqs()
}

// interpDB is db (at the ascending freqs) at f, linear in frequency
// between the bins either side, float64.
func interpDB(freqs []float64, db []float32, f float64) float64 {
	k := sort.SearchFloat64s(freqs, f)
	switch {
	case k == 0:
		return float64(db[0])
	case k == len(freqs):
		return float64(db[len(db)-1])
	}
	u := (f - freqs[k-1]) / (freqs[k] - freqs[k-1])
	return float64(db[k-1]) + u*(float64(db[k])-float64(db[k-1]))
}

// writeWAV writes x as a mono 32-bit float WAV.
func writeWAV(t *testing.T, path string, rate int, x []float32) {
	t.Helper()
	le := binary.LittleEndian
	b := append([]byte("RIFF"), 0, 0, 0, 0)
	le.PutUint32(b[4:], uint32(36+4*len(x)))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 3) // IEEE float
	b = le.AppendUint16(b, 1)
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(4*rate))
	b = le.AppendUint16(b, 4)
	b = le.AppendUint16(b, 32)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(4*len(x)))
	for _, v := range x {
		b = le.AppendUint32(b, math.Float32bits(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFileViewModeLanes: lanes analysed in the overview's mode are drawn
// and read through the mode's bins: the spectrum under the cursor in the
// second lane is that lane's column, with its bins' table.
func TestFileViewModeLanes(t *testing.T) {
	test.NewTempApp(t)
	const rate = 48000
	x := make([]float32, rate/2)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/rate))
	}
	path := filepath.Join(t.TempDir(), "sine.wav")
	writeWAV(t, path, rate, x)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	pair := engine.Pair{Preferred: cpu, CPU: cpu}
	o := tfrview.Options{View: analysis.ViewOptions{Hop: 256, Window: window.Func{Kind: window.Hann}, Channel: -1},
		Mode: tfr.Config{Mode: tfr.VQT, BinsPerOctave: 12, FMin: 100}}
	s, err := tfrview.AnalyzeView(context.Background(), path, o, pair, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.View.Channel = 0
	lane, err := tfrview.AnalyzeView(context.Background(), path, o, pair, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := NewFileView(plot.Log, plot.Magma, -100, 0)
	var got *live.Spectrum
	v.OnCursor = func(sp *live.Spectrum, t float64, ok bool) {
		if ok {
			got = sp
		}
	}
	win := showIn(t, v, 600, 300)
	v.SetModeFile(s)
	v.SetModeLanes([]*tfrview.Spectrogram{s, lane})
	v.ShowLanes(true)
	if v.LanesShown() != 2 {
		t.Fatalf("%d lanes shown, want 2", v.LanesShown())
	}
	capture(win)
	r := v.laneRects()[1]
	px, py := float32(r.Min.X+r.Dx()/2)/v.p.scale, float32(r.Min.Y+r.Dy()/2)/v.p.scale
	test.MoveMouse(win.Canvas(), fyne.NewPos(px, py))
	if got == nil || len(got.Freqs) != len(lane.Freqs) {
		t.Fatalf("the second lane's spectrum has no bins' table")
	}
	ci := int(math.Round(lane.TimeColumn(s.Duration / 2)))
	for k, want := range lane.Columns[ci] {
		if got.Current[k] != want {
			t.Fatalf("bin %d: %g, the lane's column %g", k, got.Current[k], want)
		}
	}
	if math.Abs(got.Peak.Freq/440-1) > 0.01 {
		t.Errorf("the lane's peak at %.1f Hz, want 440", got.Peak.Freq)
	}
}
