package ui

import (
	"bytes"
	"context"
	"encoding/binary"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
	clarchive "github.com/prismaudio/prism/app/cli/archive"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/ui/panel"
	"github.com/prismaudio/prism/window"
)

// writeStereo writes secs seconds of a two-channel float WAV at 8 kHz:
// a sine at hz[0] of amplitude 0.5 on the first channel, at hz[1] on
// the second.
func writeStereo(t *testing.T, path string, secs float64, hz [2]float64) {
	t.Helper()
	const rate = 8000
	le := binary.LittleEndian
	var data []byte
	for i := range int(secs * rate) {
		for c := range 2 {
			data = le.AppendUint32(data, math.Float32bits(float32(0.5*math.Sin(2*math.Pi*hz[c]*float64(i)/rate))))
		}
	}
	h := append([]byte("RIFF"), le.AppendUint32(nil, uint32(36+len(data)))...)
	h = append(h, "WAVEfmt "...)
	for _, v := range []uint32{16, 3 | 2<<16, rate, rate * 8, 8 | 32<<16} {
		h = le.AppendUint32(h, v)
	}
	h = append(h, "data"...)
	h = le.AppendUint32(h, uint32(len(data)))
	if err := os.WriteFile(path, append(h, data...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openArchiveTab shows the Archive tab and opens dir there, waiting for
// its LTSA.
func openArchiveTab(t *testing.T, dir string) *Window {
	t.Helper()
	e := newFakeEngine()
	e.file = syntheticFile()
	w, _ := newTestWindow(t, e)
	w.tabs.SelectIndex(len(w.tabs.Items) - 1)
	w.arc.Open(dir)
	waitFor(t, func() bool { return w.arc.View().LTSA() != nil && !w.arc.Busy() })
	return w
}

// TestArchiveSidePanelShownOnlyInArchive: the Archive tab shows its own
// side panel in place of the Live controls, and no other tab shows it.
func TestArchiveSidePanelShownOnlyInArchive(t *testing.T) {
	w, _ := newTestWindow(t, newFakeEngine())
	for i, tab := range w.tabs.Items {
		w.tabs.SelectIndex(i)
		arc := tab.Text == "Archive"
		if w.arc.SidePanelShown() != arc || (arc && w.liveSide.Visible()) {
			t.Errorf("tab %s: Archive side panel shown %v, Live controls shown %v", tab.Text, w.arc.SidePanelShown(), w.liveSide.Visible())
		}
	}
	w.tabs.SelectIndex(0)
	if w.arc.SidePanelShown() || !w.liveSide.Visible() {
		t.Error("back in Live: the Archive side panel stays, or the Live controls do not come back")
	}
}

// readoutAt hovers the view at frequency hz (the middle of the span) and
// returns the readout's level: the largest over the pixel rows within one
// bin of hz (the pixel that reads the bin of hz itself).
func readoutAt(t *testing.T, w *Window, hz float64) (level float64, unit string) {
	t.Helper()
	v := w.arc.View()
	w.win.Canvas().Capture()
	a := v.Area()
	l := v.Shown()
	df, top := l.Freqs[1], l.Freqs[len(l.Freqs)-1]
	level = math.Inf(-1)
	for py := a.Min.Y; py < a.Max.Y; py++ {
		f := top * (1 - (float64(py-a.Min.Y)+0.5)/float64(a.Dy()))
		if math.Abs(f-hz) > df {
			continue
		}
		v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(float32(a.Min.X+a.Dx()/2), float32(py))}})
		r := v.Readout()
		i := strings.Index(r, " dB")
		j := strings.LastIndex(r[:max(i, 0)], " ")
		if i < 0 || j < 0 {
			t.Fatalf("readout %q: no level", r)
		}
		x, err := strconv.ParseFloat(r[j+1:i], 64)
		if err != nil {
			t.Fatalf("readout %q: %v", r, err)
		}
		if x > level {
			level, unit = x, r[i+1:]
		}
	}
	return level, unit
}

// referenceLevel is app/archive's LTSA of dir at cfg: the level of the
// bin of hz in the first row.
func referenceLevel(t *testing.T, dir string, cfg archive.LTSAConfig, hz float64) float64 {
	t.Helper()
	cat, err := archive.Scan([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	e := gpufft.NewCPU(1)
	defer e.Close()
	cfg.Window = window.Func{Kind: window.Hann}
	var row []float32
	freqs, err := archive.LTSA(context.Background(), e, cat.Files, cfg, func(r archive.Row) error {
		if row == nil {
			row = r.Level
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return float64(row[int(math.Round(hz/freqs[1]))])
}

// TestArchiveSideRecomputes: choosing the channel, the resolution and a
// hydrophone calibration in the side panel recomputes the LTSA with them:
// the second channel's tone, 256-point frames, and the tone's level in
// dB re 1 µPa²/Hz read under the cursor equals app/archive's LTSA with
// that calibration and the analytic level (0.5 FS × 2 V at full scale =
// 1 V peak, through −170 dB re 1 V/µPa and 10 dB of gain = 10⁸ µPa peak:
// 157.0 dB re 1 µPa, over the Hann window's 1.5 bins of 31.25 Hz).
func TestArchiveSideRecomputes(t *testing.T) {
	dir := t.TempDir()
	writeStereo(t, filepath.Join(dir, "SM4_20210315_000000.wav"), 6, [2]float64{500, 1000})
	w := openArchiveTab(t, dir)
	v := w.arc.View()
	s := w.arc.SideWidgets()
	if got := len(s.Channel.Options); got != 2 {
		t.Fatalf("channel options %v, want 2", s.Channel.Options)
	}
	s.Channel.SetSelectedIndex(1)
	s.FFT.SetSelectedIndex(1) // 256 points
	waitFor(t, func() bool { return !w.arc.Busy() && len(v.LTSA().Freqs) == 129 })
	s.Unit.SetSelected(s.Unit.Options[1]) // hydrophone
	s.Sensitivity.SetText("-170")
	s.Gain.SetText("10")
	s.FullScale.SetText("2")
	waitFor(t, func() bool {
		return !w.arc.Busy() && strings.Contains(v.LTSA().Unit, "µPa") && w.arc.Params().Cal.FullScaleV == 2
	})
	waitFor(t, func() bool { return !w.arc.Busy() && v.LTSA().Unit == "dB re 1 µPa²/Hz" })

	cal := archive.Calibration{Transducer: archive.Hydrophone, SensitivityDB: -170, GainDB: 10, FullScaleV: 2, Source: "--sensitivity"}
	ref := referenceLevel(t, dir, archive.LTSAConfig{Average: v.Shown().Average, FFT: 256, Channel: 1, Cal: cal}, 1000)
	analytic := 20*math.Log10(1e8/math.Sqrt2) - 10*math.Log10(1.5*8000.0/256)
	if math.Abs(ref-analytic) > 0.05 {
		t.Errorf("app/archive's level %.3f, analytic %.3f dB re 1 µPa²/Hz", ref, analytic)
	}
	got, unit := readoutAt(t, w, 1000)
	if math.Abs(got-ref) > 0.051 || unit != "dB re 1 µPa²/Hz" {
		t.Errorf("readout at the second channel's 1 kHz: %.1f %s, want %.2f dB re 1 µPa²/Hz", got, unit, ref)
	}
	if other, _ := readoutAt(t, w, 500); other > ref-60 {
		t.Errorf("readout at 500 Hz (the first channel's tone): %.1f, want far below %.1f", other, ref)
	}
}

// TestArchiveKeys: + − zoom, Left Right pan, 0 shows the whole archive,
// Enter opens the moment at the view's centre (or under the cursor) in
// the File tab (Escape: TestArchiveEscapeCancels), and the overlay lists
// them under Archive.
func TestArchiveKeys(t *testing.T) {
	dir := t.TempDir()
	writeTone(t, filepath.Join(dir, "SM4_20210315_000000.wav"), 60, 500)
	writeTone(t, filepath.Join(dir, "SM4_20210315_000130.wav"), 60, 1000) // after a 30 s gap
	w := openArchiveTab(t, dir)
	v := w.arc.View()
	span := func() time.Duration { a, b := v.View(); return b.Sub(a) }
	from, _ := v.View()
	w.typedRune('+')
	if span() != 75*time.Second {
		t.Errorf("+: span %v, want 75 s", span())
	}
	w.typedKey(fyne.KeyRight)
	if a, _ := v.View(); a.Sub(from) != (75*time.Second)/2+(75*time.Second)/4 {
		t.Errorf("Right: view from %v in", a.Sub(from))
	}
	w.typedKey(fyne.KeyLeft)
	w.typedRune('-')
	if a, b := v.View(); span() != 150*time.Second || !a.Equal(from) {
		t.Errorf("Left, -: %v…%v", a, b)
	}
	w.typedRune('+')
	w.typedRune('0')
	if span() != 150*time.Second {
		t.Errorf("0: span %v, want the whole 2 min 30 s", span())
	}
	w.typedKey(fyne.KeyReturn) // the centre, 00:01:15, is in the gap
	if n := w.note.Text(); w.tabs.Selected().Text != "Archive" || !strings.Contains(n, "00:01:15") || !strings.Contains(n, "gap") {
		t.Errorf("Enter at the centre, in the gap: tab %q, notice %q", w.tabs.Selected().Text, n)
	}
	w.win.Canvas().Capture()
	a := v.Area()
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(float32(a.Min.X+a.Dx()/10), float32(a.Min.Y+a.Dy()/2))}})
	w.typedKey(fyne.KeyReturn) // under the cursor: 00:00:15, the first file
	if w.tabs.Selected() != w.fileTab || w.dlg.RecentFolders()[0] != dir {
		t.Fatalf("Enter on the first file: tab %q", w.tabs.Selected().Text)
	}
	waitFor(t, func() bool { return w.fview.File() != nil })
	if w.arc.Key("", '+') {
		t.Error("the File tab shown, + still goes to the Archive")
	}
	listed := map[string]bool{}
	for _, r := range keyRows {
		if r.workspace == "Archive" {
			listed[r.key] = true
		}
	}
	for _, k := range []string{"+ -", "Left Right", "0", "Enter", "Escape"} {
		if !listed[k] {
			t.Errorf("the overlay lacks Archive's %s", k)
		}
	}
}

// blockingArchive computes no LTSA: it waits to be cancelled.
type blockingArchive struct{ *fakeEngine }

func (blockingArchive) ArchiveLTSA(ctx context.Context, _ cache.Request, _ func(float64)) (*cache.LTSA, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestArchiveEscapeCancels: Escape stops the LTSA being computed; a
// change of setting then computes again.
func TestArchiveEscapeCancels(t *testing.T) {
	dir := t.TempDir()
	writeTone(t, filepath.Join(dir, "SM4_20210315_000000.wav"), 10, 500)
	w, _ := newTestWindow(t, newFakeEngine())
	a := panel.NewArchive(blockingArchive{newFakeEngine()}, w.fp, w.dlg, w.do)
	a.Build()
	a.Show(true)
	a.Open(dir)
	waitFor(t, func() bool { return a.Busy() })
	if !a.Key(fyne.KeyEscape, 0) {
		t.Fatal("Escape is not the Archive's key")
	}
	waitFor(t, func() bool { return !a.Busy() })
	if m := a.View().Message(); !strings.Contains(m, "Cancelled") {
		t.Errorf("after Escape the view says %q", m)
	}
	a.SideWidgets().FFT.SetSelectedIndex(1) // any change starts again
	waitFor(t, func() bool { return a.Busy() })
	a.Key(fyne.KeyEscape, 0)
	waitFor(t, func() bool { return !a.Busy() })
}

// TestArchiveExport: Export… of the whole archive writes the NPY (and
// its sidecar) and the NetCDF that `prism ltsa` writes for the same
// files and parameters, byte for byte, and the PNG of the view; with a
// fixed average and the view on one file, the NPY equals `prism ltsa`
// of that file.
func TestArchiveExport(t *testing.T) {
	dir := t.TempDir()
	writeTone(t, filepath.Join(dir, "SM4_20210315_000000.wav"), 20, 500)
	writeTone(t, filepath.Join(dir, "SM4_20210315_000020.wav"), 10, 1000)
	writeTone(t, filepath.Join(dir, "SM4_20210315_000040.wav"), 10, 2000) // after a 10 s gap
	w := openArchiveTab(t, dir)
	s := w.arc.SideWidgets()
	s.FFT.SetSelectedIndex(2) // 512 points
	s.Unit.SetSelected(s.Unit.Options[1])
	s.Sensitivity.SetText("-165.5")
	waitFor(t, func() bool { return !w.arc.Busy() && w.arc.Params().Cal.SensitivityDB == -165.5 })
	waitFor(t, func() bool { return !w.arc.Busy() && len(w.arc.View().LTSA().Freqs) == 257 })
	avg := w.arc.View().Shown().Average
	out := t.TempDir()
	w.win.Canvas().Capture()
	for _, ext := range []string{".npy", ".nc", ".png"} {
		if err := w.arc.Export(filepath.Join(out, "view"+ext)); err != nil {
			t.Fatal(err)
		}
	}
	for _, ext := range []string{".npy", ".nc"} {
		var stdout, stderr bytes.Buffer
		args := []string{dir, "-o", filepath.Join(out, "cli"+ext), "--average", strconv.FormatFloat(avg.Seconds(), 'g', -1, 64),
			"--fft", "512", "--sensitivity", "-165.5", "--engine", "cpu", "--quiet"}
		if code := clarchive.LTSA(args, &stdout, &stderr); code != 0 {
			t.Fatalf("prism ltsa %v: %d %s", args, code, stderr.String())
		}
	}
	for _, pair := range [][2]string{{"view.npy", "cli.npy"}, {"view.json", "cli.json"}, {"view.nc", "cli.nc"}} {
		a, err1 := os.ReadFile(filepath.Join(out, pair[0]))
		b, err2 := os.ReadFile(filepath.Join(out, pair[1]))
		if err1 != nil || err2 != nil || len(a) < 100 || !bytes.Equal(a, b) {
			t.Errorf("%s (%d bytes) differs from prism ltsa's %s (%d bytes) %v %v", pair[0], len(a), pair[1], len(b), err1, err2)
		}
	}
	// a fixed 1 s average, the view on the third file (after the gap):
	// the export equals prism ltsa of that file alone
	s.Average.SetText("1")
	waitFor(t, func() bool { return !w.arc.Busy() && w.arc.View().LTSA().Average == time.Second })
	from, _ := w.arc.View().View()
	w.arc.View().SetView(from.Add(40*time.Second), from.Add(50*time.Second))
	if err := w.arc.Export(filepath.Join(out, "span.npy")); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{filepath.Join(dir, "SM4_20210315_000040.wav"), "-o", filepath.Join(out, "cli-span.npy"), "--average", "1",
		"--fft", "512", "--sensitivity", "-165.5", "--engine", "cpu", "--quiet"}
	if code := clarchive.LTSA(args, &stdout, &stderr); code != 0 {
		t.Fatalf("prism ltsa %v: %d %s", args, code, stderr.String())
	}
	for _, pair := range [][2]string{{"span.npy", "cli-span.npy"}, {"span.json", "cli-span.json"}} {
		a, err1 := os.ReadFile(filepath.Join(out, pair[0]))
		b, err2 := os.ReadFile(filepath.Join(out, pair[1]))
		if err1 != nil || err2 != nil || len(a) < 100 || !bytes.Equal(a, b) {
			t.Errorf("%s (%d bytes) differs from prism ltsa's %s (%d bytes) %v %v", pair[0], len(a), pair[1], len(b), err1, err2)
		}
	}
	f, err := os.Open(filepath.Join(out, "view.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds() != w.arc.View().Image().Bounds() {
		t.Errorf("view.png: %v, %v; the view is %v", err, img.Bounds(), w.arc.View().Image().Bounds())
	}
}

// TestArchiveSettingsKept: the Archive side panel's choices are kept in
// the preferences and come back in the next window: the resolution
// (selected again once an archive offers it), average, hydrophone
// calibration, colour range and colormap, and the last archive opened
// (the open dialog's start); the LTSA computed there has them. Ctrl+S
// in the Archive tab writes the LTSA shown, the same bytes as the
// panel's Export….
func TestArchiveSettingsKept(t *testing.T) {
	dir := t.TempDir()
	writeStereo(t, filepath.Join(dir, "SM4_20210315_000000.wav"), 4, [2]float64{500, 1000})
	w := openArchiveTab(t, dir)
	s := w.arc.SideWidgets()
	s.FFT.SetSelectedIndex(2) // 512 points
	s.Unit.SetSelected(s.Unit.Options[1])
	s.Sensitivity.SetText("-165.5")
	s.Gain.SetText("6")
	s.Average.SetText("0.5")
	s.AutoRange.SetChecked(false)
	s.Low.SetText("40")
	s.High.SetText("120")
	s.Colormap.SetSelected("magma")
	waitFor(t, func() bool {
		p := w.arc.Params()
		return !w.arc.Busy() && p.FFT == 512 && p.Cal.GainDB == 6 && p.Cal.SensitivityDB == -165.5 && p.Average == 500*time.Millisecond
	})
	want := w.arc.Settings()

	out := t.TempDir()
	w.win.Canvas().Capture()
	if err := w.exportPNG(filepath.Join(out, "ctrl-s.png")); err != nil {
		t.Fatal(err)
	}
	if err := w.arc.Export(filepath.Join(out, "panel.png")); err != nil {
		t.Fatal(err)
	}
	a, err1 := os.ReadFile(filepath.Join(out, "ctrl-s.png"))
	b, err2 := os.ReadFile(filepath.Join(out, "panel.png"))
	if err1 != nil || err2 != nil || len(a) < 1000 || !bytes.Equal(a, b) {
		t.Errorf("Ctrl+S in the Archive tab wrote %d bytes, the panel's Export… %d: not the same (%v %v)", len(a), len(b), err1, err2)
	}

	// the next window, on the same preferences
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	w2 := New(w.app, win, newFakeEngine(), Options{Manual: true, Do: func(f func()) { uiQueue <- f }})
	t.Cleanup(w2.Close)
	got := w2.arc.Settings()
	if got != want || got.Last != dir || got.FFT != 512 || got.Colormap != "magma" || got.AutoRange {
		t.Fatalf("the next window's Archive settings\n%+v\nwant\n%+v", got, want)
	}
	w2.tabs.SelectIndex(len(w2.tabs.Items) - 1)
	w2.exportPNGDialog() // Ctrl+S with nothing open says so, and asks nothing
	if n := w2.note.Text(); !strings.Contains(n, "Open an archive first") {
		t.Errorf("Ctrl+S in an empty Archive tab: notice %q", n)
	}
	w2.arc.Open(got.Last)
	waitFor(t, func() bool { return w2.arc.View().LTSA() != nil && !w2.arc.Busy() })
	p := w2.arc.Params()
	if p.FFT != 512 || p.Cal.SensitivityDB != -165.5 || p.Cal.GainDB != 6 || p.Average != 500*time.Millisecond ||
		len(w2.arc.View().LTSA().Freqs) != 257 || w2.arc.View().LTSA().Unit != "dB re 1 µPa²/Hz" {
		t.Errorf("the next window's LTSA: params %+v, %d bins, unit %q", p, len(w2.arc.View().LTSA().Freqs), w2.arc.View().LTSA().Unit)
	}
	if lo, hi := w2.arc.View().Range(); lo != 40 || hi != 120 {
		t.Errorf("the next window's colour range %g…%g dB, want 40…120", lo, hi)
	}
}
