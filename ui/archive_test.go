package ui

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
	"github.com/prismaudio/prism/gpufft"
)

// OpenArchive is the session's: a manifest or a scan.
func (e *fakeEngine) OpenArchive(paths []string) (*archive.Catalog, error) {
	if strings.EqualFold(filepath.Ext(paths[0]), ".csv") {
		return archive.ReadManifest(paths[0])
	}
	return archive.Scan(paths)
}

// ArchiveLTSA is the real LTSA on the CPU engine, without the disk cache.
func (e *fakeEngine) ArchiveLTSA(ctx context.Context, r cache.Request, progress func(float64)) (*cache.LTSA, error) {
	eng := gpufft.NewCPU(1)
	defer eng.Close()
	return cache.Compute(ctx, eng, "", r, progress)
}

// writeTone writes secs seconds of a mono float WAV at 8 kHz: a sine at hz.
func writeTone(t *testing.T, path string, secs, hz float64) {
	t.Helper()
	const rate = 8000
	le := binary.LittleEndian
	var data []byte
	for i := range int(secs * rate) {
		data = le.AppendUint32(data, math.Float32bits(float32(0.5*math.Sin(2*math.Pi*hz*float64(i)/rate))))
	}
	h := append([]byte("RIFF"), le.AppendUint32(nil, uint32(36+len(data)))...)
	h = append(h, "WAVEfmt "...)
	for _, v := range []uint32{16, 3 | 1<<16, rate, rate * 4, 4 | 32<<16} {
		h = le.AppendUint32(h, v)
	}
	h = append(h, "data"...)
	h = le.AppendUint32(h, uint32(len(data)))
	if err := os.WriteFile(path, append(h, data...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestArchiveTab: a folder opens as an archive (its gap reported), its
// LTSA is computed and shown; zooming in computes a finer one of the
// region; a click on a recording opens it in the File tab, a click in
// the gap says so.
func TestArchiveTab(t *testing.T) {
	dir := t.TempDir()
	writeTone(t, filepath.Join(dir, "SM4_20210315_000000.wav"), 60, 500)
	writeTone(t, filepath.Join(dir, "SM4_20210315_000100.wav"), 60, 1000)
	writeTone(t, filepath.Join(dir, "SM4_20210315_000400.wav"), 60, 2000) // after a 2-minute gap
	e := newFakeEngine()
	e.file = syntheticFile()
	w, _ := newTestWindow(t, e)
	w.tabs.SelectIndex(len(w.tabs.Items) - 1)
	w.arc.Open(dir)
	v := w.arc.View()
	waitFor(t, func() bool { return v.LTSA() != nil && !w.arc.Busy() })
	if info := w.arc.Info(); !strings.Contains(info, "3 files") || !strings.Contains(info, "1 gap") || !strings.Contains(info, "LTSA in ") {
		t.Errorf("info %q", info)
	}
	from := time.Date(2021, 3, 15, 0, 0, 0, 0, time.UTC)
	if l := v.LTSA(); !l.Rows[0].Start.Equal(from) || len(l.Rows) != 3*300 {
		t.Fatalf("overview: %d rows from %v, want 900 of 200 ms (5 min over 2048 columns) from 00:00", len(l.Rows), l.Rows[0].Start)
	}

	// zoom into the first minute: a finer LTSA of it
	v.SetView(from.Add(20*time.Second), from.Add(25*time.Second))
	waitFor(t, func() bool { return v.Shown() != v.LTSA() && !w.arc.Busy() })
	if d := v.Shown(); d.Average >= v.LTSA().Average || d.Rows[0].Start.After(from.Add(20*time.Second)) {
		t.Errorf("detail: %v average from %v", d.Average, d.Rows[0].Start)
	}

	// a click at 00:01:30 opens the second file in the File tab
	v.SetView(from, from.Add(5*time.Minute))
	w.win.Canvas().Capture()
	a := v.Area()
	xAt := func(s float64) float32 { return float32(a.Min.X) + float32(s/300*float64(a.Dx())) }
	test.TapAt(v, fyne.NewPos(xAt(90), float32(a.Min.Y+a.Dy()/2)))
	if w.tabs.Selected() != w.fileTab || w.dlg.RecentFolders()[0] != dir {
		t.Fatalf("a click on 00:01:30: tab %q, recent folders %v", w.tabs.Selected().Text, w.dlg.RecentFolders())
	}
	waitFor(t, func() bool { return w.fview.File() != nil })
	test.TapAt(v, fyne.NewPos(xAt(150), float32(a.Min.Y+a.Dy()/2)))
	if n := w.note.Text(); !strings.Contains(n, "00:02:3") || !strings.Contains(n, "gap") {
		t.Errorf("a click in the gap says %q", n)
	}
}
