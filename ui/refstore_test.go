package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/ui/view"
)

// keptFiles lists the .csv files in dir, sorted.
func keptFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	slices.Sort(m)
	return m
}

// refNames are the names of w's references, in order.
func refNames(w *Window) []string {
	var n []string
	for _, r := range w.rp.Refs() {
		n = append(n, r.Trace.Name)
	}
	return n
}

// sameTrace says whether a and b hold the same points, bit for bit.
func sameTrace(a, b *dsp.Trace) bool {
	return slices.Equal(a.FreqHz, b.FreqHz) && slices.Equal(a.Level, b.Level)
}

// TestReferencesKeptBetweenSessions: with a reference directory, the
// references stored and loaded in one window are files there (the CSV
// dsp reads back exactly), the next window starts with them in the same
// order, names (even ones with / : %) and colours; a deleted one's file
// goes, a new one comes after the old ones; a file that does not read is
// skipped with a notice naming it, other files are left alone.
func TestReferencesKeptBetweenSessions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prism", "references") // made at the first reference
	cli := filepath.Join(t.TempDir(), "cli.csv")
	if err := os.WriteFile(cli, []byte("freq_hz,level\n100,-10\n1000,-20.5\n10000,-30.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newFakeEngine()
	w1, _ := newTestWindowWith(t, e, Options{ReferenceDir: dir})
	w1.Pull()
	if err := w1.rp.Store("bench/A: 1%"); err != nil {
		t.Fatal(err)
	}
	if err := w1.rp.Load(cli); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	e.offset = -12.5
	e.mu.Unlock()
	w1.Pull()
	if err := w1.rp.Store("quiet"); err != nil {
		t.Fatal(err)
	}
	want := []string{"bench/A: 1%", "cli", "quiet"}
	if files := keptFiles(t, dir); len(files) != 3 {
		t.Fatalf("kept files %v, want 3", files)
	}
	for _, r := range w1.rp.Refs() {
		back, err := dsp.ReadTraceFile(r.File)
		if err != nil || !sameTrace(back, r.Trace) || filepath.Dir(r.File) != dir {
			t.Errorf("%q kept in %s: read back %v", r.Trace.Name, r.File, err)
		}
	}

	w2, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: dir})
	if got := refNames(w2); !slices.Equal(got, want) {
		t.Fatalf("the next session has %q, want %q", got, want)
	}
	for i, r := range w2.rp.Refs() {
		old := w1.rp.Refs()[i]
		if !sameTrace(r.Trace, old.Trace) || r.Color != old.Color || !r.Shown {
			t.Errorf("%q: reloaded %d points, colour %v (was %v), shown %v", r.Trace.Name, len(r.Trace.Level), r.Color, old.Color, r.Shown)
		}
	}
	if err := w2.rp.Delete(0); err != nil {
		t.Fatal(err)
	}
	if files := keptFiles(t, dir); len(files) != 2 || strings.Contains(strings.Join(files, ","), "bench") {
		t.Errorf("after deleting bench: %v", files)
	}
	w2.Pull()
	if err := w2.rp.Store("after"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "100 broken.csv"), []byte("freq_hz,level\n100,loud\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.csv"), []byte("not a reference"), 0o644); err != nil {
		t.Fatal(err)
	}
	w3, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: dir})
	if got := refNames(w3); !slices.Equal(got, []string{"cli", "quiet", "after"}) {
		t.Errorf("the third session has %q", got)
	}
	if s := w3.statusText(); !strings.Contains(s, "100 broken.csv") || strings.Contains(s, "notes.csv") {
		t.Errorf("status %q: want the broken file named, the other file left alone", s)
	}
	// the next reference goes after the broken file's number too
	w3.Pull()
	if err := w3.rp.Store("last"); err != nil {
		t.Fatal(err)
	}
	if r := w3.rp.Refs()[3]; filepath.Base(r.File) != "101 last.csv" {
		t.Errorf("the new reference is kept in %s, want 101 last.csv", filepath.Base(r.File))
	}
}

// TestReferenceDirFaults: a reference directory that cannot be made
// keeps the reference for the session and says so; more files than
// view.MaxReferences load the first ones, with a notice; without a directory
// nothing is written anywhere.
func TestReferenceDirFaults(t *testing.T) {
	block := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: filepath.Join(block, "references")})
	w.Pull()
	err := w.rp.Store("a")
	if err == nil || !strings.HasPrefix(err.Error(), "prism: ") || !strings.Contains(err.Error(), "this session only") || len(w.rp.Refs()) != 1 {
		t.Errorf("unwritable directory: %v, %d references", err, len(w.rp.Refs()))
	}

	dir := t.TempDir()
	for i := 1; i <= view.MaxReferences+1; i++ {
		// the files as the panel names them ("003 NAME.csv")
		body := fmt.Sprintf("freq_hz,level\n100,%d\n1000,%d\n", -i, -2*i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d r%d.csv", i, i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w2, _ := newTestWindowWith(t, newFakeEngine(), Options{ReferenceDir: dir})
	if n := len(w2.rp.Refs()); n != view.MaxReferences || w2.rp.Refs()[7].Trace.Level[1] != -16 {
		t.Errorf("%d references loaded from %d files", n, view.MaxReferences+1)
	}
	if s := w2.statusText(); !strings.Contains(s, "009 r9.csv") || !strings.Contains(s, "at most 8") {
		t.Errorf("status %q: want the ninth file named", s)
	}

	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	w3, _ := newTestWindow(t, newFakeEngine())
	w3.Pull()
	if err := w3.rp.Store("b"); err != nil || w3.rp.Refs()[0].File != "" {
		t.Errorf("without a directory: %v, kept in %q", err, w3.rp.Refs()[0].File)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Errorf("without a directory the window wrote %d entries under the config home", len(ents))
	}
}
