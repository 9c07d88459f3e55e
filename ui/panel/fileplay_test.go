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
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/playback"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/selection"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// playEngine runs the analyses on the CPU engine, as the session does.
type playEngine struct{ engines engine.Pair }

func (e playEngine) OpenPlayer(path string, band dsp.BandSpec, device string) (*playback.Player, error) {
	return playback.Open(path, playback.Config{Device: device, Band: band, Engines: e.engines})
}

func (e playEngine) OutputDevices() ([]string, error) { return []string{"Null Output"}, nil }

func (e playEngine) AnalyzeSelection(ctx context.Context, path string, r selection.Range, o selection.Options) (selection.Result, error) {
	return selection.Analyze(ctx, path, r, o, e.engines)
}

func (e playEngine) AnalyzeView(ctx context.Context, path string, o analysis.ViewOptions, progress analysis.Progress) (*analysis.FileSpectrogram, error) {
	return analysis.AnalyzeView(ctx, path, o, e.engines, progress)
}

type playHost struct {
	note   *Notice
	opts   analysis.ViewOptions
	stored []*dsp.Trace
}

func (h *playHost) FileOptions() (analysis.ViewOptions, plot.ImageOptions) {
	return h.opts, plot.ImageOptions{}
}
func (h *playHost) SaveDialog(name string, fn func(path string)) {}
func (h *playHost) Notices() *Notice                             { return h.note }

// writeStereo writes a 3-s two-channel float WAV: 440 Hz left, 3 kHz right.
func writeStereo(t *testing.T, path string) {
	t.Helper()
	const rate, n = 48000, 3 * 48000
	le := binary.LittleEndian
	data := make([]byte, 0, 8*n)
	for i := range n {
		l := 0.5 * math.Sin(2*math.Pi*440*float64(i)/rate)
		r := 0.25 * math.Sin(2*math.Pi*3000*float64(i)/rate)
		data = le.AppendUint32(le.AppendUint32(data, math.Float32bits(float32(l))), math.Float32bits(float32(r)))
	}
	h := append([]byte("RIFF"), le.AppendUint32(nil, uint32(36+len(data)))...)
	h = append(h, "WAVEfmt "...)
	h = le.AppendUint32(h, 16)
	h = le.AppendUint16(le.AppendUint16(h, 3), 2)
	h = le.AppendUint32(le.AppendUint32(h, rate), rate*8)
	h = le.AppendUint16(le.AppendUint16(h, 8), 32)
	h = append(append(h, "data"...), le.AppendUint32(nil, uint32(len(data)))...)
	if err := os.WriteFile(path, append(h, data...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFilePlay: the bar follows the file view: the playhead is drawn at
// the player's position; a selection is measured (its readout names the
// spectrum's peak and the loudness) and stored as a reference equal to
// its spectrum; the keys loop, draw the channels as lanes (each lane its
// channel's tone) and clear the selection.
func TestFilePlay(t *testing.T) {
	test.NewTempApp(t)
	path := filepath.Join(t.TempDir(), "stereo.wav")
	writeStereo(t, path)
	cpu := gpufft.NewCPU(1)
	defer cpu.Close()
	eng := playEngine{engine.Pair{Preferred: cpu, CPU: cpu}}
	opts := analysis.ViewOptions{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channel: -1}
	fs, err := eng.AnalyzeView(context.Background(), path, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	win := test.NewTempWindow(t, nil)
	host := &playHost{note: NewNotice(win), opts: opts}
	fview := view.NewFileView(plot.Log, plot.Magma, -100, 0)
	jobs := make(chan func(), 16)
	var band dsp.BandSpec
	p := NewFilePlay(host, eng, fview, func(f func()) { jobs <- f }, &band, func(tr *dsp.Trace) error {
		host.stored = append(host.stored, tr)
		return nil
	})
	win.SetContent(container.NewBorder(p.Build(), nil, nil, nil, fview))
	win.Resize(fyne.NewSize(900, 500))
	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); {
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
	fview.SetFile(fs)
	p.Pull()

	// the playhead is the player's position
	p.player, err = playback.Open(path, playback.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p.Seek(1.75)
	wait("the seek", func() bool { return p.player.Position() == 1.75 })
	p.Pull()
	if got, on := fview.Playhead(); !on || got != p.player.Position() || math.Abs(got-1.75) > 1.0/48000 {
		t.Errorf("playhead %g (shown %v), the player's position %g, want 1.75", got, on, p.player.Position())
	}

	// a selection: measured, read out, stored
	r := selection.Range{T0: 0.5, T1: 2.0}
	p.Select(r)
	wait("the selection's measurements", func() bool { return p.Result() != nil })
	res := p.Result()
	if math.Abs(res.Spectrum.Peak.FreqHz-440) > 1 {
		t.Errorf("the selection's spectrum peaks at %.2f Hz, want 440", res.Spectrum.Peak.FreqHz)
	}
	if txt := p.readout.Text; !strings.Contains(txt, "0.500–2.000 s") || !strings.Contains(txt, "LUFS") || !strings.Contains(txt, "peak 44") {
		t.Errorf("readout %q", txt)
	}
	p.StoreSelection()
	if len(host.stored) != 1 || len(host.stored[0].Level) != len(res.Spectrum.Levels[0]) || host.stored[0].Level[10] != res.Spectrum.Levels[0][10] {
		t.Fatalf("stored %d references, want the selection's spectrum", len(host.stored))
	}

	// L loops, C draws lanes, Escape clears
	if !p.Key("", 'L') || !p.Looping() {
		t.Error("L did not turn the loop on")
	}
	if !p.Key("", 'c') {
		t.Fatal("C is not a key of the bar")
	}
	wait("the lanes", func() bool { return fview.LanesShown() == 2 })
	for i, f := range []float64{440, 3000} {
		if got := fview.Lanes()[i].Peak(fview.Lanes()[i].Columns[10]).Freq; math.Abs(got-f) > 2*fs.BinHz() {
			t.Errorf("lane %d peaks at %.1f Hz, want %.0f", i, got, f)
		}
	}
	if !p.Key(fyne.KeyEscape, 0) || fview.Selection() != (selection.Range{}) || p.Result() != nil {
		t.Errorf("Escape left the selection %+v", fview.Selection())
	}
	if p.Key("", 'q') {
		t.Error("Q taken by the bar")
	}
}

// outputEngine records the output device each player is opened on and
// opens none (no sound card is needed to check the choice).
type outputEngine struct {
	playEngine
	devices chan string
}

func (e outputEngine) OpenPlayer(_ string, _ dsp.BandSpec, device string) (*playback.Player, error) {
	e.devices <- device
	return nil, errors.New("no player in this test")
}

func (e outputEngine) OutputDevices() ([]string, error) {
	return []string{"Null Output", "USB Interface"}, nil
}

// TestFilePlayOutput: the Output select lists the output devices after
// the default, and play opens the player on the device chosen ("" for
// the default); the choice is kept.
func TestFilePlayOutput(t *testing.T) {
	test.NewTempApp(t)
	path := filepath.Join(t.TempDir(), "stereo.wav")
	writeStereo(t, path)
	cpu := gpufft.NewCPU(1)
	defer cpu.Close()
	eng := outputEngine{playEngine{engine.Pair{Preferred: cpu, CPU: cpu}}, make(chan string, 4)}
	opts := analysis.ViewOptions{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channel: -1}
	fs, err := eng.AnalyzeView(context.Background(), path, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	win := test.NewTempWindow(t, nil)
	host := &playHost{note: NewNotice(win), opts: opts}
	fview := view.NewFileView(plot.Log, plot.Magma, -100, 0)
	jobs := make(chan func(), 16)
	var band dsp.BandSpec
	p := NewFilePlay(host, eng, fview, func(f func()) { jobs <- f }, &band, func(*dsp.Trace) error { return nil })
	win.SetContent(container.NewBorder(p.Build(), nil, nil, nil, fview))
	fview.SetFile(fs)
	p.Pull()
	opened := func() string {
		t.Helper()
		for deadline := time.After(20 * time.Second); ; {
			select {
			case d := <-eng.devices:
				return d
			case f := <-jobs:
				f()
			case <-deadline:
				t.Fatal("play opened no player")
			}
		}
	}
	for deadline := time.After(20 * time.Second); len(p.output.Options) < 3; {
		select {
		case f := <-jobs:
			f()
		case <-deadline:
			t.Fatalf("the outputs listed: %q", p.output.Options)
		}
	}
	if want := []string{defaultOutput, "Null Output", "USB Interface"}; !slices.Equal(p.output.Options, want) {
		t.Errorf("outputs %q, want %q", p.output.Options, want)
	}
	p.TogglePlay()
	if d := opened(); d != "" {
		t.Errorf("the default output opened as %q, want \"\"", d)
	}
	for p.opening {
		(<-jobs)()
	}
	p.ChooseOutput("USB Interface")
	if p.Output() != "USB Interface" {
		t.Fatalf("chosen %q", p.Output())
	}
	p.TogglePlay()
	if d := opened(); d != "USB Interface" {
		t.Errorf("play opened %q, want the chosen USB Interface", d)
	}
}

// The session is the window's PlayEngine (the window finds it by a type
// assertion, so a signature that drifted would silently turn playback off).
var _ PlayEngine = (*session.Session)(nil)
