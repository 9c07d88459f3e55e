package ui

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestLoadTypedMultiTrace: Load… with the typed path of a spectrum export
// (three traces) asks which trace to load: that dialog stays shown when
// the path dialog closes (it closed it too, and Load… did nothing).
func TestLoadTypedMultiTrace(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	path := filepath.Join(t.TempDir(), "spectrum.csv")
	csv := "freq_hz,current_dbfs,average_dbfs,peak_hold_dbfs\n0,-100,-101,-99\n100,-50,-51,-49\n200,-60,-61,-59\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	test.Tap(buttonNamed(t, w, "Load…"))
	if w.dlg.OpenEntry() == nil || w.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Load… showed no path dialog")
	}
	w.dlg.OpenEntry().SetText(path)
	w.dlg.OpenEntry().OnSubmitted(path)
	offered, chosen := w.rp.Choosing()
	if len(offered) != 4 || chosen == "" {
		t.Fatalf("offered %q, chosen %q: want the 3 traces and every one", offered, chosen)
	}
	if n := len(w.win.Canvas().Overlays().List()); n != 1 {
		t.Errorf("%d overlays shown, want the trace dialog alone", n)
	}
	if err := w.rp.Choose(chosen); err != nil {
		t.Fatal(err)
	}
	if w.win.Canvas().Overlays().Top() != nil {
		t.Error("a dialog is still shown after the choice")
	}
}
