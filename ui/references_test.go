package ui

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/ui/view"
)

// TestReferenceStoreSaveLoad: the live average stored as a reference
// holds the fake spectrum's average level at every bin; saved as CSV and
// read back by dsp's reader it is the same to the last bit; it loads
// again under its file's name; a CSV in `prism spectrum`'s own form loads;
// the references are drawn with a legend; the ninth is refused.
func TestReferenceStoreSaveLoad(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.Pull()
	if err := w.rp.Store("bench A"); err != nil {
		t.Fatal(err)
	}
	ref := w.rp.Refs()[0].Trace
	binHz := 48000.0 / 4096
	if len(ref.Level) != 2049 {
		t.Fatalf("reference of %d points, want 2049", len(ref.Level))
	}
	for k, lv := range ref.Level {
		f := float64(k) * binHz
		want := float64(fakeLevel(f) - 3) // the exponential average (on by default) reads 3 dB under
		if lv != want || ref.FreqHz[k] != f {
			t.Fatalf("bin %d: stored %g Hz %g dB, want %g Hz %g dB", k, ref.FreqHz[k], lv, f, want)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.csv")
	if err := w.rp.Save(0, path); err != nil {
		t.Fatal(err)
	}
	back, err := dsp.ReadTraceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Name != "bench" || len(back.Level) != len(ref.Level) {
		t.Fatalf("read back %q with %d points", back.Name, len(back.Level))
	}
	for k := range back.Level {
		if back.Level[k] != ref.Level[k] || back.FreqHz[k] != ref.FreqHz[k] {
			t.Fatalf("bin %d: read back %g Hz %g dB, stored %g Hz %g dB", k, back.FreqHz[k], back.Level[k], ref.FreqHz[k], ref.Level[k])
		}
	}
	if err := w.rp.Load(path); err != nil {
		t.Fatal(err)
	}
	if got := w.rp.Refs()[1].Trace.Name; got != "bench" {
		t.Errorf("loaded reference named %q, want the file's name", got)
	}
	if err := w.rp.Load(path); err != nil || w.rp.Refs()[2].Trace.Name != "bench (2)" {
		t.Errorf("loaded again: %v, named %q", err, w.rp.Refs()[2].Trace.Name)
	}
	w.rp.Delete(2)
	// the CSV `prism spectrum -o X.csv` writes: freq as %g-free decimal, level to 4 places
	cli := filepath.Join(dir, "cli.csv")
	var b strings.Builder
	b.WriteString("freq_hz,level\n")
	for k := range 5 {
		b.WriteString(strconv.FormatFloat(float64(k)*binHz, 'f', -1, 64) + "," + strconv.FormatFloat(-50.25-1.5*float64(k), 'f', 4, 64) + "\n")
	}
	writeFile(t, cli, b.String())
	if err := w.rp.Load(cli); err != nil {
		t.Fatalf("prism spectrum's CSV: %v", err)
	}
	if got := w.rp.Refs()[2].Trace; got.Name != "cli" || got.Level[1] != -51.75 {
		t.Errorf("prism spectrum's CSV read as %q %v", got.Name, got.Level)
	}
	capture(w.win)
	leg := w.spec.RefLegend()
	if len(leg) != 3 || leg[0].Label != "bench A" || leg[1].Label != "bench" || leg[0].Color == leg[1].Color {
		t.Errorf("legend %+v, want three references in distinct colours", leg)
	}
	w.rp.Show(1, false)
	capture(w.win)
	if leg := w.spec.RefLegend(); len(leg) != 2 || leg[1].Label != "cli" {
		t.Errorf("with one hidden, legend %+v", leg)
	}
	for i := 3; i < view.MaxReferences; i++ {
		if err := w.rp.Store("r" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.rp.Store("one too many"); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Errorf("a ninth reference: %v, want refused", err)
	}
	if err := w.rp.Store("r3"); err == nil {
		t.Error("a second reference named r3 was accepted")
	}
	w.rp.Delete(0)
	if n := len(w.rp.Refs()); n != view.MaxReferences-1 || w.rp.Refs()[0].Trace.Name != "bench" {
		t.Errorf("after deleting the first: %d references, first %q", n, w.rp.Refs()[0].Trace.Name)
	}
	if err := w.rp.Store("again"); err != nil {
		t.Errorf("after a delete: %v", err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadBadReference: a bad reference CSV is refused with the line that
// is wrong.
func TestLoadBadReference(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"notnum", "freq_hz,level\n100,-20\n200,-21\n300,loud\n", "line 4"},
		{"order", "freq_hz,level\n100,-20\n50,-21\n", "line 3"},
		{"fields", "freq_hz,level\n100,-20,7\n", "line 2"},
		{"header", "hz,db\n100,-20\n", `want "freq_hz,level"`},
		{"nan", "freq_hz,level\n100,NaN\n", "line 2"},
		{"empty", "freq_hz,level\n", "no points"},
	} {
		path := filepath.Join(dir, c.name+".csv")
		writeFile(t, path, c.text)
		err := w.rp.Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "prism: ") {
			t.Errorf("%s: %v, want a prism: error with %q", c.name, err, c.want)
		}
	}
	if n := len(w.rp.Refs()); n != 0 {
		t.Errorf("%d references after bad files", n)
	}
	if err := w.rp.Load(filepath.Join(dir, "missing.csv")); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReferenceDifference: the difference plot shows the spectrum shown
// less the reference at every bin — against a reference from the same
// grid (the engine's levels moved by a known offset) and against a loaded
// reference of a few points, interpolated linearly in log-frequency
// here, independently of dsp.Trace.At.
func TestReferenceDifference(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.Pull()
	if err := w.rp.Store("before"); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	e.offset = 4.5
	e.mu.Unlock()
	w.rp.SetDifference(0)
	w.Pull()
	d := w.difference()
	if d == nil || !d.Visible() || w.spec.Visible() {
		t.Fatal("the difference does not replace the spectrum")
	}
	binHz := 48000.0 / 4096
	diff := d.Lines()[0].DB
	if len(diff) != 2049 {
		t.Fatalf("difference of %d bins", len(diff))
	}
	for k, v := range diff {
		f := float64(k) * binHz
		cur := float64(fakeLevel(f) - 3 + 4.5)
		ref := float64(fakeLevel(f) - 3)
		if math.Abs(float64(v)-(cur-ref)) > 1e-4 {
			t.Fatalf("bin %d: difference %g, want %g", k, v, cur-ref)
		}
	}
	// a coarse reference: 3 points, log-linear between, held outside
	pts := [][2]float64{{100, -40}, {1000, -60}, {10000, -50}}
	var b strings.Builder
	b.WriteString("freq_hz,level\n")
	for _, p := range pts {
		b.WriteString(strconv.FormatFloat(p[0], 'g', -1, 64) + "," + strconv.FormatFloat(p[1], 'g', -1, 64) + "\n")
	}
	path := filepath.Join(t.TempDir(), "coarse.csv")
	writeFile(t, path, b.String())
	if err := w.rp.Load(path); err != nil {
		t.Fatal(err)
	}
	diffPicker(t, w).SetSelected("coarse") // through the panel's picker
	w.Pull()
	diff = w.difference().Lines()[0].DB
	for k, v := range diff {
		f := float64(k) * binHz
		want := float64(fakeLevel(f)-3+4.5) - logInterp(pts, f)
		if math.Abs(float64(v)-want) > 1e-3 {
			t.Fatalf("bin %d (%g Hz): difference %g, want %g", k, f, v, want)
		}
	}
	if got := w.difference().Lines()[0].Name; got != "shown − coarse" {
		t.Errorf("difference labelled %q", got)
	}
	w.rp.SetDifference(-1)
	if w.difference() != nil || !w.spec.Visible() || w.diff.Visible() {
		t.Error("the spectrum did not come back")
	}
}

// logInterp is the level at f of points (Hz, dB): linear in log f between
// points, the end values outside.
func logInterp(pts [][2]float64, f float64) float64 {
	if f <= pts[0][0] {
		return pts[0][1]
	}
	for i := 1; i < len(pts); i++ {
		if f <= pts[i][0] {
			t := math.Log(f/pts[i-1][0]) / math.Log(pts[i][0]/pts[i-1][0])
			return pts[i-1][1] + t*(pts[i][1]-pts[i-1][1])
		}
	}
	return pts[len(pts)-1][1]
}

// TestStoreKey: S takes the spectrum shown at the key press and asks for
// a name (the time by default); Store keeps it under the name typed,
// whatever the spectrum did while the dialog was open. The key is in the
// help.
func TestStoreKey(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.now = func() time.Time { return time.Date(2026, 1, 1, 17, 23, 5, 0, time.UTC) }
	w.Pull()
	w.typedRune('s')
	name, ok := w.win.Canvas().Focused().(*widget.Entry) // the Store dialog's name
	if !ok || name.Text != "ref 17:23:05" {
		t.Fatalf("no Store dialog with the time as the name")
	}
	e.mu.Lock()
	e.offset = 20
	e.mu.Unlock()
	w.Pull()
	if w.win.Canvas().Focused() != name {
		t.Error("the name is not focused")
	}
	name.SetText("  quiet room ")
	name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // Enter stores
	refs := w.rp.Refs()
	if len(refs) != 1 || refs[0].Trace.Name != "quiet room" {
		t.Fatalf("stored %d references", len(refs))
	}
	if got, want := refs[0].Trace.Level[100], float64(fakeLevel(100*48000.0/4096)-3); got != want {
		t.Errorf("bin 100: stored %g dB, want %g (the spectrum at the key press)", got, want)
	}
	if !strings.Contains(keyHelp(), "S\tstore") || !strings.Contains(keyHelp(), "D\tharmonic") {
		t.Error("S and D are not in the keys' help")
	}
	if got := diffPicker(t, w).Options; len(got) != 2 || got[1] != "quiet room" {
		t.Errorf("difference picker offers %q", got)
	}
}

// TestReferencePanel: the panel's rows drive the references: the check
// hides and shows one, the bin deletes it, and the rows follow.
func TestReferencePanel(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	w.Pull()
	for _, n := range []string{"one", "two"} {
		if err := w.rp.Store(n); err != nil {
			t.Fatal(err)
		}
	}
	shown, del := refRows(w)
	if len(shown) != 2 || len(del) != 2 || shown[0].Text != "one" || !shown[0].Checked {
		t.Fatalf("panel rows %d", len(shown))
	}
	test.Tap(shown[0])
	if w.rp.Refs()[0].Shown {
		t.Error("unchecking did not hide the reference")
	}
	shown, _ = refRows(w) // the rows are made again at each change
	test.Tap(shown[0])
	if !w.rp.Refs()[0].Shown {
		t.Error("checking did not show the reference")
	}
	diffPicker(t, w).SetSelected("two")
	_, del = refRows(w)
	test.Tap(del[1])
	shown, _ = refRows(w)
	if n := len(w.rp.Refs()); n != 1 || len(shown) != 1 || w.difference() != nil || diffPicker(t, w).Selected != "None" {
		t.Errorf("after deleting the reference the difference was to: %d references, %d rows, difference %v, picker %q",
			n, len(shown), w.difference() != nil, diffPicker(t, w).Selected)
	}
}
