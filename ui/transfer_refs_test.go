package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

// TestTransferReferences: a transfer function stored from the Transfer
// panel is kept with the references (marked a transfer function), the
// notice says so, the Transfer panel offers it as "Difference to ref."
// and its view takes the difference to it; a spectrum reference is never
// offered there.
func TestTransferReferences(t *testing.T) {
	e := newFakeEngine()
	w, _ := newTestWindow(t, e)
	spec, err := dsp.NewTrace("room", []float64{100, 1000}, []float64{-20, -30})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.rp.StoreTrace(spec); err != nil {
		t.Fatal(err)
	}
	tr, err := dsp.NewTransferTrace("speaker A", []float64{100, 1000, 10000}, []float64{-1, 0, -3}, []float64{10, 0, -40}, []float64{0.99, 1, 0.9})
	if err != nil {
		t.Fatal(err)
	}
	w.tp.OnStore(tr)
	if got := w.rp.Transfers(); len(got) != 1 || got[0].Name != "speaker A" || !got[0].IsTransfer() {
		t.Fatalf("transfer references %v", got)
	}
	if n := w.note.Text(); !strings.Contains(n, "speaker A") {
		t.Errorf("notice %q", n)
	}
	if got := w.tp.DiffOptions(); !slices.Equal(got, []string{"None", "speaker A"}) {
		t.Fatalf("Difference to ref. offers %q", got)
	}
	w.tp.ChooseDiff("speaker A")
	if w.tp.View().DiffTo() != 0 {
		t.Errorf("the view's difference is to %d, want 0", w.tp.View().DiffTo())
	}
	w.tp.ChooseDiff("None")
	if w.tp.View().DiffTo() != -1 {
		t.Errorf("after None the view's difference is to %d", w.tp.View().DiffTo())
	}
}
