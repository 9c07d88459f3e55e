package panel

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/app/tfrfile"
	"github.com/prismaudio/prism/app/tfrview"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// modeEngine is the file tab's engine on the CPU, with the modes.
type modeEngine struct{ playEngine }

func (e modeEngine) AnalyzeModeView(ctx context.Context, path string, o tfrview.Options, progress analysis.Progress) (*tfrview.Spectrogram, error) {
	return tfrview.AnalyzeView(ctx, path, o, e.engines, progress)
}

func (e modeEngine) ExportModeSpectrogram(ctx context.Context, in, out string, format encode.Format, o tfrview.Options, img plot.ImageOptions) error {
	cfg := o.Mode
	cfg.Hop, cfg.Window, cfg.Size = o.View.Hop, o.View.Window, o.View.FFT
	_, err := tfrfile.AnalyzeFile(ctx, in, out, format, tfrfile.Options{Transform: cfg, Channel: o.View.Channel, Image: img}, e.engines)
	return err
}

func (e modeEngine) AnalyzeSpectrum(ctx context.Context, path string, o analysis.SpectrumOptions) (analysis.SpectrumResult, error) {
	return analysis.AnalyzeSpectrum(ctx, path, o, e.engines)
}

func (e modeEngine) ExportSpectrogram(ctx context.Context, in, out string, format encode.Format, o analysis.ViewOptions, img plot.ImageOptions, progress analysis.Progress) error {
	return nil
}

// fileHost is the window's side of the file tab, recording the spectra
// under the cursor.
type fileHost struct {
	playHost
	shown *live.Spectrum
}

func (h *fileHost) SetFileAnalysis(fft int, overlap float64, win window.Func) {}
func (h *fileHost) Dark() bool                                                { return true }
func (h *fileHost) ShowFileTab()                                              {}
func (h *fileHost) RememberFolder(dir string)                                 {}
func (h *fileHost) UpdateStatus()                                             {}
func (h *fileHost) ShowOpenDialog(title string, open func(path string))       {}
func (h *fileHost) FileSpectrumShown(sp *live.Spectrum)                       { h.shown = sp }
func (h *fileHost) DifferenceShown() bool                                     { return false }

// TestFilesModes: the File tab's mode controls choose the VQT (kept in
// the preferences and read back), the file is shown in it, and a zoom
// re-analyzes the visible span in the mode: the detail's columns are the
// transform's own frames of that span (made here by tfr) at the hop the
// zoom asks for; the STFT comes back with its mode.
func TestFilesModes(t *testing.T) {
	a := test.NewTempApp(t)
	path := filepath.Join(t.TempDir(), "stereo.wav")
	writeStereo(t, path)
	cpu := gpufft.NewCPU(1)
	defer cpu.Close()
	eng := modeEngine{playEngine{engine.Pair{Preferred: cpu, CPU: cpu}}}
	win := test.NewTempWindow(t, nil)
	opts := analysis.ViewOptions{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channel: -1}
	host := &fileHost{playHost: playHost{note: NewNotice(win), opts: opts}}
	jobs := make(chan func(), 64)
	fp := NewFiles(host, eng, win, func(f func()) { jobs <- f })
	fp.UsePreferences(a.Preferences())
	win.SetContent(fp.Build(func() {}))
	win.Resize(fyne.NewSize(1000, 700))
	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); {
			select {
			case f := <-jobs:
				f()
			case <-time.After(10 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s", what)
			}
		}
	}
	fview, _, _, _ := fp.Views()

	// the controls: VQT, 24 bins per octave from 50 Hz
	fp.fm.mode.SetSelected("VQT")
	fp.fm.bpo.SetSelected("24")
	fp.fm.fmin.SetText("50")
	fp.fm.fmin.OnSubmitted("50")
	want := FileModeSettings{ModeSettings: ModeSettings{Mode: tfr.VQT, BinsPerOctave: 24, FMinHz: 50, ThresholdDB: 60}}
	if got := fp.FileMode(); !modesEqual(got, want) {
		t.Fatalf("the controls chose %+v, want %+v", got, want)
	}
	if got := LoadFileModeSettings(a.Preferences()); !modesEqual(got, want) {
		t.Errorf("kept %+v, want %+v", got, want)
	}
	if fp.fm.vqtBox.Hidden || !fp.fm.reassBox.Hidden {
		t.Errorf("the VQT's parameters hidden %v, the reassignment's shown %v", fp.fm.vqtBox.Hidden, !fp.fm.reassBox.Hidden)
	}

	fp.OpenFile(path)
	wait("the file in the VQT", func() bool { return fview.ModeFile() != nil })
	ms := fview.ModeFile()
	if ms.Mode.Mode != tfr.VQT || ms.Mode.BinsPerOctave != 24 || ms.Hop != 1024 || !strings.Contains(fp.Info(), "VQT 24/oct from 50 Hz hop 1024") {
		t.Fatalf("shown: %+v, hop %d; info %q", ms.Mode, ms.Hop, fp.Info())
	}

	// zoom to 1.0…1.5 s: the span is analyzed again in the mode
	fview.SetView(1.0, 1.5)
	wait("the zoom's re-analysis", func() bool { return fview.ModeDetail() != nil })
	d := fview.ModeDetail()
	width := max(64, fview.Area().Dx())
	if wantHop := DetailHop(ms.Hop, ms.FFT, 0.5*48000, width); d.Hop != wantHop || d.Hop >= ms.Hop {
		t.Errorf("the detail's hop %d, want %d (finer than the overview's %d)", d.Hop, wantHop, ms.Hop)
	}
	if !strings.Contains(fview.Analysis(), "(refined)") {
		t.Errorf("the detail does not cover the view: %q", fview.Analysis())
	}
	// the span widened by a frame each side
	pad := float64(ms.FFT) / 48000
	first, last := int(math.Floor((1.0-pad)*48000)), int(math.Ceil((1.5+pad)*48000))
	if d.Start != float64(first)/48000 {
		t.Errorf("the detail starts at %g s, want %g", d.Start, float64(first)/48000)
	}
	frames := modeFrames(t, cpu, d, stereoMix(first, min(last, 3*48000)))
	if d.Frames != len(frames) {
		t.Fatalf("the detail has %d frames, the transform %d", d.Frames, len(frames))
	}
	for i, col := range d.Columns {
		lo, hi := plot.ColumnFrames(i, len(d.Columns), len(frames))
		ref := slices.Clone(frames[lo])
		for _, fr := range frames[lo+1 : hi] {
			for k, v := range fr {
				ref[k] = max(ref[k], v)
			}
		}
		for k := range ref {
			if ref[k] > -100 && math.Abs(float64(col[k]-ref[k])) > 0.01 {
				t.Fatalf("detail column %d bin %d (%.1f Hz): %.4f dB, the transform's %.4f", i, k, d.Freqs[k], col[k], ref[k])
			}
		}
	}

	// the export in the mode: `prism analyze --mode`'s frames, the view's
	out := filepath.Join(t.TempDir(), "vqt.npy")
	var exported error = errPending
	fp.ExportSpectrogram(out, func(err error) { exported = err })
	wait("the export", func() bool { return exported != errPending })
	if exported != nil {
		t.Fatal(exported)
	}
	rows := readNPY(t, out, len(ms.Freqs))
	if ms.FramesPerColumn != 1 || len(rows) != len(ms.Columns) {
		t.Fatalf("exported %d frames, the view shows %d (%g a column)", len(rows), len(ms.Columns), ms.FramesPerColumn)
	}
	for i, r := range rows {
		for k, v := range r {
			if v > -100 && math.Abs(float64(v-ms.Columns[i][k])) > 0.01 {
				t.Fatalf("exported frame %d bin %d: %.4f dB, the view's %.4f", i, k, v, ms.Columns[i][k])
			}
		}
	}
	if _, err := os.Stat(out + ".json"); err != nil {
		t.Errorf("no sidecar: %v", err)
	}

	// back to the STFT
	fp.fm.mode.SetSelected("STFT")
	wait("the STFT", func() bool { return fview.File() != nil && fview.ModeFile() == nil && fview.File().FFT == 4096 })
}

func modesEqual(a, b FileModeSettings) bool {
	return a.ModeSettings == b.ModeSettings && slices.Equal(a.Sizes, b.Sizes) && a.Squeeze == b.Squeeze
}

// stereoMix is writeStereo's mix of samples first…last, as float32.
func stereoMix(first, last int) []float32 {
	x := make([]float32, 0, last-first)
	for i := first; i < last; i++ {
		l := float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/48000))
		r := float32(0.25 * math.Sin(2*math.Pi*3000*float64(i)/48000))
		x = append(x, (l+r)/2)
	}
	return x
}

// modeFrames are s's transform's frames of x, made by tfr directly.
func modeFrames(t *testing.T, e gpufft.Engine, s *tfrview.Spectrogram, x []float32) [][]float32 {
	t.Helper()
	c := s.Mode
	c.MaxSamples = len(x)
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
	return out
}

var errPending = errors.New("pending")

// readNPY reads a float32 NPY file of rows of `bins` values.
func readNPY(t *testing.T, path string, bins int) [][]float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || string(b[1:6]) != "NUMPY" {
		t.Fatalf("%s is not NPY", path)
	}
	data := b[10+int(binary.LittleEndian.Uint16(b[8:10])):]
	if !strings.Contains(string(b[10:len(b)-len(data)]), "'<f4'") || len(data)%(4*bins) != 0 {
		t.Fatalf("%s: not float32 rows of %d", path, bins)
	}
	var rows [][]float32
	for o := 0; o < len(data); o += 4 * bins {
		r := make([]float32, bins)
		for k := range r {
			r[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[o+4*k:]))
		}
		rows = append(rows, r)
	}
	return rows
}
